"""The RNN encoder-decoder's part of the trainer's fixtures (make_train_fixtures.py calls
write_rnn_fixtures()): PyTorch autograd on the project's own RnnSeq2Seq
(models/train/seq2seq_torch.py), in float64 from float32 starting values.

  train_rnn_layers.json         each layer alone: the GRU cell (nn.GRUCell), the
                                bidirectional two-layer encoder over a padded batch
                                (RnnEncoder, packed), each attention score with its
                                softmax and context (RnnSeq2Seq.attend, padded memory;
                                attention none's fixed context is in the whole steps),
                                the output layer; inputs, an upstream gradient, outputs
                                and every input and parameter gradient
  train_rnn_<case>.safetensors  the initial model of one whole training step (the model
                                format), and .grads.safetensors (every parameter's
                                gradient, before clipping), .updated.safetensors (the
                                parameters after clipping and AdamW)
  train_rnn_<case>.json         the options, the loss of the step over the first batch,
                                the inputs the decoder read (scheduled sampling), and the
                                loss of 100 steps from the same start over the batches
                                (with epsilon and how many of its own tokens the decoder read)
  train_rnn_batches.json        the 100 batches of the reverse task every case trains on

Scheduled sampling draws from the engine's generator (src/random.h, SplitMix64, ported
below): two draws for every decoder row of a batch, in the batch's order (coin, then
pick); a row reads the true token when coin < epsilon, else the model's own token from
the previous position's logits (argmax, or the inverse CDF at pick).
"""

import math
import os

import torch
import torch.nn.functional as F

from models.train.export import export, load_model_file, write_safetensors
from models.train.seq2seq_torch import build_model
from tests.tools.make_train_fixtures import OUT_DIR, f32, lr_at, make_optimizer, optimizer_step, r, write

M64 = (1 << 64) - 1


class SplitMix64:
    """src/random.h's generator, bit for bit."""

    def __init__(self, seed):
        self.state = seed & M64

    def next_u64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & M64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def uniform(self):
        return (self.next_u64() >> 11) * (1.0 / 9007199254740992.0)


# ----------------------------------------------------------------------------
# The schedule of scheduled sampling (src/train/scheduled_sampling.cpp)
# ----------------------------------------------------------------------------

def inverse_sigmoid_k(midpoint):
    lo, hi = 1.0, 2.0
    while hi * math.log(hi) < midpoint:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid == lo or mid == hi:
            break
        if mid * math.log(mid) < midpoint:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def true_token_probability(o, step):
    i, n = max(0, step - 1), o["sampling_midpoint"]
    s = o["scheduled_sampling"]
    if s == "off":
        return 1.0
    if s == "linear":
        eps = 1.0 - i / (2.0 * n)
    elif s == "exponential":
        eps = 2.0 ** (-i / n)
    else:
        k = inverse_sigmoid_k(n)
        eps = k / (k + math.exp(i / k)) if i / k < 709 else 0.0  # C++: exp overflows to inf, epsilon 0
    return max(o["sampling_min"], eps)


def schedule_table():
    rows = []
    for sched in ("off", "linear", "exponential", "inverse_sigmoid"):
        for mid, lo in ((1, 0.0), (20, 0.0), (500, 0.125), (7, 0.25)):  # floors a float32 holds exactly
            o = {"scheduled_sampling": sched, "sampling_midpoint": mid, "sampling_min": lo}
            for step in (1, 2, mid, mid + 1, 3 * mid, 10000):
                rows.append({"schedule": sched, "midpoint": mid, "min": lo, "step": step,
                             "epsilon": true_token_probability(o, step)})
    ks = {str(n): inverse_sigmoid_k(n) for n in (1, 2, 20, 500, 10000000)}
    return {"rows": rows, "inverse_sigmoid_k": ks}


# ----------------------------------------------------------------------------
# Models and data
# ----------------------------------------------------------------------------

