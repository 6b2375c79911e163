"""Export an autoregressive seq2seq-wasm Transformer model file to ONNX (opset 14)
for bench/compare-runtimes.mjs, as two graphs with a decoder KV cache:

    encoder.onnx  src [1,S] int64
                  -> memory [1,S,L], cross_k, cross_v [layers,1,H,S,dh]
    decoder.onnx  tokens [k] int64 (the last token of each of k hypotheses),
                  position [] int64 (their index in the target, BOS = 0),
                  origin [k] int64 (the row of past_* each hypothesis continues),
                  past_k, past_v [layers,k',H,t,dh], cross_k, cross_v
                  -> logits [k,V], present_k, present_v [layers,k,H,t+1,dh]

One source per call (no padding, so no masks). The cache is gathered by origin
inside the decoder graph, the beam reorder our engine does after each step.

And a batched pair for the throughput mode (--batch), B sources padded together:

    encoder_batch.onnx  src [B,S] int64, src_pad [B,S] bool (True = padding)
                        -> memory [B,S,L], cross_k, cross_v [layers,B,H,S,dh]
    decoder_batch.onnx  as decoder.onnx, plus word [k] int64 (the source of each
                        row: its index in the encoder's batch) and src_pad;
                        cross_k, cross_v [layers,B,H,S,dh]

Padded keys are masked as the project's Attention masks them (-inf before the
softmax, 0 after), in the encoder and in cross-attention, so padding cannot
change a source's results; the decoder gathers each row's cross K/V and mask
by word, so the rows of several sources, each with its own live hypotheses,
run in one call.

    /usr/bin/python3 bench/export_onnx.py MODEL.safetensors OUT_DIR

The model is read by the project's loader (models/train/export.py) and the
graphs call its layers (models/train/seq2seq_torch.py); only the cached
attention is spelled out here, as the project's Attention computes K/V from its
input every call. bench/torch_decode.py runs the same modules eagerly.
"""

import math
import os
import sys
import warnings

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # the repository root
from models.train.export import load_model  # noqa: E402

OPSET = 14


def split_heads(x, attn):
    """[B,T,L] -> [B,H,T,dh]."""
    return x.view(x.shape[0], x.shape[1], attn.n_heads, attn.dh).transpose(1, 2)


