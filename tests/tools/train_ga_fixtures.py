"""Guided attention's part of the trainer's fixtures (make_train_fixtures.py calls
write_guided_attention_fixtures(); alone: /usr/bin/python3 -m tests.tools.train_ga_fixtures):
PyTorch autograd on the project's own reference classes (models/train/seq2seq_torch.py),
in float64 from float32 starting values.

The penalty (docs/training.md, "Guided attention"): with A(n, t) the cross-attention
weight of source position n at decoder position t of an example of N source and T
decoder positions (its own; n and t from 0),

    W(n, t) = 1 - exp(-(n/N - t/T)^2 / (2 g^2))
    P = mean over examples of the mean over the guided (layer, head) pairs of
        (1/T) sum W A   (each decoder position's attention-weighted W, averaged)

and a step minimises cross-entropy + lambda P.

  train_ga_penalty.json          W and P of single attention matrices, and lambda dP/dA
  train_ga_CASE.safetensors      the initial model of a whole step (the model format);
                                 .grads.safetensors every parameter's gradient of
                                 cross-entropy + lambda P (before clipping),
                                 .updated.safetensors every parameter after AdamW
  train_ga_CASE.json             the options, the batch, the cross-entropy, P, the
                                 gradient norm; `curve`: 30 steps from the same start,
                                 each step's batch, cross-entropy and P
"""

import os

import torch
import torch.nn.functional as F

from models.train.export import export
from models.train.seq2seq_torch import Seq2SeqTransformer, build_model
from tests.tools.make_train_fixtures import (OUT_DIR, STEP_BASE, STEP_FIXTURES, f32, lr_at, optimizer_step, r,
                                             randomize_module, reverse_example, step_and_restart, tensors_of, write)
from tests.tools.train_rnn_fixtures import STEP_OPTIONS as RNN_OPTIONS
from tests.tools.train_rnn_fixtures import make_batch, padded, rnn_config, PAD

CURVE_STEPS = 30


def ga_weights(T, N, g):
    """W [T, N]: row t (decoder position), column n (source position)."""
    n = torch.arange(N, dtype=torch.float64)[None, :] / N
    t = torch.arange(T, dtype=torch.float64)[:, None] / T
    return 1.0 - torch.exp(-((n - t) ** 2) / (2.0 * g * g))


def penalty(mats, lens, g):
    """mats[e]: a list of [>= T, >= N] attention matrices of example e (the guided
    layers and heads); lens[e] = (T, N). -> P, the mean over examples of their mean."""
    total = 0.0
    for ms, (T, N) in zip(mats, lens):
        w = ga_weights(T, N, g)
        total = total + sum((w * m[:T, :N]).sum() / T for m in ms) / len(ms)
    return total / len(mats)


# ----------------------------------------------------------------------------
# The penalty alone
# ----------------------------------------------------------------------------

def penalty_fixture():
    gen = torch.Generator().manual_seed(41)
    cases = []
    for T, N, g, lam in ((4, 3, 0.2, 1.0), (2, 5, 0.3, 0.7), (7, 7, 0.1, 2.5), (1, 1, 0.2, 1.0), (9, 4, 1.0, 0.05)):
        probs = f32(torch.softmax(torch.randn(T, N, generator=gen) * 2.0, -1)).requires_grad_(True)
        p = penalty([[probs]], [(T, N)], g)
        (lam * p).backward()
        cases.append({"T": T, "N": N, "width": g, "weight": lam, "probs": r(probs.detach()), "W": r(ga_weights(T, N, g)),
                      "penalty": r(p.item()), "dprobs": r(probs.grad)})
    write("train_ga_penalty.json", {"cases": cases})


# ----------------------------------------------------------------------------
# Whole steps of a tiny Transformer
# ----------------------------------------------------------------------------

# case -> (the Transformer step fixture it takes its configuration from, lambda, g, layer, head)
TRANSFORMER_CASES = {
    "transformer_layer1_head0": ("pre_sin_tied_relu", 2.0, 0.25, 1, 0),
    "transformer_all": ("post_learned_untied_gelu_noscale", 1.0, 0.2, -1, -1),
}
TRANSFORMER_OPTIONS = {"learning_rate": 0.01, "warmup_steps": 10, "steps": 100, "lr_decay": "cosine",
                       "final_lr_ratio": 0.1, "beta1": 0.9, "beta2": 0.98, "adam_eps": 1e-8, "weight_decay": 0.01,
                       "clip_norm": 1.0}


def transformer_loss(model, cfg, batch, smoothing, lam, g, layer, head):
    """-> (cross-entropy, P, the loss minimised)."""
    sp = cfg["tgt_specials"]
    src, dec_in, tin, tout = tensors_of(cfg, batch)
    out = model(src, tin, return_attn=True)
    logits = out["logits"]
    ce = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1), ignore_index=sp["pad"],
                         label_smoothing=smoothing)
    cross = out["cross_attn"]  # per decoder layer [B, H, T, S]
    layers = range(len(cross)) if layer < 0 else [layer]
    heads = range(cross[0].shape[1]) if head < 0 else [head]
    mats = [[cross[l][e, h] for l in layers for h in heads] for e in range(len(batch))]
    p = penalty(mats, [(len(dec_in[e]), len(batch[e][0])) for e in range(len(batch))], g)
    return ce, p, ce + lam * p