LETTERS = ["a", "b", "c", "d", "e", "f"]
SRC_VOCAB = ["<pad>", "<unk>"] + LETTERS
TGT_VOCAB = ["<pad>", "<unk>", "<s>", "</s>"] + LETTERS
PAD, BOS, EOS = 0, 2, 3


def rnn_config(attention, enc_layers=1, name=""):
    return {"arch": "rnn", "cell": "gru", "emb_dim": 6, "enc_hidden": 4, "enc_layers": enc_layers, "dec_hidden": 8,
            "attention": attention, "attn_dim": 5 if attention in ("reduced_rank", "additive") else 0, "max_pos": 16,
            "src_vocab": SRC_VOCAB, "tgt_vocab": TGT_VOCAB, "src_specials": {"pad": 0, "unk": 1},
            "tgt_specials": {"pad": 0, "unk": 1, "bos": 2, "eos": 3}, "src_case": "none",
            "name": name, "description": "a trainer fixture (tests/tools/train_rnn_fixtures.py)"}


def reverse_example(gen, lo=2, hi=6):
    """A source of letters, its target backwards: (source ids, decoder inputs, targets)."""
    n = int(torch.randint(lo, hi + 1, (1,), generator=gen))
    letters = [int(v) for v in torch.randint(0, len(LETTERS), (n,), generator=gen)]
    src = [2 + k for k in letters]
    tgt = [4 + k for k in reversed(letters)]
    return src, [BOS] + tgt, tgt + [EOS]


def make_batch(gen, size):
    return [reverse_example(gen) for _ in range(size)]


def padded(rows, pad):
    T = max(len(x) for x in rows)
    return torch.tensor([x + [pad] * (T - len(x)) for x in rows])


def own_token(logits, how, pick):
    """The model's own token from one row of logits (scheduled_sampling.h, own_token)."""
    if how == "argmax":
        return int(torch.argmax(logits))
    p = torch.softmax(logits.double(), -1)
    acc = torch.cumsum(p, 0)
    over = (acc > pick).nonzero()
    return int(over[0]) if len(over) else int(torch.argmax(logits))


def draws_for(rng, batch):
    """Two draws (coin, pick) for every decoder row, example by example, row by row."""
    coins, picks = [], []
    for _, dec_in, _ in batch:
        c, p = [], []
        for _ in dec_in:
            c.append(rng.uniform())
            p.append(rng.uniform())
        coins.append(c)
        picks.append(p)
    return coins, picks


def forward_loss(model, batch, smoothing, sampling=None):
    """The batch's mean label-smoothed cross-entropy; with sampling = (epsilon, how,
    coins, picks), the decoder reads its own token where coin >= epsilon. -> (loss,
    the decoder inputs it read, tokens counted, tokens right)."""
    src = padded([b[0] for b in batch], PAD)
    lengths = torch.tensor([len(b[0]) for b in batch])
    dec_in = padded([b[1] for b in batch], PAD)
    tgt = padded([b[2] for b in batch], PAD)
    if sampling is None:
        logits, _ = model(src, dec_in, src_lengths=lengths)
        fed = [list(b[1]) for b in batch]
    else:
        eps, how, coins, picks = sampling
        memory, spm, _ = model.encode(src, src_lengths=lengths)
        state = model.init_state(memory, spm)
        fed = [[BOS] for _ in batch]
        out = []
        prev = dec_in[:, 0]
        for t in range(dec_in.shape[1]):
            if t > 0:
                choice = []
                for b in range(len(batch)):
                    if t >= len(batch[b][1]):
                        choice.append(PAD)  # past the example's end: read nothing that counts
                        continue
                    if coins[b][t] < eps:
                        tok = batch[b][1][t]
                    else:
                        tok = own_token(out[-1][b].detach(), how, picks[b][t])
                    fed[b].append(tok)
                    choice.append(tok)
                prev = torch.tensor(choice)
            logits_t, state, _ = model.step(prev, state, memory, spm)
            out.append(logits_t)
        logits = torch.stack(out, 1)
    flat = logits.reshape(-1, logits.shape[-1])
    loss = F.cross_entropy(flat, tgt.reshape(-1), ignore_index=PAD, label_smoothing=smoothing)
    keep = tgt.reshape(-1) != PAD
    right = int((flat.argmax(-1) == tgt.reshape(-1))[keep].sum())
    return loss, fed, int(keep.sum()), right


