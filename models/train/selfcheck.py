"""Self-checks of the reference model and exporter (no C++ needed).

    /usr/bin/python3 -m models.train selfcheck

1. Cross-checks Seq2SeqTransformer against torch's own nn.TransformerEncoderLayer /
   nn.TransformerDecoderLayer (same weights, post- and pre-LN, relu and gelu),
   so the hand-written attention/blocks are independently confirmed.
2. Export -> load_model_file round trip (f32 exact, f16 within rounding, int8 within
   half a step of its row's scale, all-zero rows exact); an offset length head's
   remapping equals a plain loop over lengths.
3. Masked keys get probability exactly 0 and fully padded query rows give no NaN.
4. RnnSeq2Seq ("arch": "rnn", all four attention scores, 1 and 2 encoder layers):
   the encoder equals a hand-written GRU loop (the spec's equations, each example
   over its own length, both directions), the whole forward equals a hand-written
   decoder loop (spec formulas for s_0, the scores, softmax, [a; s]), incremental
   decoding (init_state/step/reorder_state) equals the full forward, padding changes
   nothing, padded source positions get probability exactly 0, export round trip.
5. Ensemble (ensemble.py): one member, or copies of one member, give that member's
   distribution and its greedy/beam outputs; two members give the mean of their
   probabilities. The token-level distillation term of recipe.train_autoregressive,
   with a one-hot teacher, equals plain cross-entropy.
6. soft_targets.compute resumed from its partial file equals an uninterrupted run.
7. A warm start by target token name (--init-rows-by-name, a stressed model from a
   stress-free file), Transformer and RNN: every AH0/AH1/AH2 row is AH's, the other
   tensors are the file's, and the new model's logits for a prefix of stressed tokens
   are the old model's for the same prefix without stress, column for column; a token
   with no source row is refused. WER/PER with stress removed (metrics).
8. The copy mechanism (copy_distribution): the log-space mix equals the plain sum
   p_gen P_vocab + (1 - p_gen) sum_i a_i [x_i = w] with a loop over the source, its
   gradients are finite with the gate far out either way and with padded source
   positions, copy_nll_loss without copy-only tokens is F.cross_entropy with label
   smoothing; a copy model (Transformer and RNN, word-level) round-trips through the
   exporter with its copy_gate and its keys, and a model without them is written
   without the keys.
"""

import os
import tempfile

import torch
import torch.nn as nn

import torch.nn.functional as F

from .seq2seq_torch import build_model, copy_distribution, copy_nll_loss, source_copy_ids
from .export import export, load_model_file, read_safetensors

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
        with torch.no_grad():
            m.out_proj.weight[3].zero_()  # an all-zero row: scale 0, stored exactly
        for levels in (127, 19):  # 127: the default; fewer levels: a file that gzips smaller
            export(m, c, p, "i8", i8_levels=levels)
            _, sd = load_model_file(p)
            for k, v in m.state_dict().items():
                if v.dim() == 2:  # |w - q*s| <= s/2 (plus float rounding), s = max|row| / levels, |q| <= levels
                    step = v.abs().amax(1, keepdim=True) / levels
                    assert bool(((sd[k] - v).abs() <= step * 0.5 + 1e-6).all()), (levels, k)
                    assert not bool(torch.equal(sd[k], v)), f"{k} was not quantized"
                    q = sd[k] / torch.where(step > 0, step, torch.ones_like(step))
                    assert float(q.abs().max()) <= levels + 1e-3 and float((q - q.round()).abs().max()) < 1e-3, (levels, k)
                else:
                    assert torch.equal(sd[k], v), k
            assert bool((sd["out_proj.weight"][3] == 0).all())
    # offset length head: logits over absolute lengths, = head class L - S + C where it exists
    c = cfg(arch="cmlm", length_offset=3)
    m = build_model(c).eval()
    randomize(m, 8)
    src = torch.tensor([[5, 6, 7, 8, 0, 0], [5, 6, 7, 8, 9, 5]])
    with torch.no_grad():
        memory, spm, _ = m.encode(src)
        got = m.length_logits(memory, spm)
        keep = (~spm).float().unsqueeze(-1)
        head = m.length_head((memory * keep).sum(1) / keep.sum(1))
    K = c["max_target_len"] + 1
    for b, S in enumerate((4, 6)):
        for L in range(K):
            k = L - S + 3
            want = head[b, k] if 0 <= k < K else torch.tensor(-1e4)
            assert torch.equal(got[b, L], want), (b, L)
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


