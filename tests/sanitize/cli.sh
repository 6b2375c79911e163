#!/usr/bin/env bash
# The CLI of a sanitized build (SEQ2SEQ_SANITIZE or SEQ2SEQ_FUZZ) over every
# architecture and strategy, the shipped models and the fixtures, and a few bad
# inputs: each run must end with its usual exit code (0; 1 or 2 for a refused
# input) and no sanitizer report.
#   tests/sanitize/cli.sh build/fuzz/seq2seq
set -euo pipefail
cli=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
m=$root/models
f=$root/tests/fixtures
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Sanitizer reports end the process with this code, apart from any exit code of ours.
export ASAN_OPTIONS=exitcode=86:detect_leaks=1 UBSAN_OPTIONS=exitcode=86:print_stacktrace=1

runs=0
expect() {  # expect CODE ARGS...: run the CLI, check its exit code
  local want=$1 got=0
  shift
  "$cli" "$@" >"$log" 2>&1 || got=$?
  runs=$((runs + 1))
  if [[ $got != "$want" ]]; then
    echo "FAIL (exit $got, expected $want): seq2seq $*"
    cat "$log"
    exit 1
  fi
}

expect_io() {  # expect_io CODE STDIN STDOUT ARGS...: the same, reading STDIN and writing STDOUT (a path)
  local want=$1 in=$2 out=$3 got=0
  shift 3
  "$cli" "$@" <"$in" >"$out" 2>"$log" || got=$?
  runs=$((runs + 1))
  if [[ $got != "$want" ]]; then
    echo "FAIL (exit $got, expected $want): seq2seq $* <$in >$out"
    cat "$log"
    exit 1
  fi
}

words=(PHONEME ABATING XYLOPHONE "O'NEIL" A)
expect 0 info "$m/g2p-transformer.safetensors"
expect 0 info "$f/ar_pre_sin_tied_relu_i8.safetensors"
expect 0 decode --model "$m/g2p-transformer.safetensors" "${words[@]}"
expect 0 decode --model "$m/g2p-transformer.safetensors" --beam 5 --n-best 3 --length-norm gnmt --gnmt-alpha 0.6 "${words[@]}"
expect 0 decode --model "$m/g2p-transformer.safetensors" --sample --temperature 0.8 --top-k 5 --top-p 0.9 --seed 3 --n-best 2 "${words[@]}"
expect 0 decode --model "$m/g2p-transformer.safetensors" --compute f32 --beam 3 --prefix "F" --trace PHONEME
expect 0 decode --model "$m/g2p-cmlm.safetensors" "${words[@]}"
expect 0 decode --model "$m/g2p-cmlm.safetensors" --iterations 4 --length-candidates 3 --length-score-weight 0.5 --trace "${words[@]}"
expect 0 decode --model "$m/g2p-cmlm.safetensors" --fixed-length --no-early-stop "${words[@]}"
expect 0 decode --model "$m/g2p-cmlm.safetensors" --nar-length given --nar-given-length 5 PHONEME
for a in additive dot multiplicative reduced-rank; do
  expect 0 decode --model "$m/g2p-rnn-$a.safetensors" --beam 4 --n-best 2 "${words[@]}"
done
expect 0 decode --model "$m/g2p-rnn-dot.safetensors" --sample --seed 1 --trace PHONEME
expect 0 decode --model "$m/g2p-transformer.safetensors" --model "$m/g2p-rnn-additive.safetensors" --beam 3 "${words[@]}"
for fx in "$f"/ar_*.safetensors "$f"/rnn_*.safetensors; do
  expect 0 decode --model "$fx" --beam 3 --max-length 12 ABC GADE
done
for fx in "$f"/cmlm_*.safetensors; do
  expect 0 decode --model "$fx" --length-candidates 2 ABC GADE
done
# Words on several threads (a Session each over the shared weights), refused lines among them.
expect 0 decode --model "$m/g2p-transformer.safetensors" --threads 2 --beam 3 --n-best 2 "${words[@]}"
expect 0 decode --model "$m/g2p-cmlm.safetensors" --threads 3 "${words[@]}"
expect 0 decode --model "$m/g2p-rnn-dot.safetensors" --threads 0 --sample --seed 2 "${words[@]}"
expect 1 decode --model "$m/g2p-transformer.safetensors" --threads 2 PHONEME "PHO@NEME" ABATING
expect 2 decode --model "$m/g2p-transformer.safetensors" --threads -1 PHONEME
# The inside of a pass, written as it is computed (snapshot_json.h, write_json).
expect 0 inspect --model "$m/g2p-transformer.safetensors" PHONEME "F OW"
expect 0 inspect --model "$m/g2p-cmlm.safetensors" PHONEME "<mask> <mask> OW"
expect 0 inspect --model "$m/g2p-rnn-additive.safetensors" PHONEME "F OW"
expect 0 decode --model "$m/g2p-transformer.safetensors" --beam 3 --trace --trace-inside 2 PHONEME
expect 1 inspect --model "$m/g2p-transformer.safetensors" PHONEME "F OW NOPE"
# Refused inputs: a message and exit 1 (input, model file) or 2 (usage).
expect 1 decode --model "$m/g2p-transformer.safetensors" "PHO@NEME"
expect 1 info "$root/tests/fixtures/README.md"
expect 1 info "$root/does-not-exist.safetensors"
expect 2 decode --model "$m/g2p-transformer.safetensors" --beam 0 PHONEME
expect 2 decode --model "$m/g2p-cmlm.safetensors" --beam 3 PHONEME
expect 2 decode --model "$m/g2p-transformer.safetensors" --top-p 1.5 --sample PHONEME
# The CLI's input and output: a line longer than a text may be (not held; the
# next line is read), a read that fails (stdin a directory), a write that fails.
lines=$(mktemp)
trap 'rm -f "$log" "$lines"' EXIT
{ echo PHONEME; head -c 200000 /dev/zero | tr '\0' A; echo; printf 'ABATING\r\n\nXYLOPHONE'; } >"$lines"
expect_io 1 "$lines" /dev/null decode --model "$m/g2p-transformer.safetensors"
expect_io 1 "$lines" /dev/null decode --model "$m/g2p-transformer.safetensors" --threads 2
{ printf 'PHONEME\tF OW N IY M\n'; head -c 140000 /dev/zero | tr '\0' A; printf '\tF\nABATING\tAH B EY T IH NG\n'; } >"$lines"
expect_io 1 "$lines" /dev/null score --model "$m/g2p-transformer.safetensors"
expect_io 1 "$root/tests" /dev/null decode --model "$m/g2p-transformer.safetensors"
expect_io 1 /dev/null /dev/full decode --model "$m/g2p-transformer.safetensors" "${words[@]}"
expect_io 1 /dev/null /dev/full decode --model "$m/g2p-transformer.safetensors" --threads 2 "${words[@]}"
expect_io 1 /dev/null /dev/full inspect --model "$m/g2p-transformer.safetensors" PHONEME "F OW"
echo "sanitized CLI: $runs runs, no report"