# ----------------------------------------------------------------------------
# Layers alone
# ----------------------------------------------------------------------------

def grads_of(named):
    return {n: r(p.grad.flatten()) for n, p in named}


def gru_cell_fixture(gen):
    n, E, H = 3, 5, 4
    cell = torch.nn.GRUCell(E, H)
    with torch.no_grad():
        for p in cell.parameters():
            p.copy_(f32(torch.randn(p.shape, generator=gen) * 0.5))
    x = f32(torch.randn(n, E, generator=gen)).requires_grad_(True)
    h = f32(torch.randn(n, H, generator=gen) * 0.7).requires_grad_(True)
    dy = f32(torch.randn(n, H, generator=gen))
    y = cell(x, h)
    y.backward(dy)
    return {"rows": n, "in": E, "hidden": H,
            "params": {k: r(v.detach().flatten()) for k, v in cell.named_parameters()},
            "x": r(x.detach()), "h": r(h.detach()), "dy": r(dy), "y": r(y.detach()),
            "dx": r(x.grad), "dh": r(h.grad), "grads": grads_of(cell.named_parameters())}


def encoder_fixture(gen):
    """The source embedding and two bidirectional layers over a padded batch (packed by
    the reference): the memory h_j = [h→_j ; h←_j] of every source position."""
    cfg = rnn_config("dot", enc_layers=2)
    model = build_model(cfg).double()
    with torch.no_grad():
        for p in list(model.encoder.parameters()) + list(model.src_embed.parameters()):
            p.copy_(f32(torch.randn(p.shape, generator=gen) * 0.5))
    lengths = [5, 2, 4]
    sources = [[int(v) for v in torch.randint(2, len(SRC_VOCAB), (n,), generator=gen)] for n in lengths]
    H = cfg["enc_hidden"]
    dy = f32(torch.randn(len(lengths), max(lengths), 2 * H, generator=gen))
    for b, n in enumerate(lengths):
        dy[b, n:] = 0
    y, _, _ = model.encode(padded(sources, PAD), src_lengths=torch.tensor(lengths))
    y.backward(dy)
    rows = lambda t: [r(t[b, :n]) for b, n in enumerate(lengths)]  # noqa: E731
    named = [(n, p) for n, p in model.named_parameters() if n.startswith(("encoder.", "src_embed."))]
    return {"config": cfg, "sources": sources,
            "params": {k: r(v.detach().flatten()) for k, v in named},
            "dy": rows(dy), "y": rows(y.detach()), "grads": grads_of(named)}


