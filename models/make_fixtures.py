"""Build the PyTorch parity fixtures in tests/fixtures/ (see tests/fixtures/README.md).

    /usr/bin/python3 models/make_fixtures.py

Small random-weight models, one per configuration below, each exported to
tests/fixtures/<name>.safetensors, with tests/fixtures/<name>.json holding the
inputs and the reference numbers (logits, attention probabilities, and for cmlm
the length log-probabilities). References are computed in float64 from the
stored (f32 or f16-rounded) weights, on a PADDED batch of three sources and
targets of different lengths, so masking is exercised. Deterministic.
"""

import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "train"))
from seq2seq_torch import build_model  # noqa: E402
from export import export, load_model_file  # noqa: E402

OUT_DIR = os.path.join(HERE, "..", "tests", "fixtures")

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
        if cfg["arch"] == "transformer":
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


def build_fixture(name, overrides, dtype, seed):
    cfg = dict(BASE, **overrides, name=f"fixture {name}",
               description="random weights, parity fixture from models/make_fixtures.py")
    gen = torch.Generator().manual_seed(seed)
    model = build_model(cfg)
    randomize(model, gen)
    path = os.path.join(OUT_DIR, name + ".safetensors")
    export(model, cfg, path, dtype)

    # Reference: reload the stored weights (f16-rounded for f16) and run in float64.
    cfg_loaded, sd = load_model_file(path)
    ref = build_model(cfg_loaded).double().eval()
    ref.load_state_dict({k: v.double() for k, v in sd.items()})

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


def main():
    torch.set_num_threads(2)
    os.makedirs(OUT_DIR, exist_ok=True)
    for i, (name, (overrides, dtype)) in enumerate(FIXTURES.items()):
        build_fixture(name, overrides, dtype, seed=1000 + i)


if __name__ == "__main__":
    main()
