"""Self-checks of the reference model and exporter (no C++ needed).

    /usr/bin/python3 models/train/selfcheck.py

1. Cross-checks Seq2SeqTransformer against torch's own nn.TransformerEncoderLayer /
   nn.TransformerDecoderLayer (same weights, post- and pre-LN, relu and gelu),
   so the hand-written attention/blocks are independently confirmed.
2. Export -> load_model_file round trip (f32 exact, f16 within rounding).
3. Masked keys get probability exactly 0 and fully padded query rows give no NaN.
"""

import os
import sys
import tempfile

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seq2seq_torch import build_model  # noqa: E402
from export import export, load_model_file  # noqa: E402

SRC_VOCAB = ["<pad>", "<unk>"] + list("ABCDEFGH")
TGT_VOCAB = ["<pad>", "<unk>", "<s>", "</s>", "<mask>"] + [f"P{i}" for i in range(9)]


def cfg(**kw):
    c = dict(d_model=16, n_heads=4, d_ff=24, enc_layers=2, dec_layers=2, max_pos=16, max_target_len=8,
             src_vocab=SRC_VOCAB, tgt_vocab=TGT_VOCAB)
    c.update(kw)
    return c


def randomize(m, seed):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _, p in m.named_parameters():
            p.copy_(0.3 * torch.randn(p.shape, generator=g, dtype=p.dtype) + (1.0 if p.dim() == 1 else 0.0) * 0.1)


def copy_attn(ours, mha):
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([ours.q_proj.weight, ours.k_proj.weight, ours.v_proj.weight]))
        mha.in_proj_bias.copy_(torch.cat([ours.q_proj.bias, ours.k_proj.bias, ours.v_proj.bias]))
        mha.out_proj.weight.copy_(ours.o_proj.weight)
        mha.out_proj.bias.copy_(ours.o_proj.bias)


def copy_ffn_ln(ours, ref, lns):
    with torch.no_grad():
        ref.linear1.weight.copy_(ours.ffn.fc1.weight); ref.linear1.bias.copy_(ours.ffn.fc1.bias)
        ref.linear2.weight.copy_(ours.ffn.fc2.weight); ref.linear2.bias.copy_(ours.ffn.fc2.bias)
        for a, b in lns:
            getattr(ref, b).weight.copy_(getattr(ours, a).weight)
            getattr(ref, b).bias.copy_(getattr(ours, a).bias)


def check_against_torch(norm, act, arch, seed):
    c = cfg(norm=norm, activation=act, arch=arch)
    m = build_model(c).double().eval()
    randomize(m, seed)
    L, H, Fd = c["d_model"], c["n_heads"], c["d_ff"]
    first = norm == "pre"
    encs, decs = [], []
    for layer in m.encoder.layers:
        r = nn.TransformerEncoderLayer(L, H, Fd, dropout=0.0, activation=act, batch_first=True,
                                       norm_first=first).double().eval()
        copy_attn(layer.self_attn, r.self_attn)
        copy_ffn_ln(layer, r, [("ln1", "norm1"), ("ln2", "norm2")])
        encs.append(r)
    for layer in m.decoder.layers:
        r = nn.TransformerDecoderLayer(L, H, Fd, dropout=0.0, activation=act, batch_first=True,
                                       norm_first=first).double().eval()
        copy_attn(layer.self_attn, r.self_attn)
        copy_attn(layer.cross_attn, r.multihead_attn)
        copy_ffn_ln(layer, r, [("ln1", "norm1"), ("ln2", "norm2"), ("ln3", "norm3")])
        decs.append(r)
    g = torch.Generator().manual_seed(seed + 1)
    src = torch.randint(2, len(SRC_VOCAB), (3, 7), generator=g)
    src[1, 5:] = 0
    src[2, 3:] = 0
    tgt = torch.randint(5, len(TGT_VOCAB), (3, 6), generator=g)
    tgt[0, 4:] = 0
    spm, tpm = src.eq(0), tgt.eq(0)
    with torch.no_grad():
        out = m(src, tgt, spm, tpm)
        x = m.embed_src(src)
        for r in encs:
            x = r(x, src_key_padding_mask=spm)
        if m.encoder.final_ln is not None:
            x = m.encoder.final_ln(x)
        y = m.embed_tgt(tgt)
        causal = torch.ones(6, 6, dtype=torch.bool).triu(1) if arch == "transformer" else None
        for r in decs:
            y = r(y, x, tgt_mask=causal, tgt_key_padding_mask=tpm, memory_key_padding_mask=spm)
        if m.decoder.final_ln is not None:
            y = m.decoder.final_ln(y)
        ref = m.out_proj(y, m.tgt_embed.weight)
    valid = ~tpm
    d = (out["logits"][valid] - ref[valid]).abs().max().item()
    assert d < 1e-10, (norm, act, arch, d)
    return d


def check_roundtrip():
    c = cfg(arch="cmlm", pos="learned", tie_output=False)
    m = build_model(c)
    randomize(m, 7)
    with tempfile.TemporaryDirectory() as td:
        p = os.path.join(td, "m.safetensors")
        export(m, c, p, "f32")
        c2, sd = load_model_file(p)
        assert all(torch.equal(sd[k], v) for k, v in m.state_dict().items())
        export(m, c, p, "f16")
        _, sd = load_model_file(p)
        assert all(torch.equal(sd[k], v.half().float()) for k, v in m.state_dict().items())
        assert c2["arch"] == "cmlm"
    c = cfg()  # tied: no out_proj.weight key
    assert "out_proj.weight" not in build_model(c).state_dict()
    assert "out_proj.bias" in build_model(c).state_dict()


def check_masks():
    m = build_model(cfg()).eval()
    randomize(m, 3)
    src = torch.tensor([[3, 4, 5, 0, 0]])
    tgt = torch.tensor([[2, 6, 0, 0]])
    spm = src.eq(0)
    tpm = torch.tensor([[False, False, True, True]])
    with torch.no_grad():
        o = m(src, tgt, spm, tpm, return_attn=True)
    for a in o["enc_self_attn"] + o["cross_attn"]:
        assert torch.all(a[..., 3:] == 0)
    for a in o["dec_self_attn"]:
        assert torch.all(a.triu(1) == 0) and torch.all(a[..., 2:] == 0)
    # a fully padded source row: no NaN anywhere, probabilities 0
    spm_all = torch.ones_like(spm)
    with torch.no_grad():
        o = m(src, tgt, spm_all, tpm, return_attn=True)
    assert not torch.isnan(o["logits"]).any()
    assert all(torch.all(a == 0) for a in o["cross_attn"])


def main():
    torch.set_num_threads(2)
    for norm in ("post", "pre"):
        for act in ("relu", "gelu"):
            for arch in ("transformer", "cmlm"):
                d = check_against_torch(norm, act, arch, 11)
                print(f"vs torch.nn layers: {arch:11s} {norm:4s} {act}: max |diff| {d:.2e}")
    check_roundtrip()
    print("export round trip ok")
    check_masks()
    print("masks ok")


if __name__ == "__main__":
    main()
