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
  train_step_ss_<name>.* the same step of the same model under scheduled sampling, the
                         two-pass form: a teacher-forced pass without gradients makes the
                         model's own tokens, the decoder reads a mix of them and the true
                         ones (the engine's draws, replayed), and the step trains on that
                         second pass; and 100 steps under the schedule
  train_rnn_*            the same for the RNN encoder-decoder, each attention score, with
                         and without scheduled sampling (tests/tools/train_rnn_fixtures.py)
  train_ga_*             guided attention's penalty alone, and whole steps of both families
                         with it in the loss (tests/tools/train_ga_fixtures.py)
Deterministic: fixed seeds.
"""

import json
import math
import os

import torch
import torch.nn.functional as F

from models.train.export import export, write_safetensors
from models.train.seq2seq_torch import FFN, Attention, Seq2SeqTransformer

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


def step_and_restart(model, o, start, base, grads_meta, updated_meta):
    """After loss.backward(): writes <base>.grads.safetensors (every gradient, before
    clipping) and <base>.updated.safetensors (every parameter after clipping and one AdamW
    step), then puts the parameters back to `start`. -> (gradient norm, a fresh optimizer)."""
    named = list(model.named_parameters())
    write_safetensors(base + ".grads.safetensors", {n: p.grad for n, p in named}, grads_meta)
    opt = make_optimizer(named, o)
    norm = optimizer_step(opt, [p for _, p in named], o, 1)
    write_safetensors(base + ".updated.safetensors", {n: p.detach() for n, p in named}, updated_meta)
    with torch.no_grad():
        for n, p in named:
            p.copy_(start[n])
    return norm, make_optimizer(named, o)


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


# ----------------------------------------------------------------------------
# Each layer alone
# ----------------------------------------------------------------------------

def randomize_module(module, gen, scale=0.4):
    """float32-representable weights, biases and gains far from 0 and 1."""
    with torch.no_grad():
        for name, p in module.named_parameters():
            v = torch.randn(p.shape, generator=gen) * scale
            if name.endswith("weight") and p.dim() == 1:  # a LayerNorm gain
                v = 1.0 + v
            p.copy_(f32(v))


def grads_of(module):
    return {n: r(p.grad) for n, p in module.named_parameters()}


def linear_fixture(gen):
    lin = torch.nn.Linear(5, 7)
    randomize_module(lin, gen)
    x = f32(torch.randn(4, 5, generator=gen)).requires_grad_(True)
    dy = f32(torch.randn(4, 7, generator=gen))
    y = lin(x)
    y.backward(dy)
    return {"in": 5, "out": 7, "rows": 4, "weight": r(lin.weight), "bias": r(lin.bias), "x": r(x), "dy": r(dy),
            "y": r(y), "dx": r(x.grad), "grads": grads_of(lin)}


def layer_norm_fixture(gen):
    ln = torch.nn.LayerNorm(6, eps=1e-5)
    randomize_module(ln, gen, 0.3)
    x = f32(torch.randn(4, 6, generator=gen) * 2.0 + 0.5).requires_grad_(True)
    dy = f32(torch.randn(4, 6, generator=gen))
    y = ln(x)
    y.backward(dy)
    return {"d": 6, "rows": 4, "eps": 1e-5, "weight": r(ln.weight), "bias": r(ln.bias), "x": r(x), "dy": r(dy),
            "y": r(y), "dx": r(x.grad), "grads": grads_of(ln)}


def packed(t, lengths):
    """The valid rows of a padded [B, T, ...] tensor, one example after another."""
    return torch.cat([t[b, :n] for b, n in enumerate(lengths)], 0)


def attention_fixture(gen, kind):
    """The reference's Attention module (projections and core) over a padded batch:
    self (encoder: key padding), causal (decoder: key padding and the causal mask)
    or cross (queries and keys of different lengths)."""
    L, H = 8, 2
    attn = Attention(L, H)
    randomize_module(attn, gen)
    q_lens = {"self": [3, 5], "causal": [4, 2], "cross": [4, 2]}[kind]
    k_lens = {"self": [3, 5], "causal": [4, 2], "cross": [3, 5]}[kind]
    B, Tq, Tk = 2, max(q_lens), max(k_lens)
    xq = f32(torch.randn(B, Tq, L, generator=gen)).requires_grad_(True)
    xkv = xq if kind != "cross" else f32(torch.randn(B, Tk, L, generator=gen)).requires_grad_(True)
    kpad = torch.arange(Tk)[None, :] >= torch.tensor(k_lens)[:, None]
    mask = kpad[:, None, None, :]
    if kind == "causal":
        mask = mask | torch.ones(Tq, Tk, dtype=torch.bool).triu(1)[None, None]
    y, probs = attn(xq, xkv, mask)
    qvalid = (torch.arange(Tq)[None, :] < torch.tensor(q_lens)[:, None]).to(y.dtype)[:, :, None]
    dy = f32(torch.randn(B, Tq, L, generator=gen)) * qvalid
    y.backward(dy)
    out = {"kind": kind, "d": L, "heads": H, "q_lens": q_lens, "k_lens": k_lens,
           "params": {n: r(p) for n, p in attn.named_parameters()},
           "xq": r(packed(xq, q_lens)), "dy": r(packed(dy, q_lens)), "y": r(packed(y, q_lens)),
           "probs": [r(probs[b, :, :q_lens[b], :k_lens[b]]) for b in range(B)],
           "dxq": r(packed(xq.grad, q_lens)), "grads": grads_of(attn)}
    if kind == "cross":
        out["xkv"] = r(packed(xkv, k_lens))
        out["dxkv"] = r(packed(xkv.grad, k_lens))
    return out


def ffn_fixture(gen, activation):
    ffn = FFN(6, 10, activation)
    randomize_module(ffn, gen, 0.5)
    x = f32(torch.randn(5, 6, generator=gen)).requires_grad_(True)
    dy = f32(torch.randn(5, 6, generator=gen))
    y = ffn(x)
    y.backward(dy)
    return {"activation": activation, "d": 6, "d_ff": 10, "rows": 5, "params": {n: r(p) for n, p in ffn.named_parameters()},
            "x": r(x), "dy": r(dy), "y": r(y), "dx": r(x.grad), "grads": grads_of(ffn)}


def embedding_fixture(gen, pos):
    """Seq2SeqTransformer.embed_tgt: the token's row times sqrt(d_model), plus its position's."""
    cfg = dict(TINY, pos=pos, d_model=8, n_heads=2, d_ff=16, enc_layers=1, dec_layers=1, max_pos=8, max_target_len=7)
    model = Seq2SeqTransformer(cfg)
    randomize_module(model, gen)
    ids = [[2, 7, 9, 5], [2, 11, 6, 0]]  # the second padded after 3 tokens
    lens = [4, 3]
    x = model.embed_tgt(torch.tensor(ids))
    dy = f32(torch.randn(x.shape, generator=gen)) * (torch.arange(4)[None, :] < torch.tensor(lens)[:, None]).to(x.dtype)[:, :, None]
    x.backward(dy)
    out = {"pos": pos, "d": 8, "scale": math.sqrt(8), "ids": [i[:n] for i, n in zip(ids, lens)], "lens": lens,
           "table": r(model.tgt_embed.weight), "x": r(packed(x, lens)), "dy": r(packed(dy, lens)),
           "dtable": r(model.tgt_embed.weight.grad)}
    if pos == "learned":
        out["pos_table"] = r(model.tgt_pos.weight)
        out["dpos"] = r(model.tgt_pos.weight.grad)
    return out


TINY = {"arch": "transformer", "src_vocab": ["<pad>", "<unk>"] + list("abcdefghij"),
        "tgt_vocab": ["<pad>", "<unk>", "<s>", "</s>", "<mask>"] + list("abcdefghijk"),
        "src_specials": {"pad": 0, "unk": 1}, "tgt_specials": {"pad": 0, "unk": 1, "bos": 2, "eos": 3, "mask": 4},
        "src_case": "lower"}


# ----------------------------------------------------------------------------
# Whole steps of a tiny Transformer
# ----------------------------------------------------------------------------

STEP_BASE = dict(TINY, d_model=16, n_heads=2, d_ff=32, enc_layers=2, dec_layers=2, ln_eps=1e-5, max_pos=16,
                 max_target_len=15)

# name -> (config overrides, label smoothing, optimizer options)
STEP_FIXTURES = {
    "pre_sin_tied_relu": ({"norm": "pre", "pos": "sinusoidal", "tie_output": True, "activation": "relu",
                           "scale_embedding": True}, 0.1),
    "post_learned_untied_gelu_noscale": ({"norm": "post", "pos": "learned", "tie_output": False, "activation": "gelu",
                                          "scale_embedding": False}, 0.0),
}
STEP_OPTIONS = {"learning_rate": 0.01, "warmup_steps": 10, "steps": 100, "lr_decay": "cosine", "final_lr_ratio": 0.1,
                "beta1": 0.9, "beta2": 0.98, "adam_eps": 1e-8, "weight_decay": 0.01, "clip_norm": 1.0}
CURVE_STEPS = 100
CURVE_BATCH = 8


def reverse_example(gen, cfg, lo, hi):
    """A source of lo..hi letters of the tiny vocabulary, and its reverse as the target."""
    n = int(torch.randint(lo, hi + 1, (1,), generator=gen))
    letters = [int(i) for i in torch.randint(0, 10, (n,), generator=gen)]  # a..j
    src = [cfg["src_vocab"].index("abcdefghij"[i]) for i in letters]
    tgt = [cfg["tgt_vocab"].index("abcdefghij"[i]) for i in reversed(letters)]
    return src, tgt


def step_loss(model, cfg, batch, smoothing):
    """The trainer's loss: the decoder reads BOS + target, predicts target + EOS; mean over
    the real tokens of the padded batch, with label smoothing."""
    src, _, tin, tout = tensors_of(cfg, batch)
    logits = model(src, tin)["logits"]
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1), ignore_index=cfg["tgt_specials"]["pad"],
                           label_smoothing=smoothing)


# Scheduled sampling's cases (the two-pass form): name -> (schedule, the model's own token).
SS_FIXTURES = {"pre_sin_tied_relu": ("linear", "sample"), "post_learned_untied_gelu_noscale": ("inverse_sigmoid", "argmax")}
SS_OPTIONS = {"sampling_midpoint": 20, "sampling_min": 0.0625}
SS_STEP_EPSILON = 0.4  # the one step's probability of the true token (the schedule's at step 1 is 1)


def tensors_of(cfg, batch):
    """The padded source, decoder inputs (BOS + target) and targets (target + EOS)."""
    sp = cfg["tgt_specials"]
    srcs = [s for s, _ in batch]
    dec_in = [[sp["bos"]] + t for _, t in batch]
    dec_out = [t + [sp["eos"]] for _, t in batch]
    S, T = max(map(len, srcs)), max(map(len, dec_in))
    src = torch.tensor([s + [cfg["src_specials"]["pad"]] * (S - len(s)) for s in srcs])
    tin = torch.tensor([t + [sp["pad"]] * (T - len(t)) for t in dec_in])
    tout = torch.tensor([t + [sp["pad"]] * (T - len(t)) for t in dec_out])
    return src, dec_in, tin, tout


def two_pass_loss(model, cfg, batch, smoothing, eps, how, rng, margins):
    """Scheduled sampling's two-pass step (Mihaylova & Martins 2019), as the trainer runs
    it: the encoder once; the decoder teacher-forced without gradients, whose logits at
    row t-1 give the model's own token for row t; two draws of the engine's generator for
    every decoder row (coin, then pick; example by example), a row after BOS reading the
    true token when coin < eps; the decoder again over the mix, the loss (targets
    unchanged) on that pass alone. -> (loss, the inputs read, own tokens that differ from
    the true ones). `margins` collects how far each choice was from going the other way
    (the engine's float32 logits must make the same one)."""
    from tests.tools.train_rnn_fixtures import own_token
    sp = cfg["tgt_specials"]
    src, dec_in, tin, tout = tensors_of(cfg, batch)
    memory, src_pad_mask, _ = model.encode(src)
    with torch.no_grad():
        first, _, _ = model.decode(tin, memory, src_pad_mask, tgt_pad_mask=tin.eq(sp["pad"]))
    fed, own = [], 0
    for b, row in enumerate(dec_in):
        mixed = []
        for t in range(len(row)):
            coin, pick = rng.uniform(), rng.uniform()
            tok = row[t]
            if t > 0 and coin >= eps:
                logits = first[b, t - 1]
                tok = own_token(logits, how, pick)
                top2 = torch.topk(logits, 2).values
                if how == "argmax":
                    margins.append(float(top2[0] - top2[1]))
                else:
                    cdf = torch.cumsum(torch.softmax(logits, -1), 0)
                    margins.append(float((cdf - pick).abs().min()))
            own += tok != row[t]
            mixed.append(tok)
        fed.append(mixed)
    T = tin.shape[1]
    tmix = torch.tensor([m + [sp["pad"]] * (T - len(m)) for m in fed])
    # Padding is where the example ends, not wherever an own token is <pad>.
    logits, _, _ = model.decode(tmix, memory, src_pad_mask, tgt_pad_mask=tin.eq(sp["pad"]))
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1), ignore_index=sp["pad"],
                           label_smoothing=smoothing)
    return loss, fed, own


