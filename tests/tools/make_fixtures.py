"""Build the PyTorch parity fixtures in tests/fixtures/ (see tests/fixtures/README.md).

    /usr/bin/python3 -m tests.tools.make_fixtures       (from the repository root)

Small random-weight models, one per configuration below, each exported to
tests/fixtures/<name>.safetensors, with tests/fixtures/<name>.json holding the
inputs and the reference numbers (logits, attention probabilities, and for cmlm
the length log-probabilities; for rnn the logits and the attention
probabilities; for every model the forced scores of three targets; for
transformer and cmlm models a whole greedy or Mask-Predict decode and its
self-attention). References are computed in float64 from the
stored (f32, f16-rounded, int8- or 4-bit-dequantized) weights, on a PADDED batch of three sources and
targets of different lengths, so masking is exercised. Deterministic.
"""

import json
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
# The fixtures' metadata names this tool by its former path (models/make_fixtures.py):
# kept as written, so that a regeneration reproduces tests/fixtures/ byte for byte.
PROVENANCE = "random weights, parity fixture from models/make_fixtures.py"

from models.train.seq2seq_torch import build_model
from models.train.export import export, load_model_file

OUT_DIR = os.path.join(HERE, "..", "fixtures")

SRC_VOCAB = ["<pad>", "<unk>", "A", "B", "C", "D", "E", "F", "G", "'", "-", "."]
TGT_VOCAB = ["<pad>", "<unk>", "<s>", "</s>", "<mask>", "AA", "AE", "AH", "B", "D", "EH", "IY", "K", "N", "S", "T"]

BASE = {
    "d_model": 32, "n_heads": 4, "d_ff": 64, "enc_layers": 2, "dec_layers": 2,
    "ln_eps": 1e-5, "max_pos": 32, "max_target_len": 16,
    "src_vocab": SRC_VOCAB, "tgt_vocab": TGT_VOCAB,
    "src_specials": {"pad": 0, "unk": 1},
    "tgt_specials": {"pad": 0, "unk": 1, "bos": 2, "eos": 3, "mask": 4},
    "src_case": "upper",
}

# name -> (config overrides, storage dtype)
FIXTURES = {
    "ar_post_sin_tied_relu": ({"arch": "transformer", "norm": "post", "pos": "sinusoidal", "tie_output": True,
                               "activation": "relu", "scale_embedding": True}, "f32"),
    "ar_pre_learned_untied_gelu": ({"arch": "transformer", "norm": "pre", "pos": "learned", "tie_output": False,
                                    "activation": "gelu", "scale_embedding": True}, "f32"),
    "ar_post_learned_tied_gelu_noscale": ({"arch": "transformer", "norm": "post", "pos": "learned",
                                           "tie_output": True, "activation": "gelu",
                                           "scale_embedding": False}, "f32"),
    "cmlm_pre_sin_tied_relu": ({"arch": "cmlm", "norm": "pre", "pos": "sinusoidal", "tie_output": True,
                                "activation": "relu", "scale_embedding": True}, "f32"),
    "cmlm_post_learned_untied_gelu": ({"arch": "cmlm", "norm": "post", "pos": "learned", "tie_output": False,
                                       "activation": "gelu", "scale_embedding": True}, "f32"),
    "ar_pre_sin_tied_relu_f16": ({"arch": "transformer", "norm": "pre", "pos": "sinusoidal", "tie_output": True,
                                  "activation": "relu", "scale_embedding": True}, "f16"),
    # (new fixtures go last: the seed is the position in this table)
    # length head predicting the offset -5..+11 from the source length (max_target_len 16):
    # sources of 7, 4 and 9 letters leave lengths at both ends unreachable
    "cmlm_pre_sin_tied_relu_offset": ({"arch": "cmlm", "norm": "pre", "pos": "sinusoidal", "tie_output": True,
                                       "activation": "relu", "scale_embedding": True, "length_offset": 5}, "f32"),
    "ar_pre_sin_tied_relu_i8": ({"arch": "transformer", "norm": "pre", "pos": "sinusoidal", "tie_output": True,
                                 "activation": "relu", "scale_embedding": True}, "i8"),
    # 4-bit weights with a scale per 32 columns (every width here is a multiple of 32)
    "cmlm_pre_sin_tied_relu_q4": ({"arch": "cmlm", "norm": "pre", "pos": "sinusoidal", "tie_output": True,
                                   "activation": "relu", "scale_embedding": True}, "q4"),
}

