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
words, over the summed length of those references. Time per word: the process's
wall time (model load included, ~1% of it) over the word count. Standard library
only: no PyTorch needed.

--compute is passed to every decoding: auto (the engine's default) multiplies
int8-stored weights in int8 with int16 dot products; f32 widens every weight to
f32 first, as PyTorch computes.
"""

import argparse
import json
import os
import sys

from .engine_cli import CMLM_LENGTH_SCORE_WEIGHT, ROOT, decode, find_binary, is_autoregressive
from .metrics import load_references, score

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
    for name, options in configs:
        hyps, seconds = decode(binary, args.model, words, options, compute=args.compute)
        wer, per = score(hyps, refs)
        rows.append({"decoding": name, "options": " ".join(options), "wer": round(wer, 2), "per": round(per, 2),
                     "ms_per_word": round(1000 * seconds / len(words), 3), "repeats": repeats(hyps)})
        print(f"{name}: WER {wer:.2f}%  PER {per:.2f}%  {1000 * seconds / len(words):.2f} ms/word  "
              f"{rows[-1]['repeats']} outputs with a repeated phoneme", file=sys.stderr)

    print(f"| decoding ({os.path.basename(args.model)}, {len(words)} test words, C++ engine, --compute {args.compute}) "
          "| WER % | PER % | ms/word | outputs with a phoneme twice in a row |")
    print("| --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['decoding']} (`{r['options']}`) | {r['wer']:.2f} | {r['per']:.2f} | {r['ms_per_word']:.2f} "
              f"| {r['repeats']} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"model": os.path.basename(args.model), "compute": args.compute, "words": len(words),
                       "rows": rows}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
