#!/usr/bin/env bash
# Runs the fuzz targets of a SEQ2SEQ_FUZZ build, each for a fixed time:
#   tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET...]
# Each target's corpus grows in BUILD_DIR/fuzz-corpus/TARGET (seeded from
# tests/fuzz/corpus/ and, for the loader, the fixture models); inputs that fail
# are saved as BUILD_DIR/fuzz-findings/TARGET-*. Any crash, sanitizer report,
# leak, input slower than 2 s or using over 256 MB fails the run.
# The seeds are the corpus's hand-made inputs (named, not SHA-1s), which is what
# CI runs: libFuzzer executes every seed before its clock counts, and the
# inputs long runs add (long.sh) take minutes under ASan. SEQ2SEQ_FUZZ_CORPUS=all
# seeds with the whole committed corpus; `run.sh build/fuzz 1` with it replays a
# plain build's corpus under the sanitizers.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1
seconds=$2
shift 2
targets=("$@")
((${#targets[@]})) || targets=(load_bytes load_framed decode score inspect)

# -rss_limit_mb holds the whole process, and ASan keeps freed memory in
# quarantine (256 MB by default) and its free lists: smaller and released, so
# that the limit measures what an input costs. (-malloc_limit_mb, which
# defaults to the same 256, catches any single allocation over it.)
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=16:allocator_release_to_os_interval_ms=500}
mkdir -p "$build/fuzz-findings"
run_target() {
  local t=$1 corpus="$build/fuzz-corpus/$1" log="$build/fuzz-findings/$1.log" status=0
  mkdir -p "$corpus"
  if [[ ${SEQ2SEQ_FUZZ_CORPUS:-seeds} == all ]]; then
    cp -n "$here/corpus/$t"/* "$corpus/"
  else
    find "$here/corpus/$t" -maxdepth 1 -type f -regextype posix-extended ! -regex '.*/[0-9a-f]{40}' -exec cp -n {} "$corpus/" \;
  fi
  # The raw-bytes loader also starts from the smaller real models (the larger
  # ones only slow each execution down; the framed target covers them).
  [[ $t == load_bytes ]] && find "$here/../fixtures" -name '*.safetensors' -size -100k -exec cp -n {} "$corpus/" \;
  "$build/fuzz_$t" -max_total_time="$seconds" -rss_limit_mb=256 -timeout=2 -print_final_stats=1 \
    -dict="$here/safetensors.dict" -artifact_prefix="$build/fuzz-findings/$t-" "$corpus" >"$log" 2>&1 || status=$?
  echo "$status" >"$build/fuzz-findings/$t.status"
}
# As many targets at a time as there are cores (each runs on one).
for t in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= $(nproc))); do wait -n || true; done
  echo "-- fuzz_$t for ${seconds} s"
  run_target "$t" &
done
wait
failed=0
for t in "${targets[@]}"; do
  echo "-- fuzz_$t"
  # The progress lines are many; the start, the end and any report are what matter.
  grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' "$build/fuzz-findings/$t.log" | tail -n 40
  status=$(cat "$build/fuzz-findings/$t.status")
  ((status == 0)) || { echo "fuzz_$t failed (exit $status): input and log in $build/fuzz-findings/"; failed=1; }
done
exit $failed