SRC_LENS = [7, 4, 9]
TGT_LENS = [5, 8, 3]


def randomize(model, gen):
    """Weights that make a parity test meaningful: peaked but not one-hot
    attention, LayerNorm affine far from 1/0, non-zero biases everywhere."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            n = torch.randn(p.shape, generator=gen, dtype=torch.float64)
            if ".ln" in name or "final_ln" in name:
                v = 1.0 + 0.25 * n if name.endswith("weight") else 0.15 * n
            elif name.endswith("embed.weight") or name.endswith("pos.weight"):
                v = 0.5 * n
            elif name.endswith(".weight"):
                v = 0.3 * n
            else:  # biases of linear layers, out_proj.bias, length_head.bias
                v = 0.2 * n
            p.copy_(v.to(p.dtype))


def make_inputs(cfg, gen):
    Vs, Vt = len(cfg["src_vocab"]), len(cfg["tgt_vocab"])
    sp = cfg["tgt_specials"]
    src_tokens = [i for i in range(Vs) if i not in cfg["src_specials"].values()]
    tgt_tokens = [i for i in range(Vt) if i not in sp.values()]

    def pick(pool, n):
        idx = torch.randint(len(pool), (n,), generator=gen).tolist()
        return [pool[i] for i in idx]

    sources = [pick(src_tokens, n) for n in SRC_LENS]
    targets = []
    for n in TGT_LENS:
        if cfg["arch"] != "cmlm":  # transformer, rnn
            targets.append([sp["bos"]] + pick(tgt_tokens, n - 1))
        else:
            t = pick(tgt_tokens, n)
            m = torch.rand(n, generator=gen) < 0.5
            m[0] = True  # at least one mask and one given token per target
            m[-1] = False
            targets.append([sp["mask"] if mi else ti for ti, mi in zip(t, m.tolist())])
    return sources, targets


def pad_batch(seqs, pad):
    T = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), T), pad, dtype=torch.long)
    mask = torch.ones(len(seqs), T, dtype=torch.bool)
    for b, s in enumerate(seqs):
        ids[b, :len(s)] = torch.tensor(s)
        mask[b, :len(s)] = False
    return ids, mask


def r(x):
    """Round floats for JSON: 10 significant digits is far below the tolerance."""
    if isinstance(x, list):
        return [r(v) for v in x]
    return float(f"{x:.10g}")


def forced_ar(logits, targets, eos):
    """Teacher-forced scores of each target after its <s> (the engine's forced
    score, src/forced_score.h): logits[b][t] predicts targets[b][t + 1], the last
    row predicts EOS. -> {"targets": [..] without <s>, "token_logprobs": [..] (EOS last)}."""
    tgts, lps = [], []
    for b, t in enumerate(targets):
        lp = torch.log_softmax(logits[b, :len(t)], -1)
        nxt = t[1:] + [eos]
        tgts.append(t[1:])
        lps.append(r([lp[i, y].item() for i, y in enumerate(nxt)]))
    return {"targets": tgts, "token_logprobs": lps}


def forced_cmlm(ref, sources, targets, cfg):
    """The CMLM's forced score of a target (src/forced_score.h): its n tokens
    predicted from a draft of n masks, and log P(n) from the length head. The
    targets are the fixture's with each <mask> replaced by a token (chosen by
    position, so no random number is drawn). -> {"targets", "token_logprobs", "length_logprobs"}."""
    sp = cfg["tgt_specials"]
    pool = [i for i in range(len(cfg["tgt_vocab"])) if i not in sp.values()]
    tgts, lps, lens = [], [], []
    for b, t in enumerate(targets):
        y = [pool[(3 * i + b) % len(pool)] if v == sp["mask"] else v for i, v in enumerate(t)]
        with torch.no_grad():
            out = ref(torch.tensor([sources[b]]), torch.tensor([[sp["mask"]] * len(y)]))
        lp = torch.log_softmax(out["logits"][0], -1)
        tgts.append(y)
        lps.append(r([lp[i, v].item() for i, v in enumerate(y)]))
        lens.append(r(torch.log_softmax(out["length_logits"][0], -1)[len(y)].item()))
    return {"targets": tgts, "token_logprobs": lps, "length_logprobs": lens}


GREEDY_MAX_LENGTH = 12   # output tokens, EOS included (the decoder holds max_pos = 32)
GREEDY_MIN_LENGTH = 4    # no EOS before 4 tokens: random weights often say EOS at once
MASK_PREDICT_LENGTH = 6  # the draft length given to Mask-Predict
MASK_PREDICT_ITERATIONS = 3


def attn_of(layers, rows, cols):
    """[layer][head][rows][cols] of a one-example forward's attention list."""
    return [r(layer[0, :, :rows, :cols].tolist()) for layer in layers]


