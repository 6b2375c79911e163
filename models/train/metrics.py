"""G2P metrics, shared by training and evaluation (models/train/evaluate.py, verify.py).
Standard library only.

WER: a word is wrong unless the output equals one of its reference pronunciations.
PER: the edit distance to the closest reference, summed over words, over the summed
length of those references.
"""


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