# ----------------------------------------------------------------------------
# RNN
# ----------------------------------------------------------------------------

def rnn_cfg(attention, enc_layers=1, attn_dim=0):
    return dict(arch="rnn", emb_dim=5, enc_hidden=4, enc_layers=enc_layers, dec_hidden=8, attention=attention,
                attn_dim=attn_dim, max_pos=16, src_vocab=SRC_VOCAB, tgt_vocab=TGT_VOCAB)


RNN_CASES = [("dot", 1, 0), ("multiplicative", 2, 0), ("reduced_rank", 1, 3), ("additive", 2, 6),
             ("additive", 1, 5), ("dot", 2, 0), ("none", 1, 0), ("none", 2, 0)]


def gru_step(x, h, w_ih, w_hh, b_ih, b_hh):
    """The spec's GRU, written out: rows [0,H) r, [H,2H) z, [2H,3H) n."""
    H = h.shape[0]
    gi = w_ih @ x + b_ih
    gh = w_hh @ h + b_hh
    r = torch.sigmoid(gi[:H] + gh[:H])
    z = torch.sigmoid(gi[H:2 * H] + gh[H:2 * H])
    n = torch.tanh(gi[2 * H:] + r * gh[2 * H:])
    return (1 - z) * n + z * h


def manual_encoder(m, src_ids):
    """One example (a list of ids, no padding) -> list over layers of [S, 2H]."""
    sd = m.state_dict()
    H = m.config["enc_hidden"]
    x = [sd["src_embed.weight"][i] for i in src_ids]
    S = len(x)
    layers = []
    for k in range(m.config["enc_layers"]):
        outs = []
        for sfx, order in (("", range(S)), ("_reverse", range(S - 1, -1, -1))):
            w = [sd[f"encoder.rnn.{n}_l{k}{sfx}"] for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
            h = torch.zeros(H, dtype=torch.float64)
            o = [None] * S
            for j in order:
                h = gru_step(x[j], h, *w)
                o[j] = h
            outs.append(o)
        x = [torch.cat([outs[0][j], outs[1][j]]) for j in range(S)]
        layers.append(torch.stack(x))
    return layers


def manual_forward(m, src_ids, tgt_ids):
    """One example -> (logits [T,Vt], alpha [T,S]) from the spec's formulas."""
    sd = m.state_dict()
    c = m.config
    H = c["enc_hidden"]
    h = manual_encoder(m, src_ids)[-1]  # [S, 2H]
    S = h.shape[0]
    s = torch.tanh(sd["bridge.weight"] @ torch.cat([h[S - 1, :H], h[0, H:]]) + sd["bridge.bias"])
    cell = [sd[f"decoder.cell.{n}"] for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    logits, alphas = [], []
    for y in tgt_ids:
        s = gru_step(sd["tgt_embed.weight"][y], s, *cell)
        if c["attention"] == "none":  # the fixed context vector c, no scores
            a = torch.cat([h[S - 1, :H], h[0, H:]])
            logits.append(sd["out.weight"] @ torch.cat([a, s]) + sd["out.bias"])
            continue
        e = []
        for j in range(S):
            if c["attention"] == "dot":
                e.append(s @ h[j])
            elif c["attention"] == "multiplicative":
                e.append(s @ (sd["attn.W.weight"] @ h[j]))
            elif c["attention"] == "reduced_rank":
                e.append((sd["attn.U.weight"] @ s) @ (sd["attn.V.weight"] @ h[j]))
            else:
                e.append(sd["attn.v.weight"][0] @ torch.tanh(sd["attn.W1.weight"] @ h[j] + sd["attn.W2.weight"] @ s))
        e = torch.stack(e)
        alpha = torch.exp(e - e.max()) / torch.exp(e - e.max()).sum()
        a = (alpha[:, None] * h).sum(0)
        logits.append(sd["out.weight"] @ torch.cat([a, s]) + sd["out.bias"])
        alphas.append(alpha)
    return torch.stack(logits), (torch.stack(alphas) if alphas else None)


def _maxdiff(x, y):
    """max |x - y|, 0 for empty tensors (attention "none" has no attention weights)."""
    return (x - y).abs().max().item() if x.numel() else 0.0


def check_rnn(attention, enc_layers, attn_dim, seed):
    c = rnn_cfg(attention, enc_layers, attn_dim)
    m = build_model(c).double().eval()
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _, p in m.named_parameters():
            p.copy_(0.5 * torch.randn(p.shape, generator=g, dtype=p.dtype))
    lens_s, lens_t = [6, 3, 7], [5, 2, 4]
    srcs = [torch.randint(2, len(SRC_VOCAB), (n,), generator=g).tolist() for n in lens_s]
    tgts = [[2] + torch.randint(5, len(TGT_VOCAB), (n - 1,), generator=g).tolist() for n in lens_t]
    src = torch.zeros(3, max(lens_s), dtype=torch.long)
    tgt = torch.zeros(3, max(lens_t), dtype=torch.long)
    for b in range(3):
        src[b, :lens_s[b]] = torch.tensor(srcs[b])
        tgt[b, :lens_t[b]] = torch.tensor(tgts[b])
    worst = 0.0
    with torch.no_grad():
        logits, alpha = m(src, tgt, torch.tensor(lens_s))
        memory, spm, _ = m.encode(src)
        # padded source positions: encoder output exactly 0, attention probability exactly 0
        assert torch.all(memory[1, 3:] == 0) and torch.all(memory[0, 6:] == 0)
        none = alpha is None
        assert none == (attention == "none")
        if none:  # no attention: compare logits only, against a zero-width stand-in
            alpha = torch.zeros(3, max(lens_t), 0, dtype=logits.dtype)
        assert torch.all(alpha[1, :, 3:] == 0) and torch.all(alpha[0, :, 6:] == 0)
        for b in range(3):
            ref_layers = manual_encoder(m, srcs[b])
            d = _maxdiff(memory[b, :lens_s[b]], ref_layers[-1])
            assert d < 1e-12, ("encoder", attention, d)
            worst = max(worst, d)
            ref_logits, ref_alpha = manual_forward(m, srcs[b], tgts[b])
            if ref_alpha is None:
                ref_alpha = alpha[b, :lens_t[b], :0]
            d = max(_maxdiff(logits[b, :lens_t[b]], ref_logits),
                    _maxdiff(alpha[b, :lens_t[b], :lens_s[b]], ref_alpha))
            assert d < 1e-12, ("forward", attention, d)
            worst = max(worst, d)
            # alone (no padding) = in the padded batch
            lo, ao = m(src[b:b + 1, :lens_s[b]], tgt[b:b + 1, :lens_t[b]])
            if ao is None:
                ao = alpha[b:b + 1, :lens_t[b]]
            d = max(_maxdiff(lo[0], logits[b, :lens_t[b]]),
                    _maxdiff(ao[0], alpha[b, :lens_t[b], :lens_s[b]]))
            assert d < 1e-12, ("alone", attention, d)
            worst = max(worst, d)
        # incremental decoding == full forward, with a beam-style reorder in the middle
        K = 2
        mem_k, spm_k = memory.repeat_interleave(K, 0), spm.repeat_interleave(K, 0)
        state = m.init_state(mem_k, spm_k)
        tgt_k = tgt.repeat_interleave(K, 0)
        perm = torch.tensor([1, 0, 3, 2, 5, 4])  # swap the two hypotheses of each source (identical rows)
        for t in range(tgt.shape[1]):
            lt, state, at = m.step(tgt_k[:, t], state, mem_k, spm_k)
            if at is None:
                at = alpha.repeat_interleave(K, 0)[:, t]
            d = max(_maxdiff(lt, logits.repeat_interleave(K, 0)[:, t]),
                    _maxdiff(at, alpha.repeat_interleave(K, 0)[:, t]))
            assert d < 1e-12, ("incremental", attention, t, d)
            worst = max(worst, d)
            state = m.reorder_state(state, perm)
    return worst


def check_rnn_export():
    for attention, layers, r in RNN_CASES[:4] + RNN_CASES[-1:]:
        c = rnn_cfg(attention, layers, r)
        m = build_model(c)
        with tempfile.TemporaryDirectory() as td:
            p = os.path.join(td, "m.safetensors")
            export(m, c, p, "f32")
            c2, sd = load_model_file(p)
            assert all(torch.equal(sd[k], v) for k, v in m.state_dict().items())
            assert c2["arch"] == "rnn" and "d_model" not in c2 and "max_target_len" not in c2
            assert c2["attn_dim"] == r
    # Transformer fields are not rnn fields; dot needs D == 2H
    for bad in ({"d_model": 16}, {"max_target_len": 8}, {"dec_hidden": 6}):
        try:
            build_model(dict(rnn_cfg("dot"), **bad))
        except ValueError:
            continue
        raise AssertionError(f"accepted {bad}")


def check_ensemble():
    from .ensemble import Ensemble
    from .g2p_common import Codec, ar_beam, ar_greedy
    from . import recipe
    torch.manual_seed(5)
    c = cfg(arch="transformer", src_specials={"pad": 0, "unk": 1},
            tgt_specials={"pad": 0, "unk": 1, "bos": 2, "eos": 3, "mask": 4})
    a, b = build_model(c).eval(), build_model(c).eval()
    b2 = build_model(c).eval()
    b2.load_state_dict(b.state_dict())
    src = torch.tensor([[2, 3, 4, 5], [6, 7, 0, 0]])
    tgt = torch.tensor([[2, 5, 6, 7], [2, 8, 0, 0]])
    worst = 0.0
    for ens, want in ((Ensemble([a]), torch.log_softmax(a(src, tgt)["logits"], -1)),
                      (Ensemble([b, b2]), torch.log_softmax(b(src, tgt)["logits"], -1)),
                      (Ensemble([a, b]), torch.log((torch.softmax(a(src, tgt)["logits"], -1) +
                                                    torch.softmax(b(src, tgt)["logits"], -1)) / 2))):
        memory, spm, _ = ens.eval().encode(src)
        got, _, _ = ens.decode(tgt, memory, spm, tgt.eq(0))
        worst = max(worst, (got - want).abs().max().item())
    assert worst < 1e-5, ("ensemble", worst)
    codec = Codec({"src_vocab": SRC_VOCAB, "tgt_vocab": TGT_VOCAB, "src_specials": c["src_specials"],
                   "tgt_specials": c["tgt_specials"]})
    words = ["ABC", "HGFEDCBA", "D"]
    assert ar_greedy(Ensemble([a]), codec, words, 8) == ar_greedy(a, codec, words, 8)
    assert ar_beam(Ensemble([b, b2]), codec, words, 8, 3) == ar_beam(b, codec, words, 8, 3)
    # a one-hot teacher: the distillation term is the cross-entropy to the reference
    logits = torch.randn(2, 5, len(TGT_VOCAB))
    tout = torch.tensor([[5, 6, 7, 3, 0], [8, 3, 0, 0, 0]])
    exs = [([2], [5, 6, 7], (torch.tensor([[5, 1], [6, 1], [7, 1], [3, 1]]), torch.tensor([[1.0, 0]] * 4))),
           ([2], [8], (torch.tensor([[8, 2], [3, 2]]), torch.tensor([[1.0, 0]] * 2)))]
    idx, prob = recipe.soft_target_batch(exs, 5)
    kd = recipe.distillation_loss(logits, idx, prob, tout.ne(0))
    ce = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1), ignore_index=0)
    assert abs(kd.item() - ce.item()) < 1e-6, (kd.item(), ce.item())
    return worst