def greedy_decode(ref, cfg, source):
    """Greedy decoding as src/ar_search.cpp does it (never pad/unk/bos/mask, no EOS before
    GREEDY_MIN_LENGTH tokens, EOS forced at the last position), one full forward per step
    -> (tokens, smallest top-2 margin)."""
    sp = cfg["tgt_specials"]
    banned = [sp[k] for k in ("pad", "unk", "bos", "mask")]
    src = torch.tensor([source])
    tokens, margins = [], []
    with torch.no_grad():
        for t in range(GREEDY_MAX_LENGTH):
            lp = torch.log_softmax(ref(src, torch.tensor([[sp["bos"]] + tokens]))["logits"][0, -1], -1)
            if t + 1 >= GREEDY_MAX_LENGTH:
                tok = sp["eos"]
            else:
                lp[banned] = float("-inf")
                if t < GREEDY_MIN_LENGTH:
                    lp[sp["eos"]] = float("-inf")
                top = lp.topk(2)
                margins.append((top.values[0] - top.values[1]).item())
                tok = int(top.indices[0])
            tokens.append(tok)
            if tok == sp["eos"]:
                break
    return tokens, min(margins, default=float("inf"))


def greedy_fixture(ref, cfg, sources):
    """The greedy decode of the source with the longest output, and the full pass over the decoder's inputs (<s> and every output token
    but the last): its causal self-attention is the lower triangle that the rows of
    successive snapshots build up, row t at step t + 1."""
    decodes = [greedy_decode(ref, cfg, s) for s in sources]
    b = max(range(len(sources)), key=lambda i: len(decodes[i][0]))  # ties: the first
    tokens, margin = decodes[b]
    fed = [cfg["tgt_specials"]["bos"]] + tokens[:-1]
    with torch.no_grad():
        out = ref(torch.tensor([sources[b]]), torch.tensor([fed]), return_attn=True)
    n, S = len(fed), len(sources[b])
    print(f"  greedy: source {b}, {len(tokens)} tokens, smallest top-2 log-prob margin {margin:.4f}")
    return {"source": b, "max_length": GREEDY_MAX_LENGTH, "min_length": GREEDY_MIN_LENGTH, "tokens": tokens,
            "enc_self_attn": attn_of(out["enc_self_attn"], S, S), "dec_self_attn": attn_of(out["dec_self_attn"], n, n)}


def mask_predict_fixture(ref, cfg, source):
    """Mask-Predict of one draft of a given length as src/nar_search.cpp does it, every
    iteration (no early stop): the draft fed to the decoder, the tokens predicted, and the
    decoder's (unmasked) self-attention over the draft fed."""
    sp = cfg["tgt_specials"]
    banned = [sp[k] for k in ("pad", "unk", "bos", "mask")]
    n, T = MASK_PREDICT_LENGTH, MASK_PREDICT_ITERATIONS
    src = torch.tensor([source])
    tokens, probs = [sp["mask"]] * n, [0.0] * n
    steps, gaps = [], []
    with torch.no_grad():
        for t in range(1, T + 1):
            n_mask = n if t == 1 else n * (T - t + 1) // T
            order = sorted(range(n), key=lambda i: probs[i])  # stable: ties go to the earlier position
            if 0 < n_mask < n:
                gaps.append(probs[order[n_mask]] - probs[order[n_mask - 1]])
            masked = set(order[:n_mask])
            fed = [sp["mask"] if i in masked else tokens[i] for i in range(n)]
            out = ref(src, torch.tensor([fed]), return_attn=True)
            lp = torch.log_softmax(out["logits"][0], -1)
            lp[:, banned] = float("-inf")
            for i in masked:
                tokens[i] = int(lp[i].argmax())
                probs[i] = lp[i].max().exp().item()
            steps.append({"fed": fed, "tokens": list(tokens),
                          "dec_self_attn": attn_of(out["dec_self_attn"], n, n)})
    print(f"  mask-predict: smallest confidence gap at a re-mask cut {min(gaps, default=float('inf')):.4f}")
    S = len(source)
    return {"source": 0, "length": n, "iterations": T,
            "enc_self_attn": attn_of(out["enc_self_attn"], S, S), "steps": steps}


