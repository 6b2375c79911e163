"""Evaluate a model file with the C++ engine's CLI (and optionally compare with PyTorch).

    /usr/bin/python3 -m models.train eval-engine MODEL.safetensors [--split test|dev] [--bin build/seq2seq]
        [--limit N] [--compare] [--greedy] [--json] [--length-score-weight W [W ...]] [--length-candidates N [N ...]]

Runs ``seq2seq decode --model MODEL`` over the split's words (stdin, one per line),
with the decoding the training scripts use for their numbers (AR: beam 5, no length
penalty, at most max_target_len tokens; CMLM: Mask-Predict, 10 iterations, 3 length candidates), and prints WER/PER.
--greedy decodes an AR model greedily instead (how bench/train-g2p-twin.sh compares
the engine's trainer with PyTorch's); --json prints the numbers as one JSON line.
--compare also decodes with the PyTorch reference decoder and reports how many words
differ. --length-score-weight and --length-candidates (CMLM) evaluate each pair in
turn: how CMLM_LENGTH_SCORE_WEIGHT and the number of length candidates are chosen, on
dev words (`--split dev`).
"""

import argparse
import json
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch  # noqa: E402

from .g2p_common import DATA, Codec, ar_beam, cmlm_decode, load_tsv, max_output_len, refs_by_word, score
from .export import load_model, load_model_file
from .engine_cli import (CMLM_ITERATIONS, CMLM_LENGTH_CANDIDATES, CMLM_LENGTH_SCORE_WEIGHT, RECIPE_COMPUTE, decode,
                         find_binary)


def engine_options(cfg, beam=5, iterations=CMLM_ITERATIONS, length_candidates=CMLM_LENGTH_CANDIDATES,
                   length_score_weight=CMLM_LENGTH_SCORE_WEIGHT):
    if cfg["arch"] == "cmlm":
        return ["--nar", "--iterations", str(iterations), "--length-candidates", str(length_candidates),
                "--length-score-weight", str(length_score_weight)]
    # the PyTorch decoders stop after max_target_len output tokens (EOS included; rnn: max_output_len)
    if beam == 1:
        return ["--greedy", "--max-length", str(max_output_len(cfg))]
    return ["--beam", str(beam), "--length-norm", "none", "--max-length", str(max_output_len(cfg))]


def evaluate(model_path, split="test", binary=None, limit=0, compare=False, log_fn=print,
             length_score_weight=CMLM_LENGTH_SCORE_WEIGHT, length_candidates=CMLM_LENGTH_CANDIDATES, beam=5):
    binary = binary or find_binary()
    if not binary:
        log_fn("[engine eval] no seq2seq binary (build it, or set SEQ2SEQ_BIN): skipped")
        return None
    cfg, _ = load_model_file(model_path)
    refs = refs_by_word(load_tsv(os.path.join(DATA, f"{split}.tsv")))
    words = sorted(refs)[:limit] if limit else sorted(refs)
    refs = {w: refs[w] for w in words}
    hyps, _ = decode(binary, model_path, words, engine_options(cfg, beam=beam, length_candidates=length_candidates,
                                                               length_score_weight=length_score_weight),
                      compute=RECIPE_COMPUTE)
    wer, per = score(hyps, refs)
    res = {"engine_wer": wer, "engine_per": per, "words": len(words), "split": split}
    if cfg["arch"] != "cmlm":
        res["decoding"] = "greedy" if beam == 1 else f"beam {beam}"
    if cfg["arch"] == "cmlm":
        res["length_score_weight"] = length_score_weight
        res["length_candidates"] = length_candidates
    if compare:
        model = load_model(model_path)
        codec = Codec(cfg)
        if cfg["arch"] == "cmlm":
            ref_h = cmlm_decode(model, codec, words, iterations=CMLM_ITERATIONS, length_beam=length_candidates,
                                length_score_weight=length_score_weight)
        else:
            ref_h = ar_beam(model, codec, words, max_output_len(cfg), beam=beam)
        res["differ_from_pytorch"] = sum(1 for w in words if ref_h[w] != hyps[w])
        res["pytorch_wer"], res["pytorch_per"] = score(ref_h, refs)
    log_fn(f"[engine eval] {model_path} on {split}: " + ", ".join(f"{k} {v}" for k, v in res.items()))
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--split", default="test", choices=["test", "dev"])
    ap.add_argument("--bin", default=None)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--compare", action="store_true")
    ap.add_argument("--greedy", action="store_true", help="AR: greedy decoding instead of beam 5")
    ap.add_argument("--json", action="store_true", help="print the numbers as one JSON line")
    ap.add_argument("--length-score-weight", type=float, nargs="+", default=[CMLM_LENGTH_SCORE_WEIGHT],
                    help="CMLM: evaluate with each of these length-score weights")
    ap.add_argument("--length-candidates", type=int, nargs="+", default=[CMLM_LENGTH_CANDIDATES],
                    help="CMLM: ... and each of these numbers of length candidates (every pair)")
    a = ap.parse_args(argv)
    torch.set_num_threads(2)
    for c in a.length_candidates:
        for w in a.length_score_weight:
            res = evaluate(a.model, a.split, a.bin, a.limit, a.compare, length_score_weight=w, length_candidates=c,
                           beam=1 if a.greedy else 5, log_fn=(lambda _: None) if a.json else print)
            if a.json and res is not None:
                print(json.dumps({"model": a.model, **res}))


if __name__ == "__main__":
    main()
