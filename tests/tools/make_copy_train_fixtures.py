"""Build the copy mechanism's training fixtures (tests/fixtures/README.md, "The copy
mechanism in training"): tests/fixtures/train_copy_layers.json and train_copy_step_*.

    /usr/bin/python3 -m tests.tools.make_copy_train_fixtures       (from the repository root)

The pieces a copy model adds to a training graph (src/train/copy_mix.h), held to
PyTorch autograd on the reference's own functions (models/train/seq2seq_torch.py:
copy_distribution, copy_nll_loss, the CopyGate's product) in float64 from float32
values: per example, the context of the copy attention, the gate, the mixed
log-probabilities and the label-smoothed loss over a batch of two examples of their
own sources and extended vocabularies, and the gradient of that loss with respect to
the logits, the copy attention, the encoder output, the decoder state and input, and
the gate's weight and bias.

And one whole training step of a tiny word-level copy Transformer and of a copy RNN
(GRU, additive attention) (the notes' chatbot: "my name is kuroro" -> "hello kuroro",
kuroro in no vocabulary), as tests/tools/make_train_fixtures.py's step fixtures: the
initial model (train_copy_step_transformer.safetensors, train_copy_step_rnn.safetensors),
the batch with each source's copy map, the
loss of the mixed distribution (copy_nll_loss, label smoothing 0.1), every parameter's
gradient (.grads.safetensors, the copy gate's included) and the parameters after one
AdamW step (.updated.safetensors). Deterministic; writes only these files.
"""

import json
import os

import torch

from models.train.export import export, write_safetensors
from models.train.seq2seq_torch import (RnnSeq2Seq, Seq2SeqTransformer, copy_distribution, copy_nll_loss,
                                        output_log_probs, source_copy_ids)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "..", "fixtures")

TGT_VOCAB = ["<pad>", "<unk>", "<s>", "</s>", "hello", "nice", "to", "meet", "you", "bob", "my"]
SPECIALS = {"pad": 0, "unk": 1, "bos": 2, "eos": 3}
# Two examples: their source words (copy maps of their own), their targets (pad = ignored).
EXAMPLES = [
    (["my", "name", "is", "kuroro"], ["hello", "kuroro", "</s>", "<pad>"]),
    (["i", "am", "bob", "bob", "zed"], ["nice", "to", "meet", "you", "zed", "</s>"]),
]
C, D, X = 6, 5, 4  # the widths of the context (the encoder output), the decoder state and input
SMOOTHING = 0.1


def r(t):
    return [float(f"{v:.12g}") for v in t.detach().flatten().tolist()]


def f32(t):
    """float32 values, held in float64: the engine starts from the same numbers."""
    return t.float().double()


STEP_SRC = ["<pad>", "<unk>", "my", "name", "is", "bob", "ann", "i", "am"]
STEP_TGT = ["<pad>", "<unk>", "<s>", "</s>", "hello", "bob", "nice"]
STEP_CONFIG = {"arch": "transformer", "d_model": 16, "n_heads": 2, "d_ff": 32, "enc_layers": 2, "dec_layers": 2,
               "ln_eps": 1e-5, "max_pos": 16, "max_target_len": 15, "norm": "pre", "pos": "sinusoidal",
               "tie_output": True, "activation": "relu", "scale_embedding": True,
               "src_vocab": STEP_SRC, "tgt_vocab": STEP_TGT, "src_specials": {"pad": 0, "unk": 1},
               "tgt_specials": {"pad": 0, "unk": 1, "bos": 2, "eos": 3}, "src_case": "lower",
               "src_tokens": "words", "copy": True}
# bob: in both vocabularies; ann: a source word the target lacks; kuroro, zed: in neither.
STEP_BATCH = [("my name is bob", "hello bob"), ("my name is kuroro", "hello kuroro"),
              ("i am ann", "nice ann ann"), ("zed is my name", "hello zed bob")]
STEP_SMOOTHING = 0.1
# The RNN's: one bidirectional GRU layer, additive attention (the copy attention), the
# gate over [a_t ; s_t ; the input's embedding].
STEP_RNN_CONFIG = {"arch": "rnn", "cell": "gru", "emb_dim": 6, "enc_hidden": 4, "enc_layers": 1, "dec_hidden": 8,
                   "attention": "additive", "attn_dim": 5, "max_pos": 16,
                   "src_vocab": STEP_SRC, "tgt_vocab": STEP_TGT, "src_specials": {"pad": 0, "unk": 1},
                   "tgt_specials": {"pad": 0, "unk": 1, "bos": 2, "eos": 3}, "src_case": "lower",
                   "src_tokens": "words", "copy": True}