def check_soft_targets_resume():
    """soft_targets.compute resumed from its partial file gives the uninterrupted run's
    tensors; a partial file of another record is not used."""
    from . import soft_targets
    from .g2p_common import Codec
    torch.manual_seed(6)
    c = cfg(arch="transformer", src_specials={"pad": 0, "unk": 1},
            tgt_specials={"pad": 0, "unk": 1, "bos": 2, "eos": 3, "mask": 4})
    codec = Codec(c)
    g = torch.Generator().manual_seed(7)
    rows = []
    for _ in range(11):
        n, m = (int(x) for x in torch.randint(1, 7, (2,), generator=g))
        rows.append(("".join("ABCDEFGH"[int(i)] for i in torch.randint(0, 8, (n,), generator=g)),
                     [f"P{int(i)}" for i in torch.randint(0, 9, (m,), generator=g)]))
    with tempfile.TemporaryDirectory() as d:
        teacher, partial = os.path.join(d, "t.safetensors"), os.path.join(d, "soft.partial")
        export(build_model(c).eval(), c, teacher, "f32")
        whole = soft_targets.compute([teacher], rows, codec, top_k=4, batch_size=2)
        # 6 batches (11 rows, 2 a batch); the partial file is written after batches 3
        # and 6: rewind it to batch 3, as if the run had been killed during batch 4
        first = soft_targets.compute([teacher], rows, codec, top_k=4, batch_size=2, partial=partial,
                                     record={"r": 1}, save_every=3)
        saved = torch.load(partial)
        assert len(saved["lengths"]) == 11, len(saved["lengths"])
        k = int(saved["lengths"][:6].sum())  # rewind to 3 batches (6 rows)
        torch.save({**saved, "lengths": saved["lengths"][:6], "indices": saved["indices"][:k],
                    "probs": saved["probs"][:k]}, partial)
        rewound = torch.load(partial)
        resumed = soft_targets.compute([teacher], rows, codec, top_k=4, batch_size=2, partial=partial,
                                       record={"r": 1}, save_every=3)
        # and it did take those 6 rows from the file: marked there, they come out marked
        torch.save({**rewound, "probs": rewound["probs"] + 1}, partial)
        marked = soft_targets.compute([teacher], rows, codec, top_k=4, batch_size=2, partial=partial,
                                      record={"r": 1}, save_every=100)
        assert int((marked[1] != whole[1]).any(-1).sum()) == k, "the resumed rows were not read from the file"
        other = soft_targets.compute([teacher], rows, codec, top_k=4, batch_size=2, partial=partial,
                                     record={"r": 2}, save_every=100)
        for got in (first, resumed, other):
            assert all(torch.equal(x, y) for x, y in zip(whole, got)), "soft targets differ after a resume"