def transformer_fixture(case, index):
    base_name, lam, g, layer, head = TRANSFORMER_CASES[case]
    overrides, smoothing = STEP_FIXTURES[base_name]
    cfg = dict(STEP_BASE, **overrides)
    gen = torch.Generator().manual_seed(700 + index)
    model = Seq2SeqTransformer(cfg)
    randomize_module(model, gen, 0.3)
    name = f"train_ga_{case}"
    base = os.path.join(OUT_DIR, name)
    cfg["name"] = name
    cfg["description"] = "random weights, a guided-attention parity fixture from tests/tools/train_ga_fixtures.py"
    export(model, cfg, base + ".safetensors")
    start = {n: p.detach().clone() for n, p in model.named_parameters()}
    o = dict(TRANSFORMER_OPTIONS, label_smoothing=smoothing, guided_attention_weight=lam, guided_attention_width=g,
             guided_attention_layer=layer, guided_attention_head=head)

    batch = [reverse_example(gen, cfg, 2, 7) for _ in range(4)]
    ce, p, loss = transformer_loss(model, cfg, batch, smoothing, lam, g, layer, head)
    loss.backward()
    norm, opt = step_and_restart(model, o, start, base, {}, {})
    named = list(model.named_parameters())
    batches, ces, ps = [], [], []
    for step in range(1, CURVE_STEPS + 1):
        b = [reverse_example(gen, cfg, 2, 7) for _ in range(4)]
        opt.zero_grad()
        ce_k, p_k, loss_k = transformer_loss(model, cfg, b, smoothing, lam, g, layer, head)
        loss_k.backward()
        optimizer_step(opt, [q for _, q in named], o, step)
        batches.append(b)
        ces.append(r(ce_k.item()))
        ps.append(r(p_k.item()))
    print(f"  {name}: cross-entropy {ce.item():.6f}, P {p.item():.6f}; {CURVE_STEPS} steps: P {ps[0]:.4f} -> {ps[-1]:.4f}")
    write(name + ".json", {
        "model": name + ".safetensors", "options": o, "smoothing": smoothing,
        "batch": [{"source": s, "target": t} for s, t in batch],
        "cross_entropy": r(ce.item()), "penalty": r(p.item()), "grad_norm": r(norm), "lr": r(lr_at(o, 1)),
        "curve": {"batches": [[{"source": s, "target": t} for s, t in b] for b in batches],
                  "cross_entropy": ces, "penalty": ps}})


# ----------------------------------------------------------------------------
# Whole steps of the RNN
# ----------------------------------------------------------------------------

# case -> (attention, encoder layers, lambda, g)
RNN_CASES = {
    "rnn_additive": ("additive", 1, 1.5, 0.2),
    "rnn_dot": ("dot", 2, 0.5, 0.3),
}


def rnn_loss(model, batch, smoothing, lam, g):
    src = padded([b[0] for b in batch], PAD)
    lengths = torch.tensor([len(b[0]) for b in batch])
    dec_in = padded([b[1] for b in batch], PAD)
    tgt = padded([b[2] for b in batch], PAD)
    logits, alpha = model(src, dec_in, src_lengths=lengths)  # alpha [B, T, S]
    ce = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1), ignore_index=PAD,
                         label_smoothing=smoothing)
    p = penalty([[alpha[e]] for e in range(len(batch))], [(len(b[1]), len(b[0])) for b in batch], g)
    return ce, p, ce + lam * p


def rnn_fixture(case, index):
    attention, enc_layers, lam, g = RNN_CASES[case]
    name = f"train_ga_{case}"
    cfg = rnn_config(attention, enc_layers, name=name)
    torch.manual_seed(800 + index)  # PyTorch's default initialisation of the reference
    init = build_model(cfg)
    with torch.no_grad():
        for q in init.parameters():
            q.copy_(q.to(torch.float32))
    base = os.path.join(OUT_DIR, name)
    export(init, cfg, base + ".safetensors")
    model = build_model(cfg).double()
    model.load_state_dict({k: v.double() for k, v in init.state_dict().items()})
    model.train()
    start = {n: q.detach().clone() for n, q in model.named_parameters()}
    o = dict(RNN_OPTIONS, guided_attention_weight=lam, guided_attention_width=g)
    smoothing = o["label_smoothing"]
    gen = torch.Generator().manual_seed(900 + index)

    batch = make_batch(gen, o["batch_size"])
    ce, p, loss = rnn_loss(model, batch, smoothing, lam, g)
    loss.backward()
    norm, opt = step_and_restart(model, o, start, base, {}, {})
    named = list(model.named_parameters())
    batches, ces, ps = [], [], []
    for step in range(1, CURVE_STEPS + 1):
        b = make_batch(gen, o["batch_size"])
        opt.zero_grad()
        ce_k, p_k, loss_k = rnn_loss(model, b, smoothing, lam, g)
        loss_k.backward()
        optimizer_step(opt, [q for _, q in named], o, step)
        batches.append(b)
        ces.append(r(ce_k.item()))
        ps.append(r(p_k.item()))
    print(f"  {name}: cross-entropy {ce.item():.6f}, P {p.item():.6f}; {CURVE_STEPS} steps: P {ps[0]:.4f} -> {ps[-1]:.4f}")
    # an example: [source ids, decoder inputs (BOS + target), targets (target + EOS)]
    write(name + ".json", {
        "model": name + ".safetensors", "options": o, "batch": [list(e) for e in batch],
        "cross_entropy": r(ce.item()), "penalty": r(p.item()), "grad_norm": r(norm), "lr": r(lr_at(o, 1)),
        "curve": {"batches": [[list(e) for e in b] for b in batches], "cross_entropy": ces, "penalty": ps}})


def write_guided_attention_fixtures():
    torch.set_default_dtype(torch.float64)
    penalty_fixture()
    for i, case in enumerate(TRANSFORMER_CASES):
        transformer_fixture(case, i)
    for i, case in enumerate(RNN_CASES):
        rnn_fixture(case, i)


if __name__ == "__main__":
    write_guided_attention_fixtures()
