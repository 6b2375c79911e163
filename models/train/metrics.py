"""G2P metrics, shared by training and evaluation (models/train/evaluate.py, verify.py).
Standard library only.

WER: a word is wrong unless the output equals one of its reference pronunciations.
PER: the edit distance to the closest reference, summed over words, over the summed
length of those references.
Stress removed (score_stress_removed): both sides' stress digits (data_rules.json) are
dropped first, so that a stressed model is measured as the stress-free ones are.
"""

import json
import os
import re

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data_rules.json"), encoding="utf-8") as _f:
    STRESS_RE = re.compile(json.load(_f)["stress"], re.ASCII)


def has_stress(tokens):
    """Whether a target vocabulary (or a pronunciation) carries stress digits."""
    return any(STRESS_RE.search(t) for t in tokens)


def without_stress(phones):
    """A pronunciation (a sequence of phonemes) without its stress digits, as a tuple."""
    return tuple(STRESS_RE.sub("", p) for p in phones)


def load_references(path):
    """word -> list of pronunciations (tuples of phonemes), from a `WORD  PH ON ES` file."""
    refs = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2:
                refs.setdefault(parts[0], []).append(tuple(parts[1:]))
    return refs


def edit_distance(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def score(hyps, refs):
    """-> (WER %, PER %) of hyps (word -> phonemes; a missing word counts as empty)
    against refs (word -> list of reference pronunciations)."""
    wrong, edits, total = 0, 0, 0
    for w, rs in refs.items():
        rs = [tuple(r) for r in rs]
        h = tuple(hyps.get(w, ()))
        if h not in rs:
            wrong += 1
        best = min(rs, key=lambda r: (edit_distance(h, r), len(r)))
        edits += edit_distance(h, best)
        total += len(best)
    return 100.0 * wrong / len(refs), 100.0 * edits / max(1, total)


def score_stress_removed(hyps, refs):
    """score() with the stress digits removed from the outputs and from the references
    (those a word then has twice count once): a stressed model's stress-free WER/PER."""
    return score({w: without_stress(h) for w, h in hyps.items()},
                 {w: list(dict.fromkeys(without_stress(r) for r in rs)) for w, rs in refs.items()})
