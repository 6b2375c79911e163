#!/usr/bin/env python3
"""The WER/PER table of a model, measured with our own C++ engine (not PyTorch).

    python3 models/evaluate.py models/g2p-transformer.safetensors [--limit N] [--json OUT]

Decodes every word of the standard test split (models/data/cmudict-0.7b.test,
11,994 words) with the native CLI (build/native/seq2seq, or $SEQ2SEQ_BIN), one
process per configuration with all words on stdin, and prints a Markdown table:

  autoregressive models:  greedy; beam 5 with no length normalisation; beam 5
                          with average normalisation (log P / |Y|)
  cmlm models:            Mask-Predict T = 1, 4, 10 with 1 and 3 length candidates

WER: a word is wrong unless the output equals one of its reference
pronunciations. PER: the edit distance to the closest reference, summed over
words, over the summed length of those references. Time per word: the process's
wall time (model load included, ~1% of it) over the word count. Standard library
only: no PyTorch needed.
"""

import argparse
import json
import os
import subprocess
import sys
import time

from g2p_metrics import load_references, score

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
TEST_SPLIT = os.path.join(ROOT, "models", "data", "cmudict-0.7b.test")

AR_CONFIGS = [
    ("greedy", ["--greedy"]),
    ("beam 5, no normalisation", ["--beam", "5", "--length-penalty", "none"]),
    ("beam 5, average (log P / |Y|)", ["--beam", "5", "--length-penalty", "average"]),
]
NAR_CONFIGS = [(f"Mask-Predict T={t}, {l} length candidate{'s' if l > 1 else ''}",
                ["--nar", "--iterations", str(t), "--length-candidates", str(l)])
               for t in (1, 4, 10) for l in (1, 3)]


def find_binary():
    for p in (os.environ.get("SEQ2SEQ_BIN"), os.path.join(ROOT, "build", "native", "seq2seq"),
              os.path.join(ROOT, "build", "seq2seq")):
        if p and os.path.exists(p):
            return p
    sys.exit("no seq2seq binary: build it (cmake -S . -B build/native && cmake --build build/native) or set SEQ2SEQ_BIN")


def decode(binary, model, words, options):
    start = time.perf_counter()
    p = subprocess.run([binary, "decode", "--model", model] + options, input="\n".join(words) + "\n",
                       capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if p.returncode not in (0, 1):
        sys.exit(f"{binary} failed ({p.returncode}): {p.stderr[:2000]}")
    hyps = {}
    for line in p.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) >= 2 and parts[0] not in hyps:
            hyps[parts[0]] = parts[1].split()
    return hyps, seconds


def is_autoregressive(binary, model):
    info = subprocess.run([binary, "info", model], capture_output=True, text=True, check=True).stdout
    return "(autoregressive)" in info


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--limit", type=int, default=0, help="only the first N test words (0: all)")
    ap.add_argument("--json", help="also write the table as JSON here")
    args = ap.parse_args()

    binary = find_binary()
    refs = load_references(TEST_SPLIT)
    if args.limit:
        refs = dict(list(refs.items())[: args.limit])
    words = list(refs)
    configs = AR_CONFIGS if is_autoregressive(binary, args.model) else NAR_CONFIGS
    rows = []
    for name, options in configs:
        hyps, seconds = decode(binary, args.model, words, options)
        wer, per = score(hyps, refs)
        rows.append({"decoding": name, "options": " ".join(options), "wer": round(wer, 2), "per": round(per, 2),
                     "ms_per_word": round(1000 * seconds / len(words), 3)})
        print(f"{name}: WER {wer:.2f}%  PER {per:.2f}%  {1000 * seconds / len(words):.2f} ms/word", file=sys.stderr)

    print(f"| decoding ({os.path.basename(args.model)}, {len(words)} test words, C++ engine) | WER % | PER % | ms/word |")
    print("| --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['decoding']} (`{r['options']}`) | {r['wer']:.2f} | {r['per']:.2f} | {r['ms_per_word']:.2f} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"model": os.path.basename(args.model), "words": len(words), "rows": rows}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
