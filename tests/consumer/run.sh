#!/usr/bin/env bash
# The library as other CMake projects use it (docs/decoding.md, "Using the library
# from another CMake project"):
#   tests/consumer/run.sh BUILD_DIR
# 1. installs BUILD_DIR (a configured and built native tree of this repository)
#    into a fresh prefix, then builds tests/consumer against it with
#    find_package(seq2seq CONFIG REQUIRED): only the installed public headers,
#    libseq2seq.a and the package config, no source tree and no Eigen;
# 2. builds the same program with the source tree added by add_subdirectory (as
#    FetchContent does), the library compiled anew with the default, portable flags (unoptimised);
# 3. runs both on shipped models and holds each output line (word, output, score)
#    to the installed CLI's for the same model and word.
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
jobs=${SEQ2SEQ_JOBS:-$(nproc)}
work=$(mktemp -d "${TMPDIR:-/tmp}/seq2seq-consumer.XXXXXX")
trap 'rm -rf "$work"' EXIT

prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
echo "installed: $(cd "$prefix" && find . -type f | sort | tr '\n' ' ')"
for f in include/seq2seq/session.h include/seq2seq/model.h lib/cmake/seq2seq/seq2seqConfig.cmake \
         lib/cmake/seq2seq/seq2seqConfigVersion.cmake bin/seq2seq; do
  [[ -e $prefix/$f ]] || { echo "consumer: $f was not installed" >&2; exit 1; }
done
# Internal headers: tensor.h (Eigen), and those declaring what a user cannot get
# (forced_score.h takes the scorers of scorer.h; model_access.h hands out the
# network of network.h).
for internal in tensor.h forced_score.h model_access.h; do
  if [[ -e $prefix/include/seq2seq/$internal ]]; then
    echo "consumer: an internal header ($internal) was installed" >&2; exit 1
  fi
done
# Each installed header compiles alone, against the installed ones only.
headers=0
for h in "$prefix"/include/seq2seq/*.h; do
  printf '#include <seq2seq/%s>\n' "$(basename "$h")" |
    "${CXX:-c++}" -std=c++17 -fsyntax-only -Wall -Werror -I"$prefix/include" -x c++ - ||
    { echo "consumer: <seq2seq/$(basename "$h")> does not compile on its own" >&2; exit 1; }
  headers=$((headers + 1))
done
echo "each of the $headers installed headers compiles on its own"

cmake -S "$root/tests/consumer" -B "$work/package" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/package" -j"$jobs" >/dev/null
# Unoptimised (-O0, no debug info): what this variant checks is that the source tree
# builds and links inside another project; the optimised library is BUILD_DIR's.
cmake -S "$root/tests/consumer" -B "$work/subdirectory" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 \
  -DSEQ2SEQ_SOURCE_DIR="$root" >/dev/null
cmake --build "$work/subdirectory" -j"$jobs" --target consumer >/dev/null

cli=$prefix/bin/seq2seq
# Each case: model, word, and for beam search its width.
cases=(
  "g2p-transformer PHONEME"
  "g2p-transformer PHONEME 5"
  "g2p-rnn-dot SEQUENCE"
  "g2p-cmlm DECODING"
)
checked=0
for c in "${cases[@]}"; do
  read -r model word beam <<<"$c"
  path=$root/models/$model.safetensors
  expected=$("$cli" decode --model "$path" ${beam:+--beam "$beam"} "$word")
  for variant in package subdirectory; do
    got=$("$work/$variant/consumer" "$path" "$word" ${beam:+"$beam"})
    # The same words and outputs; the scores to 1e-4 (the add_subdirectory build
    # may use other SIMD widths than the installed one, and Eigen's element-wise
    # work may then round differently in the last bits).
    if ! awk -F'\t' 'NR == FNR { w[FNR] = $1; o[FNR] = $2; s[FNR] = $3; n = FNR; next }
                     { m = FNR; d = $3 - s[FNR]; if (d < 0) d = -d
                       if ($1 != w[FNR] || $2 != o[FNR] || d > 1e-4) exit 1 }
                     END { if (m != n || n == 0) exit 1 }' \
         <(printf '%s\n' "$expected") <(printf '%s\n' "$got"); then
      echo "consumer ($variant): $model ${beam:+beam $beam }$word gave" >&2
      printf '%s\n' "$got" >&2
      echo "where the CLI gave" >&2
      printf '%s\n' "$expected" >&2
      exit 1
    fi
    checked=$((checked + 1))
  done
  echo "$model ${beam:+beam $beam }$word: $(printf '%s' "$expected" | cut -f2) (CLI, find_package and add_subdirectory agree)"
done
echo "consumer: $checked outputs match the CLI's"