def attention_fixture(gen, attention):
    """Three queries, each over its own padded memory: keys from the memory, scores,
    softmax with padding at probability 0, the context; an upstream gradient on the
    context and one on the weights (where guided attention would enter)."""
    cfg = rnn_config(attention)
    model = build_model(cfg).double()
    with torch.no_grad():
        for p in model.attn.parameters():
            p.copy_(f32(torch.randn(p.shape, generator=gen) * 0.5))
    lengths = [4, 2, 3]
    N, S, H2, D = len(lengths), max(lengths), 2 * cfg["enc_hidden"], cfg["dec_hidden"]
    mask = torch.arange(S)[None, :] >= torch.tensor(lengths)[:, None]
    memory = f32(torch.randn(N, S, H2, generator=gen) * 0.8)
    memory[mask] = 0
    memory.requires_grad_(True)
    s = f32(torch.randn(N, D, generator=gen) * 0.8).requires_grad_(True)
    dctx = f32(torch.randn(N, H2, generator=gen))
    keys = model.attn.keys(memory)
    ctx, alpha = model.attend(keys, memory, mask, s)
    dalpha = f32(torch.randn(N, S, generator=gen))
    dalpha[mask] = 0
    ((ctx * dctx).sum() + (alpha * dalpha).sum()).backward()
    rows = lambda t: [r(t[b, :n]) for b, n in enumerate(lengths)]  # noqa: E731
    out = {"attention": attention, "lengths": lengths, "enc2": H2, "dec": D, "attn_dim": cfg["attn_dim"],
           "params": {k: r(v.detach().flatten()) for k, v in model.attn.named_parameters()},
           "memory": rows(memory.detach()), "s": r(s.detach()), "dctx": r(dctx),
           "ctx": r(ctx.detach()), "dmemory": rows(memory.grad), "ds": r(s.grad),
           "grads": grads_of(model.attn.named_parameters()),
           "alpha": rows(alpha.detach()), "dalpha": rows(dalpha)}
    return out


def output_fixture(gen):
    cfg = rnn_config("additive")
    model = build_model(cfg).double()
    with torch.no_grad():
        for p in model.out.parameters():
            p.copy_(f32(torch.randn(p.shape, generator=gen) * 0.5))
    n, K = 4, model.out.in_features
    x = f32(torch.randn(n, K, generator=gen)).requires_grad_(True)
    dy = f32(torch.randn(n, model.out.out_features, generator=gen))
    y = model.out(x)
    y.backward(dy)
    return {"rows": n, "in": K, "out": model.out.out_features,
            "params": {k: r(v.detach().flatten()) for k, v in model.out.named_parameters()},
            "x": r(x.detach()), "dy": r(dy), "y": r(y.detach()), "dx": r(x.grad),
            "grads": grads_of(model.out.named_parameters())}


# ----------------------------------------------------------------------------
# Whole steps and 100-step curves
# ----------------------------------------------------------------------------

STEP_OPTIONS = {"learning_rate": 0.01, "warmup_steps": 5, "steps": 100, "lr_decay": "cosine", "final_lr_ratio": 0.1,
                "beta1": 0.9, "beta2": 0.98, "adam_eps": 1e-8, "weight_decay": 0.01, "clip_norm": 1.0,
                "label_smoothing": 0.1, "batch_size": 4}

# (case, attention, encoder layers, scheduled sampling)
STEP_CASES = [
    ("dot", "dot", 1, None),
    ("multiplicative", "multiplicative", 2, None),
    ("reduced_rank", "reduced_rank", 1, None),
    ("additive", "additive", 1, None),
    ("none", "none", 1, None),
    ("dot_ss", "dot", 1, ("linear", "sample")),
    ("multiplicative_ss", "multiplicative", 2, ("exponential", "argmax")),
    ("reduced_rank_ss", "reduced_rank", 1, ("inverse_sigmoid", "sample")),
    ("additive_ss", "additive", 1, ("linear", "argmax")),
    ("none_ss", "none", 1, ("exponential", "sample")),
]

# The one step of a scheduled-sampling case reads the true token with this probability
# (the schedule's own value at step 1 is about 1; the curve runs the schedule).
STEP_EPSILON = 0.4


def load_double(path):
    cfg, sd = load_model_file(path)
    model = build_model(cfg).double()
    model.load_state_dict({k: v.double() for k, v in sd.items()})
    return model


def named_params(model):
    return list(model.named_parameters())


