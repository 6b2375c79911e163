"""Could a better length head help g2p-cmlm? Retrains candidate heads on the model's
frozen encoder features and compares how often each predicts the AR teacher's output
length (the length the CMLM learned by distillation) on dev words:

    /usr/bin/python3 -m models.experiments.length_head_probe MODEL.safetensors [--teacher AR.safetensors]

Heads, all over the encoder output of the non-pad source positions, predicting the
offset from the word's length as the shipped head does: the shipped head itself; a
linear layer over the mean (the shipped shape, retrained); over the sum (an offset is a
count of what each letter adds, which a mean divides by the word's length); over both;
a one-hidden-layer MLP over both. length_oracle.py says what a perfect head would win.
Training rows: work/data/cmlm_kd1.tsv (the CMLM's own labels); dev words only.
"""

import argparse
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from ..train.g2p_common import DATA, MODELS_DIR, Codec, load_tsv, load_vocab, pad_seqs, refs_by_word
from ..train.engine_cli import decode, find_binary
from ..train.export import load_model


@torch.no_grad()
def pooled(model, codec, words, batch=1024):
    """-> mean and sum of the encoder output over each word's positions, and the shipped
    head's logits over absolute lengths."""
    means, sums, old = [], [], []
    for i in range(0, len(words), batch):
        src = pad_seqs([codec.src(w) for w in words[i:i + batch]], codec.src_pad)
        pad = src.eq(codec.src_pad)
        memory, _, _ = model.encode(src, pad)
        keep = (~pad).unsqueeze(-1).float()
        s = (memory * keep).sum(1)
        means.append(s / keep.sum(1))
        sums.append(s)
        old.append(model.length_logits(memory, pad))
    return torch.cat(means), torch.cat(sums), torch.cat(old)


def accuracy(logits, target):
    top = logits.topk(3, -1).indices
    return 100 * (top[:, 0] == target).float().mean().item(), 100 * (top == target[:, None]).any(-1).float().mean().item()


def fit(x, y, classes, hidden, epochs=12, seed=0):
    torch.manual_seed(seed)
    d = x.shape[1]
    head = nn.Linear(d, classes) if not hidden else nn.Sequential(
        nn.Linear(d, hidden), nn.ReLU(), nn.Dropout(0.1), nn.Linear(hidden, classes))
    opt = torch.optim.AdamW(head.parameters(), lr=2e-3, weight_decay=0.01)
    for _ in range(epochs):
        head.train()
        perm = torch.randperm(len(x))
        for i in range(0, len(x), 512):
            idx = perm[i:i + 512]
            loss = F.cross_entropy(head(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        for g in opt.param_groups:
            g["lr"] *= 0.75
    return head.eval()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--teacher", default=os.path.join(MODELS_DIR, "g2p-transformer.safetensors"))
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    binary = find_binary()
    if not binary:
        raise SystemExit("no seq2seq binary: build it (cmake --build build/native) or set SEQ2SEQ_BIN")
    model, codec = load_model(args.model), Codec(load_vocab())
    C = model.config["length_offset"]
    if not C:
        raise SystemExit("the model's length head predicts absolute lengths; this probe is for offset heads")

    train = load_tsv(os.path.join(DATA, "cmlm_kd1.tsv"))
    dev_words = sorted(refs_by_word(load_tsv(os.path.join(DATA, "dev.tsv"))))
    teacher, _ = decode(binary, args.teacher, dev_words, ["--beam", "5", "--length-norm", "none"])
    t0 = time.time()
    tr_mean, tr_sum, _ = pooled(model, codec, [w for w, _ in train])
    dv_mean, dv_sum, dv_old = pooled(model, codec, dev_words)
    print(f"encoder features of {len(train)} training rows and {len(dev_words)} dev words: {time.time() - t0:.0f} s")

    def offsets(words, lengths):
        return (torch.tensor(lengths) - torch.tensor([len(w) for w in words]) + C).clamp(0, 2 * C)

    y_tr = offsets([w for w, _ in train], [len(p) for _, p in train])
    y_dv = offsets(dev_words, [len(teacher[w]) for w in dev_words])
    dv_len = torch.tensor([len(teacher[w]) for w in dev_words])
    top1, top3 = accuracy(dv_old, dv_len)
    print(f"dev words whose teacher length the head predicts (top 1 / within top 3), {args.model}:")
    print(f"  {'the shipped head':<40} {top1:6.2f} % {top3:6.2f} %")
    inputs = {"mean": (tr_mean, dv_mean), "sum": (tr_sum / 10, dv_sum / 10),
              "mean and sum": (torch.cat([tr_mean, tr_sum / 10], -1), torch.cat([dv_mean, dv_sum / 10], -1))}
    for name, hidden in [("mean", 0), ("sum", 0), ("mean and sum", 0), ("mean and sum", 512)]:
        x_tr, x_dv = inputs[name]
        head = fit(x_tr, y_tr, 2 * C + 1, hidden)
        with torch.no_grad():
            top1, top3 = accuracy(head(x_dv), y_dv)
        label = f"retrained: linear over the {name}" if not hidden else f"retrained: MLP ({hidden}) over the {name}"
        print(f"  {label:<40} {top1:6.2f} % {top3:6.2f} %")


if __name__ == "__main__":
    main()