def check_rows_by_name():
    from . import trainer
    from .metrics import score, score_stress_removed
    old_vocab = TGT_VOCAB[:5] + ["AH", "B", "IY"]
    new_vocab = TGT_VOCAB[:5] + ["AH0", "AH1", "AH2", "B", "IY0", "IY1", "IY2"]
    old_ids = [old_vocab.index(t.rstrip("012")) for t in new_vocab]
    worst = 0.0
    for c_old in (cfg(arch="transformer", tgt_vocab=old_vocab), rnn_cfg("additive", attn_dim=6)):
        c_old = {**c_old, "tgt_vocab": old_vocab}
        c_new = {**c_old, "tgt_vocab": new_vocab}
        old, new = build_model(c_old), build_model(c_new)
        randomize(old, 21)
        randomize(new, 22)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "old.safetensors")
            export(old.eval(), c_old, path, "f32")
            record = trainer.warm_start(new, path, "", d, new_vocab)
            _, file_weights = load_model_file(path)
            try:
                trainer.warm_start(build_model(c_new), path, "", d, new_vocab + ["ZH1"])
                raise AssertionError("a token without a source row was accepted")
            except SystemExit as e:
                assert "ZH1" in str(e), e
        sd = new.state_dict()
        assert record["rows_by_name"] and set(record["rows_by_name"]) <= set(trainer.TARGET_ROW_TENSORS)
        for k, v in sd.items():
            want = file_weights[k][old_ids] if k in record["rows_by_name"] else file_weights[k]
            assert torch.equal(v, want), k
        new.eval()
        src = torch.tensor([[2, 5, 7, 3]])
        prefix_new = torch.tensor([[2, 6, 8, 11, 9]])  # <s> AH1 B IY1 AH0
        prefix_old = torch.tensor([[old_ids[i] for i in prefix_new[0].tolist()]])
        with torch.no_grad():
            if c_old["arch"] == "rnn":
                lo, ln = old(src, prefix_old, torch.tensor([4]))[0], new(src, prefix_new, torch.tensor([4]))[0]
            else:
                pad = torch.zeros_like
                lo = old(src, prefix_old, pad(src, dtype=torch.bool), pad(prefix_old, dtype=torch.bool))["logits"]
                ln = new(src, prefix_new, pad(src, dtype=torch.bool), pad(prefix_new, dtype=torch.bool))["logits"]
        worst = max(worst, _maxdiff(ln, lo[..., old_ids]))
    assert worst < 1e-5, worst
    hyps = {"A": ("AH1", "B"), "B": ("B", "IY0"), "C": ("IY1",)}
    refs = {"A": [("AH0", "B"), ("AH1", "B")], "B": [("B", "IY1")], "C": [("IY",)]}
    assert score(hyps, refs) == (200 / 3, 100 * 2 / 5)
    assert score_stress_removed(hyps, refs) == (0.0, 0.0)
    return worst


