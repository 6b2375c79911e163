"""Unlabeled words for distillation: English words that CMUdict does not have, for a
teacher to label (Sun et al. 2019 distil an ensemble's knowledge through such words).

    /usr/bin/python3 -m models.train unlabeled-words

Reads the word list of Debian's package wamerican-large (SCOWL size 70,
/usr/share/dict/american-english-large, checked by sha256; scripts/install-deps.sh
--train installs it) and writes work/data/unlabeled.txt, one upper-cased word per
line, sorted: every word of the list that

* is not a word of CMUdict 0.7b at all (every entry of the pinned dict.txt, so no
  test, dev or training word, whatever its split),
* uses only the characters of the models' source alphabet (vocab.json) and has at
  most prepare_data.MAX_LEN of them,
* is not a possessive (WORD'S: the list has one for most names, and they teach
  nothing the dictionary's own possessives do not).

Deterministic; labels come from distill.py --words work/data/unlabeled.txt.
"""

import json
import os
import sys

from . import prepare_data

WORDLIST = "/usr/share/dict/american-english-large"
WORDLIST_SHA256 = "7722e490a1575058326569c778fcb8e93b3cf866452c0f54bfd1c22817ad5a90"
OUT = os.path.join(prepare_data.OUT, "unlabeled.txt")


def main(argv=None):
    if argv:
        raise SystemExit(f"{__name__} takes no arguments, not {argv}")
    if not os.path.exists(WORDLIST):
        sys.exit(f"missing {WORDLIST}: apt-get install wamerican-large (scripts/install-deps.sh --train)")
    if prepare_data.sha256(WORDLIST) != WORDLIST_SHA256:
        sys.exit(f"{WORDLIST}: unexpected sha256 (not wamerican-large 2020.12.07-2?)")
    with open(os.path.join(prepare_data.OUT, "vocab.json")) as f:
        alphabet = set(json.load(f)["src_vocab"])
    prons, dropped = prepare_data.read_dict()
    # every spelling, the dropped lines' too
    cmudict = set(prons) | {prepare_data.re.sub(r"\(\d+\)$", "", ln.partition("  ")[0]) for ln in dropped}
    with open(WORDLIST, encoding="utf-8") as f:
        listed = sorted({ln.strip().upper() for ln in f if ln.strip()})
    why = {"in CMUdict": lambda w: w in cmudict,
           "other characters or too long": lambda w: not set(w) <= alphabet or len(w) > prepare_data.MAX_LEN,
           "possessive": lambda w: w.endswith("'S")}
    counts = dict.fromkeys(why, 0)
    kept = []
    for w in listed:
        reason = next((r for r, test in why.items() if test(w)), None)
        if reason:
            counts[reason] += 1
        else:
            kept.append(w)
    with open(OUT + ".tmp", "w", encoding="utf-8") as f:
        f.writelines(w + "\n" for w in kept)
    os.replace(OUT + ".tmp", OUT)
    print(f"wrote {OUT}: {len(kept)} of the list's {len(listed)} words; left out: {counts}")


if __name__ == "__main__":
    main()