def ss_step_fixture(name, cfg, smoothing, start, batch, batches, draw_seed):
    """train_step_ss_<name>: one two-pass step at SS_STEP_EPSILON from the model of
    train_step_<name> over its batch, and 100 steps under the schedule over its curve's
    batches."""
    from tests.tools.train_rnn_fixtures import SplitMix64, true_token_probability
    schedule, how = SS_FIXTURES[name]
    o = dict(STEP_OPTIONS, scheduled_sampling=schedule, sampling_token=how, **SS_OPTIONS)
    model = Seq2SeqTransformer(cfg)
    with torch.no_grad():
        for n, p in model.named_parameters():
            p.copy_(start[n])
    margins = []
    loss, fed, own = two_pass_loss(model, cfg, batch, smoothing, SS_STEP_EPSILON, how, SplitMix64(draw_seed), margins)
    loss.backward()
    base = os.path.join(OUT_DIR, f"train_step_ss_{name}")
    norm, opt = step_and_restart(model, o, start, base, {"what": "gradients of train_step_ss_%s.json's step" % name},
                                 {"what": "parameters after one AdamW step"})
    rng = SplitMix64(draw_seed)
    losses, epsilons, owns = [], [], []
    for step, b in enumerate(batches, start=1):
        opt.zero_grad()
        e = true_token_probability(o, step)
        loss_k, _, own_k = two_pass_loss(model, cfg, b, smoothing, e, how, rng, margins)
        loss_k.backward()
        optimizer_step(opt, [p for _, p in model.named_parameters()], o, step)
        losses.append(r(loss_k.item()))
        epsilons.append(e)
        owns.append(own_k)
    # The engine computes the first pass in float32 (its curve stays within about 1e-6
    # of this one): a choice closer to a tie than this could go the other way there.
    assert min(margins) > 1e-5, f"{name}: a scheduled-sampling choice within {min(margins):.3g} of a tie"
    print(f"  ss_{name}: {schedule}, {how}: loss {loss.item():.6f} (own tokens {own}); 100 steps: "
          f"{losses[0]:.4f} -> {losses[-1]:.4f}, own tokens {sum(owns)}, closest choice {min(margins):.3g}")
    write(f"train_step_ss_{name}.json", {
        "model": f"train_step_{name}.safetensors", "batches": f"train_step_{name}.json", "smoothing": smoothing,
        "options": o, "draw_seed": draw_seed,
        "step": {"epsilon": SS_STEP_EPSILON, "loss": r(loss.item()), "fed": fed, "own_tokens": own, "grad_norm": r(norm),
                 "lr": r(lr_at(o, 1))},
        "curve": {"losses": losses, "epsilons": r(epsilons), "own_tokens": owns}})