def attend(attn, xq, k, v, key_mask=None):
    """The project's Attention.forward with K/V given ([B or 1,H,T,dh]); key_mask:
    bool, True = masked, broadcastable to the scores [B,H,1,T] (at least one key
    unmasked per row, so the project's all-masked guard is not needed)."""
    q = split_heads(attn.q_proj(xq), attn)
    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(attn.dh)
    if key_mask is not None:
        scores = scores.masked_fill(key_mask, float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    if key_mask is not None:
        probs = probs.masked_fill(key_mask, 0.0)
    ctx = torch.matmul(probs, v).transpose(1, 2).reshape(xq.shape[0], xq.shape[1], attn.d_model)
    return attn.o_proj(ctx)


class Encoder(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.m = model

    def forward(self, src, src_pad=None):
        x = self.m.embed_src(src)
        key_mask = None if src_pad is None else src_pad[:, None, None, :]
        for layer in self.m.encoder.layers:
            x, _ = layer(x, key_mask)
        if self.m.encoder.final_ln is not None:
            x = self.m.encoder.final_ln(x)
        # Cross-attention K/V do not change while decoding: computed once per word.
        ks, vs = [], []
        for layer in self.m.decoder.layers:
            ks.append(split_heads(layer.cross_attn.k_proj(x), layer.cross_attn))
            vs.append(split_heads(layer.cross_attn.v_proj(x), layer.cross_attn))
        return x, torch.stack(ks), torch.stack(vs)


class DecoderStep(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.m = model
        cfg = model.config
        self.register_buffer("pos_table", model._positions(cfg["max_pos"], model.tgt_pos, "cpu", torch.float32).detach())

    def layer(self, layer, y, pk, pv, ck, cv, cross_mask=None):
        """DecoderLayer.forward for one new position, self-attention over the cache."""
        sa = layer.self_attn

        def self_attention(h):
            k = torch.cat([pk, split_heads(sa.k_proj(h), sa)], 2)
            v = torch.cat([pv, split_heads(sa.v_proj(h), sa)], 2)
            return attend(sa, h, k, v), k, v

        if layer.pre:
            a, k, v = self_attention(layer.ln1(y))
            y = y + a
            y = y + attend(layer.cross_attn, layer.ln2(y), ck, cv, cross_mask)
            y = y + layer.ffn(layer.ln3(y))
        else:
            a, k, v = self_attention(y)
            y = layer.ln1(y + a)
            y = layer.ln2(y + attend(layer.cross_attn, y, ck, cv, cross_mask))
            y = layer.ln3(y + layer.ffn(y))
        return y, k, v

    def forward(self, tokens, position, origin, past_k, past_v, cross_k, cross_v, cross_mask=None):
        m = self.m
        y = m.tgt_embed(tokens[:, None]) * m.emb_scale + self.pos_table[position]
        past_k, past_v = past_k.index_select(1, origin), past_v.index_select(1, origin)
        ks, vs = [], []
        for i, layer in enumerate(m.decoder.layers):
            y, k, v = self.layer(layer, y, past_k[i], past_v[i], cross_k[i], cross_v[i], cross_mask)
            ks.append(k)
            vs.append(v)
        if m.decoder.final_ln is not None:
            y = m.decoder.final_ln(y)
        return m.out_proj(y, m.tgt_embed.weight)[:, 0], torch.stack(ks), torch.stack(vs)


class BatchDecoderStep(DecoderStep):
    """DecoderStep over the rows of several sources: row r continues source word[r]."""

    def forward(self, tokens, position, origin, word, past_k, past_v, cross_k, cross_v, src_pad):
        cross_mask = src_pad.index_select(0, word)[:, None, None, :]
        return super().forward(tokens, position, origin, past_k, past_v,
                               cross_k.index_select(1, word), cross_v.index_select(1, word), cross_mask)


def load(path):
    """-> (Encoder, DecoderStep, config) in eval mode, for a transformer model file."""
    model = load_model(path)
    if model.config["arch"] != "transformer":
        raise SystemExit(f"{path}: arch {model.config['arch']!r}; the KV-cache graphs are for autoregressive Transformers")
    return Encoder(model).eval(), DecoderStep(model).eval(), model.config


def padded(sources):
    """-> src [B,S] (padded with 0), src_pad [B,S] (True = padding)."""
    lengths = torch.tensor([len(s) for s in sources])
    src_pad = torch.arange(int(lengths.max()))[None] >= lengths[:, None]
    src = torch.zeros(src_pad.shape, dtype=torch.long)
    for i, s in enumerate(sources):
        src[i, :len(s)] = s
    return src, src_pad


def empty_cache(cfg, k=1):
    """past_k / past_v before the first step: no positions yet."""
    h = cfg["n_heads"]
    return torch.zeros(cfg["dec_layers"], k, h, 0, cfg["d_model"] // h)


@torch.no_grad()
def check(model, enc, dec, src, tgt):
    """The cached steps give the logits of the project's full decode (teacher forcing)."""
    full = model.decode(tgt[None], *model.encode(src[None])[:2])[0][0]
    _, ck, cv = enc(src[None])
    pk = pv = empty_cache(model.config)
    for t in range(len(tgt)):
        logits, pk, pv = dec(tgt[t:t + 1], torch.tensor(t), torch.zeros(1, dtype=torch.long), pk, pv, ck, cv)
        err = (logits[0] - full[t]).abs().max().item()
        if err > 1e-4:
            raise SystemExit(f"KV-cache step {t} differs from the full decode by {err}")


@torch.no_grad()
def check_batch(model, enc, dec, sources, tgt):
    """Padded together, each source's cached steps give the logits of its own full
    decode (no padding): rows of both sources in every call, two hypotheses each
    for the longer one, fed the same tokens."""
    src, src_pad = padded(sources)
    _, ck, cv = enc(src, src_pad)
    word = torch.tensor([0, 0, 1])
    pk = pv = empty_cache(model.config, 3)
    for t in range(len(tgt)):
        logits, pk, pv = dec(tgt[t].repeat(3), torch.tensor(t), torch.arange(3), word, pk, pv, ck, cv, src_pad)
        for row, w in enumerate(word.tolist()):
            full = model.decode(tgt[None], *model.encode(sources[w][None])[:2])[0][0]
            err = (logits[row] - full[t]).abs().max().item()
            if err > 1e-4:
                raise SystemExit(f"batched KV-cache step {t}, source {w} differs from its own full decode by {err}")


@torch.no_grad()
def main(argv=None):
    model_path, out_dir = (argv or sys.argv[1:])[:2]
    enc, dec, cfg = load(model_path)
    # The tracer warns about Python-side checks (max_pos) that hold for every input here.
    warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
    # Exported with sizes that differ from each other (S=5, k=3, t=2) so that
    # no dynamic size is folded into a constant.
    src = torch.tensor([cfg["src_vocab"].index(c) for c in "HELLO"])
    check(enc.m, enc, dec, src, torch.tensor([2, 20, 7, 25, 29]))
    os.makedirs(out_dir, exist_ok=True)
    memory, ck, cv = enc(src[None])
    torch.onnx.export(enc, (src[None],), os.path.join(out_dir, "encoder.onnx"), opset_version=OPSET,
                      input_names=["src"], output_names=["memory", "cross_k", "cross_v"],
                      dynamic_axes={"src": {1: "S"}, "memory": {1: "S"}, "cross_k": {3: "S"}, "cross_v": {3: "S"}})
    k, h, t = 3, cfg["n_heads"], 2
    past = torch.randn(cfg["dec_layers"], 2, h, t, cfg["d_model"] // h)
    args = (torch.tensor([7, 20, 25]), torch.tensor(t), torch.tensor([0, 1, 1]), past, past.clone(), ck, cv)
    cache_axes = {1: "k", 3: "t_next"}
    torch.onnx.export(dec, args, os.path.join(out_dir, "decoder.onnx"), opset_version=OPSET,
                      input_names=["tokens", "position", "origin", "past_k", "past_v", "cross_k", "cross_v"],
                      output_names=["logits", "present_k", "present_v"],
                      dynamic_axes={"tokens": {0: "k"}, "origin": {0: "k"}, "past_k": {1: "k_past", 3: "t"},
                                    "past_v": {1: "k_past", 3: "t"}, "cross_k": {3: "S"}, "cross_v": {3: "S"},
                                    "logits": {0: "k"}, "present_k": cache_axes, "present_v": cache_axes})

    # The batched pair: B=2 sources of different lengths (S=5), k=3 rows, k'=4 past rows, t=2.
    bdec = BatchDecoderStep(enc.m).eval()
    sources = [src, torch.tensor([cfg["src_vocab"].index(c) for c in "CAT"])]
    check_batch(enc.m, enc, bdec, sources, torch.tensor([2, 20, 7, 25, 29]))
    bsrc, bpad = padded(sources)
    _, bck, bcv = enc(bsrc, bpad)
    torch.onnx.export(enc, (bsrc, bpad), os.path.join(out_dir, "encoder_batch.onnx"), opset_version=OPSET,
                      input_names=["src", "src_pad"], output_names=["memory", "cross_k", "cross_v"],
                      dynamic_axes={"src": {0: "B", 1: "S"}, "src_pad": {0: "B", 1: "S"}, "memory": {0: "B", 1: "S"},
                                    "cross_k": {1: "B", 3: "S"}, "cross_v": {1: "B", 3: "S"}})
    bpast = torch.randn(cfg["dec_layers"], 4, h, t, cfg["d_model"] // h)
    bargs = (args[0], args[1], torch.tensor([0, 3, 1]), torch.tensor([0, 1, 1]), bpast, bpast.clone(), bck, bcv, bpad)
    torch.onnx.export(bdec, bargs, os.path.join(out_dir, "decoder_batch.onnx"), opset_version=OPSET,
                      input_names=["tokens", "position", "origin", "word", "past_k", "past_v", "cross_k", "cross_v", "src_pad"],
                      output_names=["logits", "present_k", "present_v"],
                      dynamic_axes={"tokens": {0: "k"}, "origin": {0: "k"}, "word": {0: "k"},
                                    "past_k": {1: "k_past", 3: "t"}, "past_v": {1: "k_past", 3: "t"},
                                    "cross_k": {1: "B", 3: "S"}, "cross_v": {1: "B", 3: "S"}, "src_pad": {0: "B", 1: "S"},
                                    "logits": {0: "k"}, "present_k": cache_axes, "present_v": cache_axes})
    print(f"export_onnx: {model_path} -> {out_dir}/encoder.onnx, decoder.onnx, encoder_batch.onnx, decoder_batch.onnx (opset {OPSET})")


if __name__ == "__main__":
    main()
