"""How much of a CMLM's error is its length? Decodes a split with the C++ engine at
lengths it is told, and compares:

    /usr/bin/python3 -m models.experiments.length_oracle models/g2p-cmlm.safetensors \
        [--teacher models/g2p-transformer.safetensors] [--split dev] [--iterations 10]

* its own choice: the length beam of the shipped decoding (3 candidates, w);
* at the teacher's length: the AR teacher's output length (beam 5), the length the
  CMLM was trained to reproduce (distillation);
* at the reference length: for each CMUdict pronunciation of the word, a decode at
  that pronunciation's length; right if any of them equals its reference.

The gap between its own choice and the teacher's length is what a perfect length
head would win; what remains at the teacher's length is the token model. Also
prints how often the CMLM at the teacher's length reproduces the teacher exactly.
Dev words only for decisions; never tune on test words.

--split train (with --limit N: a fixed random sample of N training words) asks
whether the token model fits its own training labels: for training words the
teacher's beam-5 output is exactly the row the CMLM was trained on (distill.py
decodes the same way), so "reproduces the teacher" there is its training accuracy.
"""

import argparse
import collections
import os
import random

from ..train.g2p_common import DATA, MODELS_DIR, load_tsv, refs_by_word, score
from ..train.engine_cli import CMLM_LENGTH_SCORE_WEIGHT, decode, find_binary


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--teacher", default=os.path.join(MODELS_DIR, "g2p-transformer.safetensors"))
    ap.add_argument("--split", default="dev", choices=["dev", "test", "train"])
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--length-candidates", type=int, default=3)
    ap.add_argument("--length-score-weight", type=float, default=CMLM_LENGTH_SCORE_WEIGHT)
    ap.add_argument("--limit", type=int, default=0, help="a fixed random sample of this many words (0: all)")
    args = ap.parse_args(argv)
    binary = find_binary()
    if not binary:
        raise SystemExit("no seq2seq binary: build it (cmake --build build/native) or set SEQ2SEQ_BIN")

    refs = refs_by_word(load_tsv(os.path.join(DATA, f"{args.split}.tsv")))
    words = sorted(refs)
    if args.limit and args.limit < len(words):
        words = sorted(random.Random(0).sample(words, args.limit))
        refs = {w: refs[w] for w in words}
    nar = ["--nar", "--iterations", str(args.iterations)]
    teacher, _ = decode(binary, args.teacher, words, ["--beam", "5", "--length-norm", "none"])
    own, _ = decode(binary, args.model, words, nar + ["--length-candidates", str(args.length_candidates),
                                                      "--length-score-weight", str(args.length_score_weight)])
    # one engine run per length: every word that some reference or the teacher gives that length
    wanted = collections.defaultdict(set)
    for w in words:
        for r in refs[w]:
            wanted[len(r)].add(w)
        wanted[len(teacher[w])].add(w)
    at = {}
    for length, ws in sorted(wanted.items()):
        if length > 0:
            hyps, _ = decode(binary, args.model, sorted(ws), nar + ["--nar-length", "given", "--nar-given-length", str(length)])
            at.update({(w, length): tuple(h) for w, h in hyps.items()})

    at_reference = {}
    for w in words:
        right = [r for r in sorted(refs[w]) if at.get((w, len(r))) == tuple(r)]
        first = sorted(refs[w])[0]
        at_reference[w] = list(right[0] if right else at.get((w, len(first)), ()))
    at_teacher = {w: list(at.get((w, len(teacher[w])), ())) for w in words}

    print(f"{args.model} on {len(words)} {args.split} words (T = {args.iterations}):")
    rows = [("the AR teacher, beam 5", teacher),
            (f"CMLM, its own length ({args.length_candidates} candidates, w = {args.length_score_weight})", own),
            ("CMLM at the teacher's length", at_teacher),
            ("CMLM at the reference length (oracle)", at_reference)]
    for name, hyps in rows:
        wer, per = score(hyps, refs)
        print(f"  {name:<58} WER {wer:6.2f}  PER {per:5.2f}")
    same_len = sum(len(own[w]) == len(teacher[w]) for w in words)
    same_out = sum(at_teacher[w] == teacher[w] for w in words)
    print(f"  its own length = the teacher's: {same_len} / {len(words)}; "
          f"at the teacher's length it outputs the teacher's pronunciation: {same_out} / {len(words)}")


if __name__ == "__main__":
    main()
