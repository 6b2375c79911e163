#!/usr/bin/env bash
# tests/native/isa-objects.sh NM OBJECT...: fails, listing them, if the
# instruction-set copies of the kernels (kernel_set.h) define a global symbol
# outside their own seq2seq::isa_* namespace.
set -euo pipefail
nm=$1; shift
bad=0
for obj in "$@"; do
  leaks=$("$nm" -C --defined-only "$obj" | awk '$2 ~ /^[A-Zuvw]$/' | grep -v ' seq2seq::isa_' || true)
  if [[ -n $leaks ]]; then
    echo "$obj defines global symbols outside its namespace:" >&2
    echo "$leaks" >&2
    bad=1
  fi
done
[[ $bad == 0 ]] && echo "$# objects: every global symbol in seq2seq::isa_*"
exit $bad
