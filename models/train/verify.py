"""Check the shipped models against what is written about them.

    /usr/bin/python3 -m models.train verify [MODEL ...]     (every model of manifest.json without arguments)

For each model: the sha256 and size of models/MODEL.safetensors, and its test WER
and PER decoded now by the native CLI (build/native/seq2seq, or $SEQ2SEQ_BIN) over
the 11,994 words of the standard test split with the settings manifest.json names
(its `cli`) and the engine's default compute, are compared with models/manifest.json
and with the model's card in models/README.md (its YAML block). A stressed model's
WER and PER are with stress (against the test words' stressed CMUdict
pronunciations), and its WER and PER with stress removed are checked too
(evaluate.test_scores). Exits 1 on any mismatch. A few minutes on two cores (beam 5
over 12k words is most of it).
"""

import argparse
import json
import os
import re
import sys

import yaml

from .build import sha256_file
from .engine_cli import ROOT, decode, find_binary
from .evaluate import TEST_SPLIT, is_stressed, test_scores
from .metrics import load_references
from .prepare_data import stressed_test_references

MODELS = os.path.join(ROOT, "models")
CARD_FENCE = re.compile(r"^```yaml model-card\n(.*?)^```", re.S | re.M)


def manifest():
    with open(os.path.join(MODELS, "manifest.json"), encoding="utf-8") as f:
        return {m["name"]: m for m in json.load(f)["models"]}


def cards(path=os.path.join(MODELS, "README.md")):
    """model name -> its card's YAML metadata, from the ```yaml model-card blocks."""
    with open(path, encoding="utf-8") as f:
        blocks = [yaml.safe_load(b) for b in CARD_FENCE.findall(f.read())]
    return {b["model-index"][0]["name"]: b for b in blocks}


def card_metrics(card):
    """-> {'wer': x, 'per': y} of the card's test-split results, and a stressed model's
    'wer_stress_removed' and 'per_stress_removed' (the metrics with ``args: stress: removed``)."""
    (result,) = card["model-index"][0]["results"]
    return {m["type"] + ("_stress_removed" if (m.get("args") or {}).get("stress") == "removed" else ""): m["value"]
            for m in result["metrics"]}


# manifest.json's name of each measured number
MANIFEST_KEYS = {"wer": "testWer", "per": "testPer", "wer_stress_removed": "testWerStressRemoved",
                 "per_stress_removed": "testPerStressRemoved"}


def measure(binary, path, cli, refs, stressed_refs=None):
    """-> ({'wer', 'per'[, 'wer_stress_removed', 'per_stress_removed']}, rounded as the manifest has them; seconds)."""
    hyps, seconds = decode(binary, path, list(refs), cli.split(), compute="auto")
    return {k: round(v, 2) for k, v in test_scores(hyps, refs, stressed_refs).items()}, seconds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="*", help="model names (default: every model of manifest.json)")
    a = ap.parse_args(argv)
    binary = find_binary()
    if not binary:
        raise SystemExit("no native CLI: cmake -S . -B build/native && cmake --build build/native -j2 --target seq2seq, "
                         "or set SEQ2SEQ_BIN")
    listed, written = manifest(), cards()
    names = a.models or list(listed)
    refs = load_references(TEST_SPLIT)
    stressed_refs = None
    failures = []
    print("| model | sha256 | bytes | test WER % (manifest, card) | test PER % (manifest, card) | seconds |")
    print("| --- | --- | ---: | --- | --- | ---: |")
    for name in names:
        if name not in listed:
            failures.append(f"{name}: not in models/manifest.json")
            continue
        m, card = listed[name], written.get(name)
        path = os.path.join(MODELS, m["file"])
        sha, size = sha256_file(path), os.path.getsize(path)
        stressed = is_stressed(path)
        if stressed and stressed_refs is None:
            stressed_refs = stressed_test_references()
        scores, seconds = measure(binary, path, m["cli"], refs, stressed_refs if stressed else None)
        expect = {"sha256": [m["sha256"]], "bytes": [m["bytes"]],
                  **{k: [m.get(MANIFEST_KEYS[k])] for k in scores}}
        if card is None:
            failures.append(f"{name}: no card (a ```yaml model-card block) in models/README.md")
        else:
            metrics = card_metrics(card)
            expect["sha256"].append(card.get("sha256"))
            for k in scores:
                expect[k].append(metrics.get(k))
        got = {"sha256": sha, "bytes": size, **scores}
        wer, per = scores["wer"], scores["per"]
        for key, values in expect.items():
            for where, value in zip(("manifest.json", "card"), values):
                if value != got[key]:
                    failures.append(f"{name}: {key} is {got[key]}, {where} says {value}")
        print(f"| {name} | {sha[:12]}… | {size:,} | {wer:.2f} ({', '.join(f'{v:.2f}' if isinstance(v, float) else str(v) for v in expect['wer'])}) "
              f"| {per:.2f} ({', '.join(f'{v:.2f}' if isinstance(v, float) else str(v) for v in expect['per'])}) | {seconds:.0f} |",
              flush=True)
        if "wer_stress_removed" in scores:
            print(f"| {name}, stress removed | | | {scores['wer_stress_removed']:.2f} "
                  f"({', '.join(str(v) for v in expect['wer_stress_removed'])}) | {scores['per_stress_removed']:.2f} "
                  f"({', '.join(str(v) for v in expect['per_stress_removed'])}) | |", flush=True)
    if failures:
        print("\nMISMATCH:\n  " + "\n  ".join(failures))
        return 1
    print(f"\n{len(names)} model(s): sha256, size, test WER and PER as manifest.json and the cards say "
          f"(decoded by {os.path.relpath(binary, ROOT) if binary.startswith(ROOT) else binary})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