def step_fixture(name, index):
    overrides, smoothing = STEP_FIXTURES[name]
    cfg = dict(STEP_BASE, **overrides)
    gen = torch.Generator().manual_seed(100 + index)
    model = Seq2SeqTransformer(cfg)
    randomize_module(model, gen, 0.3)
    base = os.path.join(OUT_DIR, f"train_step_{name}")
    cfg["name"] = f"train_step_{name}"
    cfg["description"] = "random weights, the trainer's parity fixture from tests/tools/make_train_fixtures.py"
    export(model, cfg, base + ".safetensors")
    start = {n: p.detach().clone() for n, p in model.named_parameters()}

    # One step: the batch, the loss, every gradient, the parameters after AdamW.
    batch = [reverse_example(gen, cfg, 2, 7) for _ in range(4)]
    loss = step_loss(model, cfg, batch, smoothing)
    loss.backward()
    names = [n for n, _ in model.named_parameters()]
    # Its gradients and update; then 100 steps from the same start, the loss of each before its update.
    norm, opt = step_and_restart(model, STEP_OPTIONS, start, base, {"what": "gradients of train_step_%s.json's batch" % name},
                                 {"what": "parameters after one AdamW step"})
    batches, losses = [], []
    for step in range(1, CURVE_STEPS + 1):
        b = [reverse_example(gen, cfg, 2, 7) for _ in range(CURVE_BATCH)]
        opt.zero_grad()
        loss_k = step_loss(model, cfg, b, smoothing)
        loss_k.backward()
        optimizer_step(opt, [p for _, p in model.named_parameters()], STEP_OPTIONS, step)
        batches.append(b)
        losses.append(r(loss_k.item()))
    print(f"  {name}: loss {loss.item():.6f}, gradient norm {norm:.4f}; 100 steps: {losses[0]:.4f} -> {losses[-1]:.4f}")
    ss_step_fixture(name, cfg, smoothing, start, batch, batches, 500 + index)
    write(f"train_step_{name}.json", {
        "model": f"train_step_{name}.safetensors", "smoothing": smoothing, "options": STEP_OPTIONS,
        "batch": [{"source": s, "target": t} for s, t in batch], "loss": r(loss.item()), "grad_norm": r(norm),
        "parameters": names,
        "curve": {"batches": [[{"source": s, "target": t} for s, t in b] for b in batches], "losses": losses}})


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    for i, name in enumerate(STEP_FIXTURES):
        step_fixture(name, i)
    adamw_fixture()
    gen = torch.Generator().manual_seed(5)
    layers = {"loss": loss_fixture(gen), "linear": linear_fixture(gen), "layer_norm": layer_norm_fixture(gen),
              "attention": [attention_fixture(gen, k) for k in ("self", "causal", "cross")],
              "ffn": [ffn_fixture(gen, a) for a in ("relu", "gelu")],
              "embedding": [embedding_fixture(gen, p) for p in ("sinusoidal", "learned")]}
    write("train_layers.json", layers)
    from tests.tools.train_rnn_fixtures import write_rnn_fixtures  # the RNN's (it imports the helpers above)
    write_rnn_fixtures()
    from tests.tools.train_ga_fixtures import write_guided_attention_fixtures  # guided attention's
    write_guided_attention_fixtures()


if __name__ == "__main__":
    main()
