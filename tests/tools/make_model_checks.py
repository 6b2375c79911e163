#!/usr/bin/env python3
"""Writes tests/fixtures/shipped_models.json: what CI checks about the shipped models.

    /usr/bin/python3 -m tests.tools.make_model_checks      (from the repository root; needs build/native/seq2seq)

For every shipped model (models/g2p-*.safetensors) it records, decoded by our
C++ engine: the exact outputs for a fixed list of words (words with several
pronunciations, unusual spellings, unseen words) under each decoding the page
offers, and the WER on a fixed 1,000-word slice of the test split (every 12th
word) with a threshold just above it (a stressed model's with the stress digits
removed from its outputs: the split has none). tests/native/test_shipped_models.cpp
holds the engine to these, natively and in wasm. Review the outputs before
committing: they should mostly be right.
"""

import json
import os
import sys

from models.train.engine_cli import CMLM_LENGTH_SCORE_WEIGHT, ROOT, decode, find_binary, is_autoregressive
from models.train.evaluate import TEST_SPLIT
from models.train.evaluate import is_stressed
from models.train.metrics import load_references, score, score_stress_removed

OUT = os.path.join(ROOT, "tests", "fixtures", "shipped_models.json")
WORDS = [
    # several pronunciations in CMUdict
    "READ", "LIVE", "RECORD", "PRESENT", "TOMATO", "EITHER", "ROUTE", "DATA",
    # unusual spellings
    "COLONEL", "YACHT", "QUEUE", "KNIGHT", "PSYCHOLOGY", "WEDNESDAY", "ISLAND", "PHLEGM", "XYLOPHONE",
    "O'BRIEN", "THROUGH", "RHYTHM", "CHOIR", "SCHEDULE",
    # ordinary words and words no dictionary has
    "PHONEME", "SPEECH", "TRANSFORMER", "ATTENTION", "BEAM", "GREEDY", "WASM", "GLORPTASTIC",
]
SLICE_EVERY = 12
# decodings checked word by word: (name, CLI options, the same as C++ DecodingOptions fields)
AR_DECODINGS = [
    ("greedy", ["--greedy"], {"strategy": "greedy"}),
    ("beam5", ["--beam", "5", "--length-norm", "average"], {"strategy": "beam", "beam_size": 5, "length_norm": "average"}),
]
NAR_DECODINGS = [
    ("T1", ["--nar", "--iterations", "1"], {"strategy": "nar", "iterations": 1}),
    ("T10_L3", ["--nar", "--iterations", "10", "--length-candidates", "3",
                "--length-score-weight", str(CMLM_LENGTH_SCORE_WEIGHT)],
     {"strategy": "nar", "iterations": 10, "length_candidates": 3, "length_score_weight": CMLM_LENGTH_SCORE_WEIGHT}),
]
SHIPPED = ["g2p-transformer", "g2p-transformer-stress", "g2p-cmlm"] + [f"g2p-rnn-{s}" for s in ("dot", "multiplicative", "reduced-rank", "additive", "none")]
MARGIN = 0.6  # WER points above the measured value


def main():
    binary = find_binary()
    if not binary:
        sys.exit("no seq2seq binary: build it (cmake -S . -B build/native && cmake --build build/native) or set SEQ2SEQ_BIN")
    refs = load_references(TEST_SPLIT)
    slice_refs = dict(list(refs.items())[::SLICE_EVERY])
    models = []
    for name in SHIPPED:
        path = os.path.join(ROOT, "models", name + ".safetensors")
        if not os.path.exists(path):
            print(f"skipping {name}: {path} does not exist", file=sys.stderr)
            continue
        decodings = AR_DECODINGS if is_autoregressive(binary, path) else NAR_DECODINGS
        entry = {"file": name + ".safetensors", "decodings": []}
        for label, cli, options in decodings:
            hyps, _ = decode(binary, path, WORDS, cli)
            entry["decodings"].append({"name": label, "options": options,
                                       "outputs": {w: " ".join(hyps.get(w, [])) for w in WORDS}})
        label, cli, options = decodings[-1]
        hyps, _ = decode(binary, path, list(slice_refs), cli)
        stressed = is_stressed(path)
        wer, per = (score_stress_removed if stressed else score)(hyps, slice_refs)
        entry["slice"] = {"every": SLICE_EVERY, "words": len(slice_refs), "options": options,
                          **({"stress_removed": True} if stressed else {}),
                          "measured_wer": round(wer, 2), "measured_per": round(per, 2),
                          "max_wer": round(wer + MARGIN, 2)}
        print(f"{name}: slice WER {wer:.2f} (PER {per:.2f}) with {label}", file=sys.stderr)
        models.append(entry)
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump({"test_split": "models/data/cmudict-0.7b.test", "models": models}, f, indent=1)
        f.write("\n")
    print(f"wrote {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
