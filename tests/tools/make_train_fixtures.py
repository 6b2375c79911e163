"""Build the trainer's PyTorch parity fixtures in tests/fixtures/ (tests/fixtures/README.md,
"The trainer's fixtures").

    /usr/bin/python3 -m tests.tools.make_train_fixtures       (from the repository root)

Everything is computed by PyTorch autograd on the project's own reference classes
(models/train/seq2seq_torch.py) and torch.optim.AdamW, in float64 from float32
starting values, so that the engine's float32 numbers are held to the exact ones:

  train_layers.json      each layer alone: its inputs, an upstream gradient, its output
                         and every input and parameter gradient (linear, LayerNorm,
                         attention self/causal/cross with padding, FFN relu/gelu, the
                         embedding with positions, label-smoothed cross-entropy)
  train_adamw.json       AdamW with warm-up, cosine decay, weight decay on matrices only
                         and gradient clipping, five steps from given gradients
  train_step_<name>.*    one whole training step of a tiny Transformer: the initial model
                         (.safetensors, the model format), the batch, the loss, every
                         parameter's gradient (.grads.safetensors) and the parameters after
                         AdamW (.updated.safetensors); and the loss of 100 steps from the
                         same start and batches (.json)
Deterministic: fixed seeds.
"""

import json
import math
import os
import struct

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "..", "fixtures")

torch.set_default_dtype(torch.float64)


def r(x):
    """Floats for JSON: 12 significant digits, far below any tolerance here."""
    if isinstance(x, torch.Tensor):
        x = x.tolist()
    if isinstance(x, list):
        return [r(v) for v in x]
    return float(f"{x:.12g}")


def f32(t):
    """Values a float32 engine can hold exactly: the fixture's inputs are rounded so."""
    return t.to(torch.float32).to(torch.float64)


def write(name, obj):
    path = os.path.join(OUT_DIR, name)
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"))
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


# ----------------------------------------------------------------------------
# AdamW, the schedule, clipping
# ----------------------------------------------------------------------------

def lr_at(o, step):
    """The trainer's schedule (src/train/optimizer.cpp, learning_rate_at)."""
    lr = o["learning_rate"]
    if o["warmup_steps"] > 0 and step <= o["warmup_steps"]:
        return lr * step / o["warmup_steps"]
    span = max(1, o["steps"] - o["warmup_steps"])
    p = min(1.0, max(0.0, (step - o["warmup_steps"]) / span))
    floor = o["final_lr_ratio"]
    if o["lr_decay"] == "none":
        return lr
    if o["lr_decay"] == "linear":
        return lr * (1.0 - (1.0 - floor) * p)
    return lr * (floor + (1.0 - floor) * 0.5 * (1.0 + math.cos(math.pi * p)))


def make_optimizer(named_params, o):
    decay = [p for n, p in named_params if p.dim() >= 2]
    rest = [p for n, p in named_params if p.dim() < 2]
    return torch.optim.AdamW([{"params": decay, "weight_decay": o["weight_decay"]},
                              {"params": rest, "weight_decay": 0.0}],
                             lr=o["learning_rate"], betas=(o["beta1"], o["beta2"]), eps=o["adam_eps"])


def optimizer_step(opt, params, o, step):
    """Clip, set the step's learning rate, update; -> the norm before clipping."""
    norm = torch.nn.utils.clip_grad_norm_(params, o["clip_norm"]) if o["clip_norm"] > 0 else None
    for g in opt.param_groups:
        g["lr"] = lr_at(o, step)
    opt.step()
    return None if norm is None else float(norm)


ADAMW_OPTIONS = {"learning_rate": 0.01, "warmup_steps": 2, "steps": 5, "lr_decay": "cosine", "final_lr_ratio": 0.1,
                 "beta1": 0.9, "beta2": 0.98, "adam_eps": 1e-8, "weight_decay": 0.1, "clip_norm": 1.0}


def adamw_fixture():
    gen = torch.Generator().manual_seed(11)
    shapes = {"w": [3, 4], "b": [4], "g": [5]}  # a matrix (decayed), a bias and a gain (not)
    params = {n: torch.nn.Parameter(f32(torch.randn(s, generator=gen))) for n, s in shapes.items()}
    named = list(params.items())
    opt = make_optimizer(named, ADAMW_OPTIONS)
    steps = []
    for step in range(1, ADAMW_OPTIONS["steps"] + 1):
        grads = {n: f32(torch.randn(s, generator=gen) * (0.2 if step != 3 else 3.0)) for n, s in shapes.items()}
        for n, p in params.items():
            p.grad = grads[n].clone()
        norm = optimizer_step(opt, [p for _, p in named], ADAMW_OPTIONS, step)
        steps.append({"grads": {n: r(g.flatten()) for n, g in grads.items()}, "norm": r(norm),
                      "lr": r(lr_at(ADAMW_OPTIONS, step)),
                      "params": {n: r(p.detach().flatten()) for n, p in params.items()}})
    init_gen = torch.Generator().manual_seed(11)
    init = {n: r(f32(torch.randn(s, generator=init_gen)).flatten()) for n, s in shapes.items()}
    write("train_adamw.json", {"options": ADAMW_OPTIONS, "shapes": shapes, "decay": ["w"], "init": init, "steps": steps})


# ----------------------------------------------------------------------------
# The loss
# ----------------------------------------------------------------------------

def loss_fixture(gen):
    rows, V, ignore = 6, 7, 0
    logits = f32(torch.randn(rows, V, generator=gen) * 2.0)
    targets = [3, 0, 5, 1, 6, 2]  # row 1 is ignored (padding)
    out = []
    for eps in (0.0, 0.1, 0.5):
        x = logits.clone().requires_grad_(True)
        loss = F.cross_entropy(x, torch.tensor(targets), ignore_index=ignore, label_smoothing=eps)
        loss.backward()
        out.append({"smoothing": eps, "loss": r(loss.item()), "dlogits": r(x.grad)})
    return {"rows": rows, "V": V, "ignore": ignore, "logits": r(logits), "targets": targets, "cases": out}


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    adamw_fixture()
    gen = torch.Generator().manual_seed(5)
    write("train_layers.json", {"loss": loss_fixture(gen)})


if __name__ == "__main__":
    main()