def check_copy():
    g = torch.Generator().manual_seed(5)
    B, T, S, V, extra = 2, 3, 4, 6, 2
    lpv = torch.log_softmax(torch.randn(B, T, V, generator=g, dtype=torch.float64), -1)
    attn = torch.softmax(torch.randn(B, T, S, generator=g, dtype=torch.float64), -1)
    attn[1, :, 3] = 0.0  # a padded source position of the second example
    attn[1] /= attn[1].sum(-1, keepdim=True)
    ids = torch.tensor([[4, V, 2, V + 1], [V, V, 5, 0]])
    for scale in (1.0, 60.0):  # p_gen well inside (0, 1), and at its ends
        gate = (scale * torch.randn(B, T, generator=g, dtype=torch.float64)).requires_grad_()
        a = attn.clone().requires_grad_()
        lp = copy_distribution(lpv, gate, a, ids, extra)
        want = torch.zeros(B, T, V + extra, dtype=torch.float64)
        p = torch.sigmoid(gate.detach())
        for b in range(B):
            for t in range(T):
                want[b, t, :V] = p[b, t] * lpv[b, t].exp()
                for i in range(S):
                    want[b, t, ids[b, i]] += (1 - p[b, t]) * attn[b, t, i]
        got = lp.exp()
        assert torch.allclose(got, want, atol=1e-12), (got - want).abs().max()
        assert bool(torch.isneginf(lp[1, :, V + 1]).all())  # the second example has no second copy-only token
        copy_nll_loss(lp, torch.tensor([[V, 1, 0], [2, V, 3]]), V, 0, 0.1).backward()
        assert bool(torch.isfinite(gate.grad).all()) and bool(torch.isfinite(a.grad).all())
    x = torch.randn(5, 7, generator=g, dtype=torch.float64)
    y = torch.tensor([1, 0, 3, 6, 2])
    d = (copy_nll_loss(torch.log_softmax(x, -1), y, 7, 0, 0.1) - F.cross_entropy(x, y, ignore_index=0, label_smoothing=0.1)).abs()
    assert d < 1e-12, d
    assert source_copy_ids(["P1", "Q", "</s>", "Q"], TGT_VOCAB, {"pad": 0, "unk": 1, "bos": 2, "eos": 3, "mask": 4}) == \
        ([6, 14, 15, 14], ["Q", "</s>"])
    words = ["<pad>", "<unk>", "my", "name", "is"]
    for c in (cfg(arch="transformer", copy=True), cfg(arch="transformer", copy=True, src_vocab=words, src_tokens="words"),
              dict(arch="rnn", emb_dim=6, enc_hidden=4, dec_hidden=5, attention="additive", attn_dim=3, max_pos=16,
                   src_vocab=SRC_VOCAB, tgt_vocab=TGT_VOCAB, copy=True)):
        m = build_model(c)
        randomize(m, 9)
        with tempfile.TemporaryDirectory() as td:
            path = os.path.join(td, "m.safetensors")
            export(m, c, path, "f32")
            c2, sd = load_model_file(path)
            assert c2["copy"] and c2["src_tokens"] == c.get("src_tokens", "chars")
            assert all(torch.equal(sd[k], v) for k, v in m.state_dict().items()) and "copy_gate.weight" in sd
    c = cfg(arch="transformer")
    with tempfile.TemporaryDirectory() as td:
        path = os.path.join(td, "m.safetensors")
        export(build_model(c), c, path, "f32")
        written = read_safetensors(path)[0]["config"]
        assert '"copy"' not in written and '"src_tokens"' not in written, written


def main(argv=None):
    if argv:
        raise SystemExit(f"{__name__} takes no arguments, not {argv}")
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
    for i, (attention, layers, r) in enumerate(RNN_CASES):
        d = check_rnn(attention, layers, r, 100 + i)
        print(f"rnn {attention:14s} enc_layers {layers}: vs hand-written GRU/decoder, incremental, alone: "
              f"max |diff| {d:.2e}")
    check_rnn_export()
    print("rnn export round trip ok")
    d = check_ensemble()
    print(f"ensemble and distillation loss ok: max |diff| {d:.2e}")
    check_soft_targets_resume()
    print("soft targets resume ok")
    d = check_rows_by_name()
    print(f"warm start by target token name ok: max |diff| {d:.2e}; WER/PER with stress removed ok")
    check_copy()
    print("copy mechanism ok: the log-space mix is the plain one, finite gradients, export round trip")


if __name__ == "__main__":
    main()
