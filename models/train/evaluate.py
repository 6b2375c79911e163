#!/usr/bin/env python3
"""The WER/PER table of a model, measured with our own C++ engine (not PyTorch).

    python3 -m models.train evaluate models/g2p-transformer.safetensors [--compute auto|f32] [--limit N] [--json OUT]

Decodes every word of the standard test split (models/data/cmudict-0.7b.test,
11,994 words) with the native CLI (build/native/seq2seq, or $SEQ2SEQ_BIN), one
process per configuration with all words on stdin, and prints a Markdown table:

  autoregressive models:  greedy; beam 5 with no length normalisation; beam 5
                          with average normalisation (log P / |Y|)
  cmlm models:            Mask-Predict T = 1, 4, 10 with 1 and 3 length candidates (and
                          T = 10 with 5), w = 0, fixed maximum length

WER: a word is wrong unless the output equals one of its reference
pronunciations. PER: the edit distance to the closest reference, summed over
words, over the summed length of those references. A stressed model (stress
digits in its target vocabulary) is scored twice: with stress, against the test
words' CMUdict 0.7b pronunciations with their stress digits
(prepare_data.stressed_test_references), and with the digits removed from its
outputs, against the test split as every other model is. Time per word: the process's
wall time (model load included, ~1% of it) over the word count. Standard library
only: no PyTorch needed.

--compute is passed to every decoding: auto (the engine's default) multiplies
int8-stored weights in int8 with int16 dot products; f32 widens every weight to
f32 first, as PyTorch computes.
"""

import argparse
import json
import os
import struct
import sys

from .engine_cli import CMLM_LENGTH_SCORE_WEIGHT, ROOT, decode, find_binary, is_autoregressive
from .metrics import has_stress, load_references, score, score_stress_removed
from .prepare_data import stressed_test_references

TEST_SPLIT = os.path.join(ROOT, "models", "data", "cmudict-0.7b.test")

AR_CONFIGS = [
    ("greedy", ["--greedy"]),
    ("beam 5, no normalisation", ["--beam", "5", "--length-norm", "none"]),
    ("beam 5, average (log P / |Y|)", ["--beam", "5", "--length-norm", "average"]),
]
W = CMLM_LENGTH_SCORE_WEIGHT
# (T, length candidates): T = 1, 4, 10 by 1 and 3 lengths, then T = 10 with the Mask-Predict paper's
# length beam of 5 (better on dev than the page's and CI's 3)
NAR_GRID = [(t, l) for t in (1, 4, 10) for l in (1, 3)] + [(10, 5)]
NAR_CONFIGS = [(f"Mask-Predict T={t}, {l} length candidate{'s' if l > 1 else ''}" + (f", ranked with w={W}" if l > 1 else ""),
                ["--nar", "--iterations", str(t), "--length-candidates", str(l), "--length-score-weight", str(W)])
               for t, l in NAR_GRID] + [
    ("Mask-Predict T=10, 3 length candidates, ranked by avg log P only (w=0)",
     ["--nar", "--iterations", "10", "--length-candidates", "3"]),
    ("one pass at the fixed maximum length, cut at END", ["--nar", "--iterations", "1", "--fixed-length"]),
    ("Mask-Predict T=10 at the fixed maximum length, cut at END", ["--nar", "--iterations", "10", "--fixed-length"]),
]


def model_file_config(path):
    """The config of a model file (its safetensors header's metadata), without PyTorch."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return json.loads(json.loads(f.read(n))["__metadata__"]["config"])


def is_stressed(path):
    """Whether a model file's outputs carry stress digits."""
    return has_stress(model_file_config(path)["tgt_vocab"])


def test_scores(hyps, refs, stressed_refs=None):
    """WER and PER of outputs over the test split's words (``refs``: the split's own,
    stress-free): {"wer", "per"}; a stressed model's (``stressed_refs``: the words'
    pronunciations with stress) with stress as "wer"/"per" and with stress removed
    from its outputs, against ``refs``, as "wer_stress_removed"/"per_stress_removed"."""
    if stressed_refs is None:
        wer, per = score(hyps, refs)
        return {"wer": wer, "per": per}
    wer, per = score(hyps, {w: stressed_refs[w] for w in refs})
    wer_sr, per_sr = score_stress_removed(hyps, refs)
    return {"wer": wer, "per": per, "wer_stress_removed": wer_sr, "per_stress_removed": per_sr}


def repeats(hyps):
    """How many outputs say a phoneme twice in a row: the non-autoregressive failure
    the page marks with ↻ (CMUdict's own pronunciations almost never do)."""
    return sum(any(a == b for a, b in zip(p, p[1:])) for p in hyps.values())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--limit", type=int, default=0, help="only the first N test words (0: all)")
    ap.add_argument("--json", help="also write the table as JSON here")
    ap.add_argument("--compute", choices=("auto", "f32"), default="auto",
                    help="the engine's --compute for every decoding: int8 kernels for int8-stored weights (auto) "
                         "or f32 throughout [auto]")
    args = ap.parse_args(argv)

    binary = find_binary()
    if not binary:
        sys.exit("no seq2seq binary: build it (cmake -S . -B build/native && cmake --build build/native) or set SEQ2SEQ_BIN")
    refs = load_references(TEST_SPLIT)
    if args.limit:
        refs = dict(list(refs.items())[: args.limit])
    words = list(refs)
    configs = AR_CONFIGS if is_autoregressive(binary, args.model) else NAR_CONFIGS
    rows = []
    stressed = is_stressed(args.model)
    stressed_refs = stressed_test_references() if stressed else None
    for name, options in configs:
        hyps, seconds = decode(binary, args.model, words, options, compute=args.compute)
        scores = {k: round(v, 2) for k, v in test_scores(hyps, refs, stressed_refs).items()}
        rows.append({"decoding": name, "options": " ".join(options), **scores,
                     "ms_per_word": round(1000 * seconds / len(words), 3), "repeats": repeats(hyps)})
        print(f"{name}: WER {scores['wer']:.2f}%  PER {scores['per']:.2f}%  "
              + (f"(stress removed: {scores['wer_stress_removed']:.2f}%, {scores['per_stress_removed']:.2f}%)  "
                 if stressed else "")
              + f"{1000 * seconds / len(words):.2f} ms/word  {rows[-1]['repeats']} outputs with a repeated phoneme",
              file=sys.stderr)

    removed = " | WER % stress removed | PER % stress removed" if stressed else ""
    print(f"| decoding ({os.path.basename(args.model)}, {len(words)} test words, C++ engine, --compute {args.compute}) "
          f"| WER %{' with stress' if stressed else ''} | PER %{' with stress' if stressed else ''}{removed} "
          "| ms/word | outputs with a phoneme twice in a row |")
    print("| --- | --- | --- |" + (" --- | --- |" if stressed else "") + " --- | --- |")
    for r in rows:
        extra = f" | {r['wer_stress_removed']:.2f} | {r['per_stress_removed']:.2f}" if stressed else ""
        print(f"| {r['decoding']} (`{r['options']}`) | {r['wer']:.2f} | {r['per']:.2f}{extra} | {r['ms_per_word']:.2f} "
              f"| {r['repeats']} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"model": os.path.basename(args.model), "compute": args.compute, "words": len(words),
                       "rows": rows}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
