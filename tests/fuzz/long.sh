#!/usr/bin/env bash
# A long fuzz run that accumulates: one target for SECONDS starting from the
# committed corpus (tests/fuzz/corpus/TARGET), then what it grew minimised into
# a fresh corpus (-merge=1) and written back, and a row added to
# docs/reliability.md with the cumulative executions per target:
#   tests/fuzz/long.sh BUILD_DIR SECONDS TARGET
# BUILD_DIR is a SEQ2SEQ_FUZZ build: sanitized (ASan + UBSan, the default) or
# SEQ2SEQ_SANITIZE=none (libFuzzer alone, for volume; tests/fuzz/README.md).
# The run's log, corpus and findings stay in BUILD_DIR/fuzz-long/TARGET-TIME/.
# A finding ends the run: the input is left in findings/, the row counts it, and
# the exit status is 1. One run per target at a time (they share its corpus).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
(($# == 3)) || { echo "usage: $0 BUILD_DIR SECONDS TARGET" >&2; exit 2; }
build=$(cd "$1" && pwd)
seconds=$2
target=$3
bin="$build/fuzz_$target"
committed="$here/corpus/$target"
[[ -x $bin && -d $committed ]] || { echo "no $bin or $committed" >&2; exit 2; }
kind=asan+ubsan
grep -q '^SEQ2SEQ_SANITIZE:STRING=none$' "$build/CMakeCache.txt" && kind=plain

# The commit the run fuzzes, taken now: the worktree may move on while it runs.
engine=$(git -C "$root" rev-parse --short HEAD)
work="$build/fuzz-long/$target-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$work/corpus" "$work/findings" "$work/merged"
cp "$committed"/* "$work/corpus/"
# As run.sh: the raw-bytes loader also starts from the smaller fixture models;
# they are not written back (every run adds them again).
[[ $target == load_bytes ]] && find "$root/tests/fixtures" -name '*.safetensors' -size -100k -exec cp {} "$work/corpus/" \;
# Inputs as long as the largest seed or 4 KB (libFuzzer's default), whichever is
# larger: the raw-bytes loader mutates whole fixture models.
max_len=$(find "$work/corpus" -type f -printf '%s\n' | sort -n | tail -1)
((max_len >= 4096)) || max_len=4096

export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=16:allocator_release_to_os_interval_ms=500}
# A 20 s timeout, not run.sh's 2 s: libFuzzer's clock is wall time, and a long run
# beside other work (a test run, a build) is starved for seconds at a time, which
# stopped runs on inputs that rerun alone in milliseconds. A hang still ends the
# run; an input slower than 2 s but legal is what the replay under ASan finds
# (SEQ2SEQ_FUZZ_CORPUS=all tests/fuzz/run.sh build/fuzz 1, tests/fuzz/README.md).
flags=(-rss_limit_mb=256 -timeout=20 -max_len="$max_len" -dict="$here/safetensors.dict")
echo "fuzz_$target ($kind) for $seconds s: $work"
start=$(date +%s)
status=0
"$bin" "${flags[@]}" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$work/findings/" \
  "$work/corpus" >"$work/log" 2>&1 || status=$?
elapsed=$(($(date +%s) - start))

# The hand-made seeds (named) stay; the merge adds to them the inputs of the
# run that reach coverage they lack, named by their SHA-1 as libFuzzer names
# them. Those replace the SHA-1-named inputs of the committed corpus, all but
# the ones over 4 KB, which keeps a corpus in git to hundreds of KB: those are
# the loader's mutants of whole fixture models, which every run makes again.
sha1_named() { find "$1" -maxdepth 1 -type f -size -4097c -regextype posix-extended -regex '.*/[0-9a-f]{40}'; }
find "$committed" -maxdepth 1 -type f -regextype posix-extended ! -regex '.*/[0-9a-f]{40}' -exec cp {} "$work/merged/" \;
[[ $target == load_bytes ]] && find "$root/tests/fixtures" -name '*.safetensors' -size -100k -exec cp {} "$work/merged/" \;
merge_failed=0
if "$bin" "${flags[@]}" -merge=1 -artifact_prefix="$work/findings/merge-" "$work/merged" "$work/corpus" >"$work/merge.log" 2>&1; then
  sha1_named "$committed" | xargs -r rm --
  sha1_named "$work/merged" | xargs -r cp -t "$committed"
else
  echo "the merge failed (the committed corpus is left as it was): $work/merge.log" >&2
  merge_failed=1
fi

# The numbers: libFuzzer's final stats, and its last status line for cov, ft.
final_stat() { sed -n "s/^stat::$1: *//p" "$work/log" | tail -1; }
last=$(grep -E '^#[0-9]+[[:space:]].*cov: [0-9]+ ft: [0-9]+' "$work/log" | tail -1 || true)
execs=$(final_stat number_of_executed_units)
[[ -n $execs ]] || execs=$(sed -E 's/^#([0-9]+).*/\1/' <<<"$last")
cov=$(sed -E 's/.*cov: ([0-9]+).*/\1/' <<<"$last")
ft=$(sed -E 's/.*ft: ([0-9]+).*/\1/' <<<"$last")
files=$(find "$committed" -type f | wc -l)
kb=$(find "$committed" -type f -printf '%s\n' | awk '{ s += $1 } END { print int(s / 1024) }')
findings=0
((status == 0)) || findings=$(find "$work/findings" -type f | wc -l)
((status == 0 || findings > 0)) || findings=1   # a failure that left no input (e.g. out of memory in the fuzzer)

flock "$root/docs/reliability.md" node "$here/record-run.mjs" "$root/docs/reliability.md" \
  "$(date -u +%F)" "$engine" "$kind" "$target" "$elapsed" "${execs:-0}" "${cov:-?}" "${ft:-?}" "$files" "$kb" "$findings"
echo "fuzz_$target: $execs executions in $elapsed s, cov ${cov:-?} ft ${ft:-?}; corpus $files files, $kb KB; findings $findings"
((status == 0)) || { echo "fuzz_$target failed (exit $status): input and log in $work"; exit 1; }
((merge_failed == 0)) || exit 1
