"""An ensemble of autoregressive G2P models as one model: the teachers of
distillation (the page runs single models).

    /usr/bin/python3 -m models.train ensemble A.safetensors B.safetensors ... [--split dev] [--beam 5]
        [--members] [--compare]

prints the dev WER/PER of the ensemble (and with --members of each member alone),
greedy or beam N, decoded by the C++ engine (``seq2seq decode --model A --model B``,
src/ensemble.h) when it is built, else by PyTorch; --compare decodes with both and
fails if any output differs. In PyTorch the ensemble's next-token distribution is
the mean of its members' probabilities, so it plugs into ar_greedy / ar_beam as any
model does: ``encode`` returns the members' encoder outputs side by side on the
feature axis (so that beam search can repeat them per hypothesis like one tensor),
and ``decode`` returns log(mean of probabilities), which log_softmax leaves as it is.
"""

import argparse
import math
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch  # noqa: E402

from .g2p_common import DATA, Codec, ar_beam, ar_greedy, load_tsv, log, max_output_len, refs_by_word, score
from .export import load_model, load_model_file
from .engine_cli import RECIPE_COMPUTE, decode, find_binary


class Ensemble(torch.nn.Module):
    def __init__(self, models):
        super().__init__()
        if not models:
            raise ValueError("an ensemble needs at least one model")
        cfgs = [m.config for m in models]
        for c in cfgs:
            if c["arch"] != "transformer" or c["tgt_vocab"] != cfgs[0]["tgt_vocab"] or \
                    c["src_vocab"] != cfgs[0]["src_vocab"]:
                raise ValueError("ensemble members must be autoregressive Transformers with the same vocabularies")
        self.members = torch.nn.ModuleList(models)
        self.config = cfgs[0]
        self.widths = [c["d_model"] for c in cfgs]

    def encode(self, src, src_pad_mask=None):
        outs = [m.encode(src, src_pad_mask) for m in self.members]
        return torch.cat([o[0] for o in outs], -1), outs[0][1], []

    def member_log_probs(self, tgt, memory, src_pad_mask, tgt_pad_mask=None):
        """[M, B, T, V] log-probabilities of each member."""
        mems = torch.split(memory, self.widths, -1)
        return torch.stack([torch.log_softmax(m.decode(tgt, mem, src_pad_mask, tgt_pad_mask)[0].float(), -1)
                            for m, mem in zip(self.members, mems)])

    def decode(self, tgt, memory, src_pad_mask, tgt_pad_mask=None):
        lp = self.member_log_probs(tgt, memory, src_pad_mask, tgt_pad_mask)
        return torch.logsumexp(lp, 0) - math.log(len(self.members)), [], []


def load_ensemble(paths):
    return Ensemble([load_model(p) for p in paths]).eval()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="+")
    ap.add_argument("--split", default="dev", choices=["dev", "test"])
    ap.add_argument("--beam", type=int, default=1, help="1 = greedy")
    ap.add_argument("--limit", type=int, default=0, help="first N words of the split")
    ap.add_argument("--members", action="store_true", help="score each member alone too")
    ap.add_argument("--compare", action="store_true",
                    help="decode the ensemble with PyTorch too and count the words whose outputs differ")
    ap.add_argument("--bin", default=None, help="the seq2seq binary (default: build/native/seq2seq)")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    refs = refs_by_word(load_tsv(os.path.join(DATA, f"{a.split}.tsv")))
    words = sorted(refs)[: a.limit] if a.limit else sorted(refs)
    refs = {w: refs[w] for w in words}
    cfg, _ = load_model_file(a.models[0])
    codec = Codec(cfg)
    max_len = max_output_len(cfg)
    binary = a.bin or find_binary()
    opts = (["--greedy"] if a.beam <= 1 else ["--beam", str(a.beam), "--length-norm", "none"]) + \
        ["--max-length", str(max_len)]

    def torch_decode(paths):
        model = load_ensemble(paths)
        return ar_greedy(model, codec, words, max_len) if a.beam <= 1 else ar_beam(model, codec, words, max_len, a.beam)

    def run(paths):
        return decode(binary, paths, words, opts, compute=RECIPE_COMPUTE)[0] if binary else torch_decode(paths)

    how = ("greedy" if a.beam <= 1 else f"beam {a.beam}") + (" (C++ engine)" if binary else " (PyTorch)")
    if a.members:
        for p in a.models:
            wer, per = score(run([p]), refs)
            log(f"{p}: {a.split} {how} WER {wer:.2f} PER {per:.2f}")
    hyps = run(a.models)
    wer, per = score(hyps, refs)
    log(f"ensemble of {len(a.models)}: {a.split} {how} WER {wer:.2f} PER {per:.2f} ({len(words)} words)")
    if a.compare and binary:
        ref = torch_decode(a.models)
        differ = [w for w in words if ref[w] != hyps[w]]
        log(f"PyTorch ensemble: WER {score(ref, refs)[0]:.2f}; outputs differ for {len(differ)} of {len(words)} words"
            + (f" (first: {differ[:5]})" if differ else ""))
        if differ:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