def stored_reference(model, cfg, name, dtype):
    """Export the model as tests/fixtures/NAME.safetensors, then reload the stored weights
    (f16-rounded, int8- or 4-bit-dequantized) as a float64 reference: -> (path, its config, reference)."""
    path = os.path.join(OUT_DIR, name + ".safetensors")
    export(model, cfg, path, dtype)
    cfg_loaded, sd = load_model_file(path)
    ref = build_model(cfg_loaded).double().eval()
    ref.load_state_dict({k: v.double() for k, v in sd.items()})
    return path, cfg_loaded, ref


def build_fixture(name, overrides, dtype, seed):
    cfg = dict(BASE, **overrides, name=f"fixture {name}",
               description=PROVENANCE)
    gen = torch.Generator().manual_seed(seed)
    model = build_model(cfg)
    randomize(model, gen)
    path, cfg_loaded, ref = stored_reference(model, cfg, name, dtype)

    sources, targets = make_inputs(cfg_loaded, gen)
    src, src_mask = pad_batch(sources, cfg_loaded["src_specials"]["pad"])
    tgt, tgt_mask = pad_batch(targets, cfg_loaded["tgt_specials"]["pad"])
    with torch.no_grad():
        out = ref(src, tgt, src_mask, tgt_mask, return_attn=True)
        # Padding must not change anything: compare with each example alone.
        for b in range(len(sources)):
            one = ref(src[b:b + 1, :len(sources[b])], tgt[b:b + 1, :len(targets[b])], return_attn=True)
            d = (one["logits"][0] - out["logits"][b, :len(targets[b])]).abs().max().item()
            assert d < 1e-9, f"{name}: padded vs unpadded logits differ by {d}"
            if "length_logits" in out:
                d = (one["length_logits"][0] - out["length_logits"][b]).abs().max().item()
                assert d < 1e-9, f"{name}: padded vs unpadded length logits differ by {d}"

    fx = {"model": name + ".safetensors", "tolerance": 1e-4, "sources": sources, "targets": targets}
    B = len(sources)
    fx["logits"] = [r(out["logits"][b, :len(targets[b])].tolist()) for b in range(B)]

    def attn(key, rows, cols):
        res = []
        for b in range(B):
            S, T = rows[b], cols[b]
            res.append([r(layer[b, :, :S, :T].tolist()) for layer in out[key]])
        return res

    sl, tl = [len(s) for s in sources], [len(t) for t in targets]
    fx["enc_self_attn"] = attn("enc_self_attn", sl, sl)
    fx["dec_self_attn"] = attn("dec_self_attn", tl, tl)
    fx["cross_attn"] = attn("cross_attn", tl, sl)
    if "length_logits" in out:
        fx["length_logprobs"] = r(torch.log_softmax(out["length_logits"], -1).tolist())
        fx["forced"] = forced_cmlm(ref, sources, targets, cfg_loaded)
    else:
        fx["forced"] = forced_ar(out["logits"], targets, cfg_loaded["tgt_specials"]["eos"])
    # A whole decode, with the engine's rules, and the self-attention the
    # snapshots of that decode must carry (after every use of `gen`: the numbers above stay).
    if cfg_loaded["arch"] == "cmlm":
        fx["mask_predict"] = mask_predict_fixture(ref, cfg_loaded, sources[0])
    else:
        fx["greedy"] = greedy_fixture(ref, cfg_loaded, sources)
    with open(os.path.join(OUT_DIR, name + ".json"), "w") as f:
        json.dump(fx, f, separators=(",", ":"))
        f.write("\n")

    # Report how peaked the attention is (a meaningful test has max probs well
    # between uniform and one-hot).
    maxp = torch.cat([a[b, :, :tl[b] if k != "enc_self_attn" else sl[b]].max(-1).values.flatten()
                      for k in ("enc_self_attn", "dec_self_attn", "cross_attn")
                      for a in out[k] for b in range(B)])
    lg = torch.cat([out["logits"][b, :tl[b]].flatten() for b in range(B)])
    print(f"{name:36s} {dtype}  attn max-prob mean {maxp.mean():.3f} (min {maxp.min():.3f}, max {maxp.max():.3f})"
          f"  |logits| max {lg.abs().max():.2f}  file {os.path.getsize(path)} B")


