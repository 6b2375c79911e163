"""What kind of errors a model file makes on dev words, decoded by the C++ engine.

    /usr/bin/python3 -m models.experiments.error_analysis MODEL.safetensors [--split dev|test] [--bin BIN] [--top 10]

Decodes with the recipe's decoding (eval_engine.engine_options: AR beam 5, CMLM
Mask-Predict) and sorts the wrong words by their edit distance to the closest
reference. For the words one substitution away it counts which phoneme replaced
which, and how many of those are one vowel for another: if most errors are single
vowel confusions (AH/IH, AH/AA: reduced vowels the spelling does not fix), the model
is close to what the spelling allows, and more of the same training buys little.
The outputs are the engine's.
"""

import argparse
import collections
import os
import sys

from ..train.g2p_common import DATA, edit_distance, load_tsv, refs_by_word
from ..train.engine_cli import decode, find_binary
from ..train.eval_engine import engine_options
from ..train.export import load_model_file

VOWELS = set("AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW".split())


def analyse(hyps, refs):
    """-> dict of counts: wrong words by edit distance (1, 2, 3+), single substitutions
    (pairs reference -> output) and how many of them are vowel for vowel."""
    by_dist = collections.Counter()
    subs = collections.Counter()
    wrong = 0
    for w, rs in refs.items():
        h = tuple(hyps.get(w, ()))
        if h in rs:
            continue
        wrong += 1
        # the closest reference; ties go to the shorter, then the first in order (refs are a set)
        d, _, best = min((edit_distance(h, r), len(r), r) for r in rs)
        by_dist[min(d, 3)] += 1
        if d == 1 and len(best) == len(h):
            subs[next((a, b) for a, b in zip(best, h) if a != b)] += 1
    vv = sum(n for (a, b), n in subs.items() if a in VOWELS and b in VOWELS)
    return {"words": len(refs), "wrong": wrong, "distance": by_dist, "substitutions": subs, "vowel_for_vowel": vv}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--split", default="dev", choices=["dev", "test"])
    ap.add_argument("--bin", default=None)
    ap.add_argument("--top", type=int, default=10)
    a = ap.parse_args(argv)
    binary = a.bin or find_binary()
    if not binary:
        sys.exit("no seq2seq binary: build it (cmake --build build/native) or pass --bin")
    refs = refs_by_word(load_tsv(os.path.join(DATA, f"{a.split}.tsv")))
    cfg, _ = load_model_file(a.model)
    hyps, _ = decode(binary, a.model, sorted(refs), engine_options(cfg))
    r = analyse(hyps, refs)
    d, subs = r["distance"], r["substitutions"]
    n_sub = sum(subs.values())
    print(f"{a.model} on {a.split}: {r['wrong']} of {r['words']} words wrong "
          f"(WER {100 * r['wrong'] / r['words']:.2f} %)")
    print(f"  edit distance to the closest reference: 1: {d[1]}, 2: {d[2]}, 3 or more: {d[3]}")
    print(f"  one substitution: {n_sub}, of which vowel for vowel: {r['vowel_for_vowel']}")
    print("  most frequent (reference -> output): "
          + ", ".join(f"{x}->{y} {n}" for (x, y), n in subs.most_common(a.top)))


if __name__ == "__main__":
    main()