def step_fixture(arch="transformer"):
    from tests.tools.make_train_fixtures import STEP_OPTIONS, make_optimizer, optimizer_step, randomize_module
    name = "train_copy_step_" + arch
    cfg = dict(STEP_CONFIG if arch == "transformer" else STEP_RNN_CONFIG, name=name,
               description="random weights, the copy trainer's parity fixture from tests/tools/make_copy_train_fixtures.py")
    gen = torch.Generator().manual_seed(77 if arch == "transformer" else 78)
    model = (Seq2SeqTransformer(cfg) if arch == "transformer" else RnnSeq2Seq(cfg)).double()
    randomize_module(model, gen, 0.3)
    base = os.path.join(OUT_DIR, name)
    export(model, cfg, base + ".safetensors")
    sp = cfg["tgt_specials"]
    V = len(STEP_TGT)
    batch = []
    for src_text, tgt_text in STEP_BATCH:
        words = src_text.split()
        ids, extra = source_copy_ids(words, STEP_TGT, sp)
        out_vocab = STEP_TGT + extra
        target = [out_vocab.index(w) for w in tgt_text.split()]
        batch.append({"source": [STEP_SRC.index(w) if w in STEP_SRC else 1 for w in words], "copy_ids": ids,
                      "copy_extra": len(extra), "target": target})
    S = max(len(e["source"]) for e in batch)
    T = max(len(e["target"]) for e in batch) + 1
    pad = lambda xs, n, v: xs + [v] * (n - len(xs))
    src = torch.tensor([pad(e["source"], S, 0) for e in batch])
    # The decoder reads <s> and the target; a copied token past the vocabulary is read as <unk> (the model does it).
    tin = torch.tensor([pad([sp["bos"]] + e["target"], T, sp["pad"]) for e in batch])
    tout = torch.tensor([pad(e["target"] + [sp["eos"]], T, sp["pad"]) for e in batch])
    copy_ids = torch.tensor([pad(e["copy_ids"], S, 0) for e in batch])
    n_extra = max(e["copy_extra"] for e in batch)
    if arch == "transformer":
        out = model(src, tin)
    else:
        out = model.forward_copy(src, tin, src_lengths=torch.tensor([len(e["source"]) for e in batch]))
    lp = output_log_probs(out, copy_ids, n_extra)
    loss = copy_nll_loss(lp, tout, V, sp["pad"], STEP_SMOOTHING)
    loss.backward()
    names = [n for n, _ in model.named_parameters()]
    write_safetensors(base + ".grads.safetensors", {n: p.grad for n, p in model.named_parameters()},
                      {"what": f"gradients of {name}.json's batch"})
    opt = make_optimizer(list(model.named_parameters()), STEP_OPTIONS)
    norm = optimizer_step(opt, [p for _, p in model.named_parameters()], STEP_OPTIONS, 1)
    write_safetensors(base + ".updated.safetensors", {n: p.detach() for n, p in model.named_parameters()},
                      {"what": "parameters after one AdamW step"})
    fx = {"model": name + ".safetensors", "smoothing": STEP_SMOOTHING, "options": STEP_OPTIONS,
          "batch": batch, "loss": float(f"{loss.item():.12g}"), "grad_norm": float(f"{norm:.12g}"), "parameters": names}
    with open(base + ".json", "w") as f:
        json.dump(fx, f, separators=(",", ":"))
        f.write("\n")
    print(f"{name}: loss {loss.item():.6f}, gradient norm {norm:.4f}, "
          f"copy gate gradient {model.copy_gate.weight.grad.abs().max().item():.3e}")


def main():
    gen = torch.Generator().manual_seed(4242)
    V = len(TGT_VOCAB)
    w = f32(0.5 * torch.randn(C + D + X, generator=gen, dtype=torch.float64)).requires_grad_()
    b = f32(torch.tensor([-0.3], dtype=torch.float64)).requires_grad_()
    examples, tensors = [], []
    total = sum(sum(1 for y in tgt if y != "<pad>") for _, tgt in EXAMPLES)
    loss = 0
    for src, tgt in EXAMPLES:
        S, T = len(src), len(tgt)
        ids, extra = source_copy_ids(src, TGT_VOCAB, SPECIALS)
        out_vocab = TGT_VOCAB + extra
        targets = [out_vocab.index(y) for y in tgt]
        leaf = {
            "logits": f32(1.5 * torch.randn(T, V, generator=gen, dtype=torch.float64)),
            "attention": f32(torch.softmax(2.0 * torch.randn(T, S, generator=gen, dtype=torch.float64), -1)),
            "memory": f32(torch.randn(S, C, generator=gen, dtype=torch.float64)),
            "state": f32(torch.randn(T, D, generator=gen, dtype=torch.float64)),
            "input": f32(torch.randn(T, X, generator=gen, dtype=torch.float64)),
        }
        for t in leaf.values():
            t.requires_grad_()
        context = leaf["attention"] @ leaf["memory"]
        gate = torch.cat([context, leaf["state"], leaf["input"]], -1) @ w + b
        lp = copy_distribution(torch.log_softmax(leaf["logits"], -1)[None], gate[None], leaf["attention"][None],
                               torch.tensor([ids]), len(extra))[0]
        # The batch's mean over its target tokens, as the trainer's loss: each example's sum over the total.
        n = sum(1 for y in tgt if y != "<pad>")
        loss = loss + copy_nll_loss(lp, torch.tensor(targets), V, SPECIALS["pad"], SMOOTHING) * n / total
        examples.append({"rows": T, "S": S, "W": len(out_vocab), "ids": ids, "targets": targets,
                         "logits": r(leaf["logits"]), "attention": r(leaf["attention"]), "memory": r(leaf["memory"]),
                         "state": r(leaf["state"]), "input": r(leaf["input"]),
                         "context": r(context), "gate": r(gate), "log_probs": r(lp)})
        tensors.append(leaf)
    loss.backward()
    for ex, leaf in zip(examples, tensors):
        ex["grads"] = {k: r(v.grad) for k, v in leaf.items()}
    fx = {"V": V, "widths": [C, D, X], "smoothing": SMOOTHING, "ignore": SPECIALS["pad"], "tokens": total,
          "gate_weight": r(w), "gate_bias": r(b), "examples": examples, "loss": float(f"{loss.item():.12g}"),
          "grads": {"gate_weight": r(w.grad), "gate_bias": r(b.grad)}}
    path = os.path.join(OUT_DIR, "train_copy_layers.json")
    with open(path, "w") as f:
        json.dump(fx, f, separators=(",", ":"))
        f.write("\n")
    print(f"train_copy_layers.json: loss {loss.item():.6f}, {total} tokens, {os.path.getsize(path)} B")
    step_fixture("transformer")
    step_fixture("rnn")


if __name__ == "__main__":
    main()