# ----------------------------------------------------------------------------
# RNN encoder-decoder fixtures ("arch": "rnn")
# ----------------------------------------------------------------------------

RNN_BASE = {
    "arch": "rnn", "cell": "gru", "emb_dim": 16, "enc_hidden": 12, "dec_hidden": 24, "max_pos": 32,
    "src_vocab": SRC_VOCAB, "tgt_vocab": TGT_VOCAB,
    "src_specials": {"pad": 0, "unk": 1},
    "tgt_specials": {"pad": 0, "unk": 1, "bos": 2, "eos": 3, "mask": 4},
    "src_case": "upper",
}

# name -> config overrides (all stored as F32)
RNN_FIXTURES = {
    "rnn_dot": {"attention": "dot", "attn_dim": 0, "enc_layers": 1},
    "rnn_multiplicative": {"attention": "multiplicative", "attn_dim": 0, "enc_layers": 2},
    "rnn_reduced_rank": {"attention": "reduced_rank", "attn_dim": 8, "enc_layers": 1},
    "rnn_additive": {"attention": "additive", "attn_dim": 8, "enc_layers": 1},
    "rnn_none": {"attention": "none", "attn_dim": 0, "enc_layers": 1},  # no attention: the fixed context vector
}

# Standard deviations of the random weights, by parameter-name prefix (first match).
RNN_STD = [
    ("src_embed.", 0.5), ("tgt_embed.", 0.5),
    ("encoder.rnn.weight", 0.4), ("decoder.cell.weight", 0.4), ("bridge.weight", 0.4),
    ("attn.W.", 0.5), ("attn.U.", 0.5), ("attn.V.", 0.5), ("attn.W1.", 0.5), ("attn.W2.", 0.5),
    ("attn.v.", 1.2), ("out.weight", 0.3),
    ("", 0.2),  # biases: encoder/decoder GRU, bridge, out
]


def randomize_rnn(model, gen):
    with torch.no_grad():
        for name, p in model.named_parameters():
            std = next(sd for prefix, sd in RNN_STD if name.startswith(prefix))
            p.copy_((std * torch.randn(p.shape, generator=gen, dtype=torch.float64)).to(p.dtype))


def _gru_gates(x, h, w_ih, w_hh, b_ih, b_hh):
    """-> (h', r, z, n-preactivation) with PyTorch's GRU equations (gate rows r, z, n)."""
    H = h.shape[0]
    gi, gh = w_ih @ x + b_ih, w_hh @ h + b_hh
    r = torch.sigmoid(gi[:H] + gh[:H])
    z = torch.sigmoid(gi[H:2 * H] + gh[H:2 * H])
    npre = gi[2 * H:] + r * gh[2 * H:]
    return (1 - z) * torch.tanh(npre) + z * h, r, z, npre