def step_fixture(case, attention, enc_layers, ss, seed, batches):
    name = f"train_rnn_{case}"
    cfg = rnn_config(attention, enc_layers, name=name)
    torch.manual_seed(seed)  # PyTorch's default initialisation of the reference
    init = build_model(cfg)
    with torch.no_grad():
        for p in init.parameters():
            p.copy_(p.to(torch.float32))
    model_path = os.path.join(OUT_DIR, name + ".safetensors")
    export(init, cfg, model_path)
    o = dict(STEP_OPTIONS)
    if ss:
        o.update(scheduled_sampling=ss[0], sampling_token=ss[1], sampling_midpoint=20, sampling_min=0.0625)
    else:
        o.update(scheduled_sampling="off", sampling_token="sample", sampling_midpoint=20, sampling_min=0.0)
    draw_seed = seed + 7

    # One step at epsilon STEP_EPSILON (teacher forcing: 1) from the initial weights.
    model = load_double(model_path).train()
    named = named_params(model)
    opt = make_optimizer(named, o)
    rng = SplitMix64(draw_seed)
    eps = STEP_EPSILON if ss else 1.0
    sampling = (eps, o["sampling_token"], *draws_for(rng, batches[0])) if ss else None
    loss, fed, tokens, right = forward_loss(model, batches[0], o["label_smoothing"], sampling)
    loss.backward()
    grads = {n: p.grad.detach().clone() for n, p in named}
    norm = optimizer_step(opt, [p for _, p in named], o, 1)
    write_safetensors(os.path.join(OUT_DIR, name + ".grads.safetensors"), grads, {})
    write_safetensors(os.path.join(OUT_DIR, name + ".updated.safetensors"),
                      {n: p.detach() for n, p in named}, {})

    # 100 steps from the same start over the listed batches, the schedule's epsilon.
    model = load_double(model_path).train()
    named = named_params(model)
    opt = make_optimizer(named, o)
    rng = SplitMix64(draw_seed)
    curve, epsilons, reads = [], [], 0
    for step, batch in enumerate(batches, start=1):
        opt.zero_grad()
        e = true_token_probability(o, step)
        smp = (e, o["sampling_token"], *draws_for(rng, batch)) if ss else None
        l, fed_i, _, _ = forward_loss(model, batch, o["label_smoothing"], smp)
        reads += sum(1 for b, f in zip(batch, fed_i) for t in range(1, len(f)) if f[t] != b[1][t])
        l.backward()
        optimizer_step(opt, [p for _, p in named], o, step)
        curve.append(l.item())
        epsilons.append(e)
    print(f"  {name}: loss {curve[0]:.4f} -> {curve[-1]:.4f}"
          + (f", own tokens differing from the true ones read: {reads}" if ss else ""))
    write(name + ".json", {
        "model": name + ".safetensors", "options": o, "draw_seed": draw_seed,
        "step": {"epsilon": eps, "loss": r(loss.item()), "tokens": tokens, "correct": right, "fed": fed,
                 "grad_norm": r(norm), "lr": r(lr_at(o, 1))},
        "batches": "train_rnn_batches.json",
        "curve": r(curve), "epsilons": r(epsilons), "own_tokens": reads})


def write_rnn_fixtures():
    gen = torch.Generator().manual_seed(23)
    layers = {"gru_cell": gru_cell_fixture(gen), "encoder": encoder_fixture(gen),
              "attention": {a: attention_fixture(gen, a)
                            for a in ("dot", "multiplicative", "reduced_rank", "additive")},
              "output": output_fixture(gen), "schedule": schedule_table()}
    rng = SplitMix64(1)
    layers["splitmix64_seed1"] = [str(rng.next_u64()) for _ in range(3)]
    write("train_rnn_layers.json", layers)
    gen = torch.Generator().manual_seed(1000)
    batches = [make_batch(gen, STEP_OPTIONS["batch_size"]) for _ in range(STEP_OPTIONS["steps"])]
    # [step][example] = [source ids, decoder inputs (BOS + target), targets (target + EOS)]
    write("train_rnn_batches.json", [[[b[0], b[1], b[2]] for b in batch] for batch in batches])
    for i, (case, attention, enc_layers, ss) in enumerate(STEP_CASES):
        step_fixture(case, attention, enc_layers, ss, 300 + i, batches)