def rnn_gate_stats(model, sources, targets):
    """Gate values of every GRU step (encoder layers, both directions, decoder):
    -> (fraction of r/z outside [0.02, 0.98], fraction of |n pre-activation| > 3, max |n pre|)."""
    sd = model.state_dict()
    cfg = model.config
    H = cfg["enc_hidden"]
    rz, npre = [], []
    for src, tgt in zip(sources, targets):
        x = [sd["src_embed.weight"][i] for i in src]
        S = len(x)
        for k in range(cfg["enc_layers"]):
            outs = []
            for sfx, order in (("", range(S)), ("_reverse", range(S - 1, -1, -1))):
                w = [sd[f"encoder.rnn.{n}_l{k}{sfx}"] for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
                h, o = torch.zeros(H, dtype=torch.float64), [None] * S
                for j in order:
                    h, r, z, n = _gru_gates(x[j], h, *w)
                    o[j] = h
                    rz += [r, z]
                    npre.append(n)
                outs.append(o)
            x = [torch.cat([outs[0][j], outs[1][j]]) for j in range(S)]
        s = torch.tanh(sd["bridge.weight"] @ torch.cat([x[S - 1][:H], x[0][H:]]) + sd["bridge.bias"])
        w = [sd[f"decoder.cell.{n}"] for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
        for y in tgt:
            s, r, z, n = _gru_gates(sd["tgt_embed.weight"][y], s, *w)
            rz += [r, z]
            npre.append(n)
    rz, npre = torch.cat(rz), torch.cat(npre)
    return ((rz < 0.02) | (rz > 0.98)).double().mean().item(), (npre.abs() > 3).double().mean().item(), \
        npre.abs().max().item()


def build_rnn_fixture(name, overrides, seed):
    cfg = dict(RNN_BASE, **overrides, name=f"fixture {name}",
               description=PROVENANCE)
    gen = torch.Generator().manual_seed(seed)
    model = build_model(cfg)
    randomize_rnn(model, gen)
    path, cfg_loaded, ref = stored_reference(model, cfg, name, "f32")

    sources, targets = make_inputs(cfg_loaded, gen)
    src, _ = pad_batch(sources, cfg_loaded["src_specials"]["pad"])
    tgt, _ = pad_batch(targets, cfg_loaded["tgt_specials"]["pad"])
    sl, tl = [len(s) for s in sources], [len(t) for t in targets]
    B = len(sources)
    with torch.no_grad():
        logits, attn = ref(src, tgt, torch.tensor(sl))
        if attn is None:  # attention none: no weights, the logits alone
            attn = torch.zeros(B, max(tl), max(sl), dtype=logits.dtype)
        for b in range(B):
            assert torch.all(attn[b, :, sl[b]:] == 0), f"{name}: padded source positions got probability"
            one_logits, one_attn = ref(src[b:b + 1, :sl[b]], tgt[b:b + 1, :tl[b]])
            if one_attn is None:
                one_attn = attn[b:b + 1, :tl[b], :sl[b]]
            d = max((one_logits[0] - logits[b, :tl[b]]).abs().max().item(),
                    (one_attn[0] - attn[b, :tl[b], :sl[b]]).abs().max().item())
            assert d < 1e-9, f"{name}: padded vs unpadded differ by {d}"

    fx = {"model": name + ".safetensors", "tolerance": 1e-4, "sources": sources, "targets": targets,
          "logits": [r(logits[b, :tl[b]].tolist()) for b in range(B)],
          **({} if overrides["attention"] == "none" else {"cross_attn": [r(attn[b, :tl[b], :sl[b]].tolist()) for b in range(B)]}),
          "forced": forced_ar(logits, targets, cfg_loaded["tgt_specials"]["eos"])}
    with open(os.path.join(OUT_DIR, name + ".json"), "w") as f:
        json.dump(fx, f, separators=(",", ":"))
        f.write("\n")

    maxp = torch.cat([attn[b, :tl[b], :sl[b]].max(-1).values for b in range(B)])
    lg = torch.cat([logits[b, :tl[b]].flatten() for b in range(B)])
    sat_rz, sat_n, max_n = rnn_gate_stats(ref, sources, targets)
    print(f"{name:36s} f32  attn max-prob mean {maxp.mean():.3f} (min {maxp.min():.3f}, max {maxp.max():.3f})"
          f"  |logits| max {lg.abs().max():.2f}  gates r/z outside [.02,.98] {100 * sat_rz:.1f}%"
          f"  |n pre| > 3 {100 * sat_n:.1f}% (max {max_n:.2f})  file {os.path.getsize(path)} B")


def main():
    torch.set_num_threads(2)
    os.makedirs(OUT_DIR, exist_ok=True)
    for i, (name, (overrides, dtype)) in enumerate(FIXTURES.items()):
        build_fixture(name, overrides, dtype, seed=1000 + i)
    for i, (name, overrides) in enumerate(RNN_FIXTURES.items()):
        build_rnn_fixture(name, overrides, seed=2000 + i)


if __name__ == "__main__":
    main()
