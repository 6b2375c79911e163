"""PyTorch reference models for seq2seq-wasm.

Every op here follows docs/model-format.md exactly, and ``state_dict()`` keys are
exactly the tensor names of that spec (so the exporter writes the state dict as
is). Nothing uses nn.Transformer / nn.MultiheadAttention: attention, masking and
the block structure are spelled out so that the C++ engine can match them.

Architectures are looked up in ``ARCHITECTURES`` (arch name -> model class): a
class that takes ``(config)`` and has a ``state_dict()`` following the spec.
``Seq2SeqTransformer`` handles "transformer" and "cmlm", ``RnnSeq2Seq`` "rnn"
(bidirectional GRU encoder, GRU decoder, four attention scores; built on nn.GRU /
nn.GRUCell, whose parameter names and gate layout are the spec's).
"""

import json
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

# ----------------------------------------------------------------------------
# Configuration
# ----------------------------------------------------------------------------

# The vocabulary, naming and copy keys every architecture writes last, in this order.
VOCAB_CONFIG_DEFAULTS = {
    "src_vocab": None,
    "tgt_vocab": None,
    "src_specials": {"pad": 0, "unk": 1},
    "tgt_specials": {"pad": 0, "unk": 1, "bos": 2, "eos": 3, "mask": 4},
    "src_case": "upper",
    # "chars": a source token is a character; "words": a word of a space-separated text
    # (word-level models; a word outside src_vocab reads as <unk>)
    "src_tokens": "chars",
    # The copy mechanism (pointer-generator, See et al. 2017): the output distribution
    # mixes the vocabulary's with a copy of the source through the attention
    # (copy_distribution below; docs/model-format.md "The copy mechanism").
    "copy": False,
    "name": "",
    "description": "",
}

# Keys of the exported config (docs/model-format.md, "The configuration") and
# the defaults used when a key is absent.
CONFIG_DEFAULTS = {
    "arch": "transformer",
    "d_model": 256,
    "n_heads": 4,
    "d_ff": 1024,
    "activation": "relu",
    "enc_layers": 3,
    "dec_layers": 3,
    "norm": "post",
    "ln_eps": 1e-5,
    "pos": "sinusoidal",
    "max_pos": 64,
    "scale_embedding": True,
    "tie_output": True,
    "max_target_len": 48,
    # cmlm length head: 0 = class k is length k (0..max_target_len); C > 0 = class k
    # is length (source length + k - C), i.e. the head predicts the offset from the
    # word's length (fairseq's pred_length_offset). Classes are remapped to absolute
    # lengths in length_logits(), so everything downstream sees lengths.
    "length_offset": 0,
    **VOCAB_CONFIG_DEFAULTS,
}

CONFIG_KEY_ORDER = list(CONFIG_DEFAULTS.keys())

# Keys added after the first models shipped: written only when not at their default.
OPTIONAL_CONFIG_KEYS = ("length_offset", "src_tokens", "copy")

# The logit given to lengths an offset length head cannot reach (docs/model-format.md):
# finite, so that log-probabilities stay finite (JSON has no -inf), and low enough that
# their probability is exactly 0 in float32.
LENGTH_UNREACHABLE = -1e4


class ConfigError(ValueError):
    pass


def _check(cond, msg):
    if not cond:
        raise ConfigError(msg)


def _check_vocab(vocab, specials, which):
    _check(isinstance(vocab, list) and len(vocab) > 0, f"{which}_vocab must be a non-empty list")
    _check(all(isinstance(t, str) and t for t in vocab), f"{which}_vocab entries must be non-empty strings")
    _check(len(set(vocab)) == len(vocab), f"{which}_vocab has duplicates")
    _check(isinstance(specials, dict), f"{which}_specials must be an object")
    ids = list(specials.values())
    _check(all(isinstance(i, int) and 0 <= i < len(vocab) for i in ids),
           f"{which}_specials ids must lie inside the vocabulary")
    _check(len(set(ids)) == len(ids), f"{which}_specials ids must be distinct")


def _check_copy(cfg):
    """The copy mechanism's rules, the same for every architecture (the C++ loader's)."""
    _check(isinstance(cfg["copy"], bool), "copy must be a boolean")
    if cfg["copy"]:
        _check(cfg["arch"] in ("transformer", "rnn"),
               "the copy mechanism needs an autoregressive model (transformer or rnn), not cmlm")
        _check("unk" in cfg["tgt_specials"],
               "a copy model needs unk in tgt_specials (the decoder reads it after a copied token the vocabulary lacks)")


def normalize_config(config):
    """Return a complete, validated copy of ``config`` (a dict), keys in spec order.

    Applies the ranges that the C++ loader enforces, so a model that passes here
    loads there. ``"arch": "rnn"`` configs have their own fields
    (``normalize_rnn_config``).
    """
    if config.get("arch") == "rnn":
        return normalize_rnn_config(config)
    cfg = dict(CONFIG_DEFAULTS)
    cfg.update(config)
    unknown = set(config) - set(CONFIG_DEFAULTS)
    _check(not unknown, f"unknown config keys: {sorted(unknown)}")
    _check(cfg["arch"] in ARCHITECTURES, f"unknown arch {cfg['arch']!r}")
    d, h = cfg["d_model"], cfg["n_heads"]
    _check(isinstance(d, int) and 1 <= d <= 4096, "d_model out of range")
    _check(isinstance(h, int) and h >= 1 and d % h == 0, "n_heads must divide d_model")
    _check(isinstance(cfg["d_ff"], int) and 1 <= cfg["d_ff"] <= 16384, "d_ff out of range")
    _check(0 <= cfg["enc_layers"] <= 64 and 1 <= cfg["dec_layers"] <= 64, "layer counts out of range")
    _check(1 <= cfg["max_pos"] <= 4096, "max_pos out of range")
    _check(0.0 < float(cfg["ln_eps"]) < 1.0, "ln_eps out of range")
    _check(cfg["activation"] in ("relu", "gelu"), "activation must be relu|gelu")
    _check(cfg["norm"] in ("pre", "post"), "norm must be pre|post")
    _check(cfg["pos"] in ("sinusoidal", "learned"), "pos must be sinusoidal|learned")
    _check(cfg["src_case"] in ("upper", "lower", "none"), "src_case must be upper|lower|none")
    _check(isinstance(cfg["scale_embedding"], bool) and isinstance(cfg["tie_output"], bool),
           "scale_embedding/tie_output must be booleans")
    _check(isinstance(cfg["max_target_len"], int) and 1 <= cfg["max_target_len"] < cfg["max_pos"],
           "max_target_len must satisfy 1 <= max_target_len < max_pos")
    _check(isinstance(cfg["length_offset"], int) and 0 <= cfg["length_offset"] <= cfg["max_target_len"],
           "length_offset must satisfy 0 <= length_offset <= max_target_len")
    _check(cfg["length_offset"] == 0 or cfg["arch"] == "cmlm", "length_offset applies to cmlm models only")
    _check_vocab(cfg["src_vocab"], cfg["src_specials"], "src")
    _check_vocab(cfg["tgt_vocab"], cfg["tgt_specials"], "tgt")
    _check(cfg["src_tokens"] in ("chars", "words"), "src_tokens must be chars|words")
    src_special_ids = set(cfg["src_specials"].values())
    _check(cfg["src_tokens"] == "words" or all(len(t) == 1 or i in src_special_ids for i, t in enumerate(cfg["src_vocab"])),
           "source tokens must be single characters (specials excepted) unless src_tokens is words")
    _check_copy(cfg)
    _check("pad" in cfg["src_specials"] and "pad" in cfg["tgt_specials"], "pad ids are required")
    if cfg["arch"] == "transformer":
        _check("bos" in cfg["tgt_specials"] and "eos" in cfg["tgt_specials"], "transformer needs bos and eos")
    if cfg["arch"] == "cmlm":
        _check("mask" in cfg["tgt_specials"], "cmlm needs mask")
    cfg["ln_eps"] = float(cfg["ln_eps"])
    return {k: cfg[k] for k in CONFIG_KEY_ORDER}


# ----------------------------------------------------------------------------
# Building blocks
# ----------------------------------------------------------------------------

def sinusoidal_table(max_pos, d_model, dtype=torch.float32):
    """P[t, 2i] = sin(t / 10000^(2i/L)), P[t, 2i+1] = cos(t / 10000^(2i/L)).

    Computed in float64 and then cast, so that it is the exact table.
    """
    t = torch.arange(max_pos, dtype=torch.float64).unsqueeze(1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = t / torch.pow(torch.tensor(10000.0, dtype=torch.float64), two_i / d_model)
    p = torch.zeros(max_pos, d_model, dtype=torch.float64)
    p[:, 0::2] = torch.sin(angle)
    p[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return p.to(dtype)


class Attention(nn.Module):
    """Multi-head attention, state-dict names {q,k,v,o}_proj.{weight,bias}."""

    def __init__(self, d_model, n_heads, attn_dropout=0.0):
        super().__init__()
        self.d_model, self.n_heads = d_model, n_heads
        self.dh = d_model // n_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.o_proj = nn.Linear(d_model, d_model)
        self.attn_dropout = nn.Dropout(attn_dropout)

    def forward(self, xq, xkv, key_mask=None):
        """xq [B,Tq,L], xkv [B,Tk,L]; key_mask: bool, True = masked (prob 0),
        broadcastable to [B,1,Tq,Tk]. Returns (out [B,Tq,L], probs [B,H,Tq,Tk])."""
        B, Tq, _ = xq.shape
        Tk = xkv.shape[1]
        H, dh = self.n_heads, self.dh
        q = self.q_proj(xq).view(B, Tq, H, dh).transpose(1, 2)
        k = self.k_proj(xkv).view(B, Tk, H, dh).transpose(1, 2)
        v = self.v_proj(xkv).view(B, Tk, H, dh).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(dh)
        if key_mask is not None:
            key_mask = key_mask.expand(B, 1, Tq, Tk)
            scores = scores.masked_fill(key_mask, float("-inf"))
            # A query row whose keys are all masked would give NaN: give it a
            # finite row (any), then zero it below. Keeps gradients finite too.
            full = key_mask.all(dim=-1, keepdim=True)
            scores = scores.masked_fill(full, 0.0)
        probs = torch.softmax(scores, dim=-1)
        if key_mask is not None:
            probs = probs.masked_fill(key_mask, 0.0)
        ctx = torch.matmul(self.attn_dropout(probs), v)
        ctx = ctx.transpose(1, 2).reshape(B, Tq, self.d_model)
        return self.o_proj(ctx), probs


class FFN(nn.Module):
    def __init__(self, d_model, d_ff, activation, act_dropout=0.0):
        super().__init__()
        self.fc1 = nn.Linear(d_model, d_ff)
        self.fc2 = nn.Linear(d_ff, d_model)
        self.activation = activation
        self.act_dropout = nn.Dropout(act_dropout)

    def forward(self, x):
        h = self.fc1(x)
        h = F.relu(h) if self.activation == "relu" else F.gelu(h)  # F.gelu is the exact erf form
        return self.fc2(self.act_dropout(h))


class EncoderLayer(nn.Module):
    def __init__(self, cfg, dropout, attn_dropout, act_dropout):
        super().__init__()
        L = cfg["d_model"]
        self.pre = cfg["norm"] == "pre"
        self.self_attn = Attention(L, cfg["n_heads"], attn_dropout)
        self.ffn = FFN(L, cfg["d_ff"], cfg["activation"], act_dropout)
        self.ln1 = nn.LayerNorm(L, eps=cfg["ln_eps"])
        self.ln2 = nn.LayerNorm(L, eps=cfg["ln_eps"])
        self.drop = nn.Dropout(dropout)

    def forward(self, x, key_mask):
        if self.pre:
            h = self.ln1(x)
            a, p = self.self_attn(h, h, key_mask)
            x = x + self.drop(a)
            x = x + self.drop(self.ffn(self.ln2(x)))
        else:
            a, p = self.self_attn(x, x, key_mask)
            x = self.ln1(x + self.drop(a))
            x = self.ln2(x + self.drop(self.ffn(x)))
        return x, p


class DecoderLayer(nn.Module):
    def __init__(self, cfg, dropout, attn_dropout, act_dropout):
        super().__init__()
        L = cfg["d_model"]
        self.pre = cfg["norm"] == "pre"
        self.self_attn = Attention(L, cfg["n_heads"], attn_dropout)
        self.cross_attn = Attention(L, cfg["n_heads"], attn_dropout)
        self.ffn = FFN(L, cfg["d_ff"], cfg["activation"], act_dropout)
        self.ln1 = nn.LayerNorm(L, eps=cfg["ln_eps"])
        self.ln2 = nn.LayerNorm(L, eps=cfg["ln_eps"])
        self.ln3 = nn.LayerNorm(L, eps=cfg["ln_eps"])
        self.drop = nn.Dropout(dropout)

    def forward(self, y, memory, self_mask, cross_mask):
        if self.pre:
            h = self.ln1(y)
            a, ps = self.self_attn(h, h, self_mask)
            y = y + self.drop(a)
            c, pc = self.cross_attn(self.ln2(y), memory, cross_mask)
            y = y + self.drop(c)
            y = y + self.drop(self.ffn(self.ln3(y)))
        else:
            a, ps = self.self_attn(y, y, self_mask)
            y = self.ln1(y + self.drop(a))
            c, pc = self.cross_attn(y, memory, cross_mask)
            y = self.ln2(y + self.drop(c))
            y = self.ln3(y + self.drop(self.ffn(y)))
        return y, ps, pc


class Stack(nn.Module):
    """Holds ``layers`` and, for pre-LN, ``final_ln`` (state-dict names of the spec)."""

    def __init__(self, layer_fn, n, cfg):
        super().__init__()
        self.layers = nn.ModuleList([layer_fn() for _ in range(n)])
        if cfg["norm"] == "pre" and n > 0:
            self.final_ln = nn.LayerNorm(cfg["d_model"], eps=cfg["ln_eps"])
        else:
            self.final_ln = None


# ----------------------------------------------------------------------------
# The copy mechanism (pointer-generator, See et al. 2017; docs/model-format.md
# "The copy mechanism")
# ----------------------------------------------------------------------------

def source_copy_ids(source_tokens, tgt_vocab, tgt_specials):
    """Where copying each source token puts it in the output: the id of the target
    token of the same text, or (a text the target vocabulary lacks, or one of its
    specials) an id past the vocabulary, V + k for the k-th such distinct text of
    this source. -> (ids [S], extra texts: those of ids V, V + 1, ...)."""
    special = set(tgt_specials.values())
    index = {t: i for i, t in enumerate(tgt_vocab) if i not in special}
    ids, extra = [], []
    for w in source_tokens:
        if w in index:
            ids.append(index[w])
            continue
        if w not in extra:
            extra.append(w)
        ids.append(len(tgt_vocab) + extra.index(w))
    return ids, extra


def copy_distribution(log_p_vocab, gate_logit, attn, copy_ids, n_extra):
    """The pointer-generator's output distribution, in log space:

        P(w) = p_gen P_vocab(w) + (1 - p_gen) sum_i a_i [x_i = w],   p_gen = sigmoid(gate_logit)

    over the target vocabulary and the n_extra tokens past it.
    log_p_vocab [B,T,Vt] (log_softmax of the logits), gate_logit [B,T], attn [B,T,S]
    (exactly 0 at padded source positions), copy_ids [B,S] (long: the output id of
    each source position, any id in range at padding) -> log P [B,T,Vt+n_extra].

    Each log P(w) is a log-sum of the two terms where both are there, one term where
    one is (a token the source lacks: generated only; a token past the vocabulary:
    copied only, P_vocab has none), -inf where neither is. The untaken branches of
    torch.where see finite stand-ins only, so no gradient is NaN."""
    B, T, Vt = log_p_vocab.shape
    V = Vt + n_extra
    copy = log_p_vocab.new_zeros(B, T, V).scatter_add(-1, copy_ids[:, None, :].expand(B, T, copy_ids.shape[1]), attn)
    has_copy = copy > 0
    log_copy = torch.log(torch.where(has_copy, copy, torch.ones_like(copy)))
    log_gen = F.pad(log_p_vocab, (0, n_extra)) + F.logsigmoid(gate_logit)[..., None]
    log_cp = F.logsigmoid(-gate_logit)[..., None] + log_copy
    in_vocab = (torch.arange(V, device=log_p_vocab.device) < Vt).expand(B, T, V)
    both = torch.logaddexp(log_gen, log_cp)
    none = torch.full_like(log_gen, float("-inf"))
    return torch.where(has_copy, torch.where(in_vocab, both, log_cp), torch.where(in_vocab, log_gen, none))


def copy_nll_loss(log_probs, targets, n_vocab, ignore_index, label_smoothing=0.0):
    """The label-smoothed cross-entropy of a copy model's output rows: per row whose
    target is not ignore_index, -(1 - e) log P(y) - e / V sum_{k < V} log P(k), the
    mean over those rows. The uniform share e spreads over the V target tokens every
    example has (the copy-only ones past them differ from source to source); without
    copy-only tokens this is F.cross_entropy(..., label_smoothing=e).
    log_probs [..., W] (copy_distribution), targets [...] (ids, possibly >= V)."""
    keep = targets != ignore_index
    y = torch.where(keep, targets, torch.zeros_like(targets))
    lp_y = log_probs.gather(-1, y.unsqueeze(-1)).squeeze(-1)
    per_row = -((1.0 - label_smoothing) * lp_y + label_smoothing / n_vocab * log_probs[..., :n_vocab].sum(-1))
    return torch.where(keep, per_row, torch.zeros_like(per_row)).sum() / keep.sum()


class CopyGate(nn.Module):
    """``copy_gate``: p_gen = sigmoid(w . [context ; decoder state ; decoder input] + b),
    See et al.'s w_c . c + w_s . s + w_x . x + b as one linear layer over the three
    side by side (``copy_gate.weight`` [1, C + D + X], ``copy_gate.bias`` [1])."""

    def __init__(self, width):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(1, width))
        self.bias = nn.Parameter(torch.zeros(1))
        nn.init.xavier_uniform_(self.weight)

    def forward(self, context, state, inp):
        """-> the gate's logit [..] (p_gen = sigmoid of it)."""
        return F.linear(torch.cat([context, state, inp], -1), self.weight, self.bias).squeeze(-1)


class OutputProjection(nn.Module):
    """``out_proj``: a bias always, a weight only when not tied to tgt_embed."""

    def __init__(self, d_model, vocab, tied):
        super().__init__()
        self.weight = None if tied else nn.Parameter(torch.empty(vocab, d_model))
        self.bias = nn.Parameter(torch.zeros(vocab))
        if not tied:
            nn.init.xavier_uniform_(self.weight)

    def forward(self, h, tied_weight=None):
        w = self.weight if self.weight is not None else tied_weight
        return F.linear(h, w, self.bias)


# ----------------------------------------------------------------------------
# The Transformer / CMLM model
# ----------------------------------------------------------------------------

class Seq2SeqTransformer(nn.Module):
    """arch "transformer" (autoregressive, causal decoder self-attention) and
    arch "cmlm" (Mask-Predict: no causal mask, plus a length head).

    Masks are boolean with True = padding. Dropout arguments are for training;
    they are not part of the exported config and are inactive in eval().
    """

    def __init__(self, config, dropout=0.0, attn_dropout=0.0, act_dropout=0.0, emb_dropout=None):
        super().__init__()
        cfg = normalize_config(config)
        _check(cfg["arch"] in ("transformer", "cmlm"), "Seq2SeqTransformer handles transformer|cmlm")
        self.config = cfg
        L, Vs, Vt = cfg["d_model"], len(cfg["src_vocab"]), len(cfg["tgt_vocab"])
        self.causal = cfg["arch"] == "transformer"
        self.src_pad = cfg["src_specials"]["pad"]
        self.tgt_pad = cfg["tgt_specials"]["pad"]
        self.emb_scale = math.sqrt(L) if cfg["scale_embedding"] else 1.0

        self.src_embed = nn.Embedding(Vs, L)
        self.tgt_embed = nn.Embedding(Vt, L)
        nn.init.normal_(self.src_embed.weight, std=L ** -0.5)
        nn.init.normal_(self.tgt_embed.weight, std=L ** -0.5)
        if cfg["pos"] == "learned":
            self.src_pos = nn.Embedding(cfg["max_pos"], L)
            self.tgt_pos = nn.Embedding(cfg["max_pos"], L)
            nn.init.normal_(self.src_pos.weight, std=0.02)
            nn.init.normal_(self.tgt_pos.weight, std=0.02)
        else:
            self.src_pos = self.tgt_pos = None
            self.register_buffer("sin_table", sinusoidal_table(cfg["max_pos"], L), persistent=False)
        self.emb_drop = nn.Dropout(dropout if emb_dropout is None else emb_dropout)

        def enc_layer():
            return EncoderLayer(cfg, dropout, attn_dropout, act_dropout)

        def dec_layer():
            return DecoderLayer(cfg, dropout, attn_dropout, act_dropout)

        self.encoder = Stack(enc_layer, cfg["enc_layers"], cfg)
        self.decoder = Stack(dec_layer, cfg["dec_layers"], cfg)
        self.out_proj = OutputProjection(L, Vt, cfg["tie_output"])
        if cfg["arch"] == "cmlm":
            self.length_head = nn.Linear(L, cfg["max_target_len"] + 1)
        else:
            self.length_head = None
        self.copy_gate = CopyGate(3 * L) if cfg["copy"] else None
        for name, p in self.named_parameters():
            if p.dim() == 2 and ("_proj" in name or ".fc" in name) and "out_proj" not in name:
                nn.init.xavier_uniform_(p)
            elif name.endswith(".bias") and ("_proj" in name or ".fc" in name):
                nn.init.zeros_(p)

    # -- pieces -------------------------------------------------------------
    def _positions(self, T, learned, device, dtype):
        if T > self.config["max_pos"]:
            raise ValueError(f"sequence length {T} exceeds max_pos {self.config['max_pos']}")
        if learned is not None:
            return learned.weight[:T]
        return self.sin_table[:T].to(device=device, dtype=dtype)

    def embed_src(self, src):
        x = self.src_embed(src) * self.emb_scale
        return self.emb_drop(x + self._positions(src.shape[1], self.src_pos, x.device, x.dtype))

    def embed_tgt(self, tgt):
        y = self.tgt_embed(tgt) * self.emb_scale
        return self.emb_drop(y + self._positions(tgt.shape[1], self.tgt_pos, y.device, y.dtype))

    def encode(self, src, src_pad_mask=None, return_attn=False):
        """src [B,S] ids -> (memory [B,S,L], src_pad_mask [B,S], list of enc attn)."""
        if src_pad_mask is None:
            src_pad_mask = src.eq(self.src_pad)
        key_mask = src_pad_mask[:, None, None, :]
        x = self.embed_src(src)
        attn = []
        for layer in self.encoder.layers:
            x, p = layer(x, key_mask)
            if return_attn:
                attn.append(p)
        if self.encoder.final_ln is not None:
            x = self.encoder.final_ln(x)
        return x, src_pad_mask, attn

    def decoder_self_mask(self, tgt_pad_mask):
        """tgt_pad_mask [B,T] -> bool [B,1,T,T], True = masked."""
        B, T = tgt_pad_mask.shape
        m = tgt_pad_mask[:, None, None, :].expand(B, 1, T, T)
        if self.causal:
            future = torch.ones(T, T, dtype=torch.bool, device=tgt_pad_mask.device).triu(1)
            m = m | future
        return m

    def decode(self, tgt, memory, src_pad_mask, tgt_pad_mask=None, return_attn=False):
        """tgt [B,T] ids -> (logits [B,T,Vt], self attn list, cross attn list)."""
        logits, sa, ca, _ = self.decode_copy(tgt, memory, src_pad_mask, tgt_pad_mask, return_attn)
        return logits, sa, ca

    def decode_copy(self, tgt, memory, src_pad_mask, tgt_pad_mask=None, return_attn=False):
        """decode(), and for a copy model what the copy mechanism reads:
        -> (logits, self attn list, cross attn list, None or (copy attention [B,T,S],
        gate logit [B,T])). The copy attention is the last decoder layer's
        cross-attention averaged over its heads; the gate reads the context it makes
        of the encoder output (sum_i a_i memory_i), the decoder's output (what the
        output projection reads) and the decoder's input (the first layer's input).
        Target ids past the vocabulary (copied tokens it lacks) are read as unk."""
        if tgt_pad_mask is None:
            tgt_pad_mask = tgt.eq(self.tgt_pad)
        self_mask = self.decoder_self_mask(tgt_pad_mask)
        cross_mask = src_pad_mask[:, None, None, :]
        y = self.embed_tgt(self.decoder_ids(tgt))
        x_in = y
        sa, ca = [], []
        pc = None
        for layer in self.decoder.layers:
            y, ps, pc = layer(y, memory, self_mask, cross_mask)
            if return_attn:
                sa.append(ps)
                ca.append(pc)
        if self.decoder.final_ln is not None:
            y = self.decoder.final_ln(y)
        logits = self.out_proj(y, self.tgt_embed.weight)
        if self.copy_gate is None:
            return logits, sa, ca, None
        a = pc.mean(1)
        return logits, sa, ca, (a, self.copy_gate(torch.matmul(a, memory), y, x_in))

    def decoder_ids(self, tgt):
        """The ids the decoder embeds: a copy model reads an id past the vocabulary as unk."""
        if self.copy_gate is None:
            return tgt
        return tgt.masked_fill(tgt >= len(self.config["tgt_vocab"]), self.config["tgt_specials"]["unk"])

    def length_logits(self, memory, src_pad_mask):
        """Mean of the encoder output over non-pad source positions -> length head.

        Returns logits over absolute lengths 0..max_target_len [B, max_target_len+1].
        With length_offset C > 0 the head's class k means length S + k - C (S = the
        source length); lengths no class reaches get LENGTH_UNREACHABLE."""
        keep = (~src_pad_mask).to(memory.dtype).unsqueeze(-1)
        n_src = keep.sum(1).clamp(min=1.0)
        head = self.length_head((memory * keep).sum(1) / n_src)
        C = self.config["length_offset"]
        if C == 0:
            return head
        K = head.shape[-1]
        # class of absolute length L: L - S + C
        cls = torch.arange(K, device=head.device)[None, :] - n_src.long() + C
        ok = (cls >= 0) & (cls < K)
        picked = head.gather(1, cls.clamp(0, K - 1))
        return picked.masked_fill(~ok, LENGTH_UNREACHABLE)

    def forward(self, src, tgt, src_pad_mask=None, tgt_pad_mask=None, return_attn=False):
        """Returns a dict: logits [B,T,Vt]; length_logits [B,max_target_len+1]
        (cmlm); a copy model's copy_attn [B,T,S] and gate_logits [B,T] (decode_copy;
        output_log_probs mixes them in); and with return_attn, enc_self_attn /
        dec_self_attn / cross_attn: lists over layers of [B,H,Tq,Tk] probabilities."""
        memory, src_pad_mask, ea = self.encode(src, src_pad_mask, return_attn)
        logits, sa, ca, cp = self.decode_copy(tgt, memory, src_pad_mask, tgt_pad_mask, return_attn)
        out = {"logits": logits}
        if cp is not None:
            out["copy_attn"], out["gate_logits"] = cp
        if self.length_head is not None:
            out["length_logits"] = self.length_logits(memory, src_pad_mask)
        if return_attn:
            out.update(enc_self_attn=ea, dec_self_attn=sa, cross_attn=ca)
        return out


# ----------------------------------------------------------------------------
# The RNN encoder-decoder ("arch": "rnn", docs/model-format.md "The RNN
# encoder-decoder"): bidirectional GRU encoder, bridge, GRU decoder, one of four
# attention scores, output layer on [a_t ; s_t]. No input feeding. With attention
# "none" a_t is the fixed context vector c = [h→_{S-1} ; h←_0] at every step: the
# encoder-decoder of the notes without attention, whose one vector is the bottleneck.
# ----------------------------------------------------------------------------

# Keys of an rnn config, in the order they are written, with defaults. None =
# required (attn_dim is required for reduced_rank/additive and 0 otherwise).
RNN_CONFIG_DEFAULTS = {
    "arch": "rnn",
    "cell": "gru",
    "emb_dim": 64,
    "enc_hidden": 128,
    "enc_layers": 1,
    "dec_hidden": 256,
    "attention": "additive",
    "attn_dim": None,
    "max_pos": 64,
    **VOCAB_CONFIG_DEFAULTS,
}

RNN_ATTENTIONS = ("dot", "multiplicative", "reduced_rank", "additive", "none")


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def normalize_rnn_config(config):
    """Complete, validated copy of an ``"arch": "rnn"`` config, keys in spec order.
    Transformer fields (d_model, n_heads, ..., max_target_len) are rejected."""
    cfg = dict(RNN_CONFIG_DEFAULTS)
    cfg.update(config)
    unknown = set(config) - set(RNN_CONFIG_DEFAULTS)
    _check(not unknown, f"unknown config keys for arch rnn: {sorted(unknown)}")
    _check(cfg["arch"] == "rnn", "normalize_rnn_config needs arch rnn")
    _check(cfg["cell"] == "gru", "cell must be gru")
    for k in ("emb_dim", "enc_hidden", "dec_hidden"):
        _check(_is_int(cfg[k]) and 1 <= cfg[k] <= 4096, f"{k} out of range")
    _check(_is_int(cfg["enc_layers"]) and 1 <= cfg["enc_layers"] <= 4, "enc_layers must be 1..4")
    _check(cfg["attention"] in RNN_ATTENTIONS, "attention must be dot|multiplicative|reduced_rank|additive|none")
    if cfg["attention"] in ("reduced_rank", "additive"):
        _check(_is_int(cfg["attn_dim"]) and 1 <= cfg["attn_dim"] <= 4096,
               f"attn_dim must be 1..4096 for {cfg['attention']} attention")
    else:
        _check(cfg["attn_dim"] in (None, 0), f"attn_dim must be 0 for {cfg['attention']} attention")
        cfg["attn_dim"] = 0
    if cfg["attention"] == "dot":
        _check(cfg["dec_hidden"] == 2 * cfg["enc_hidden"], "dot attention needs dec_hidden == 2 * enc_hidden")
    _check(_is_int(cfg["max_pos"]) and 1 <= cfg["max_pos"] <= 4096, "max_pos out of range")
    _check(cfg["src_case"] in ("upper", "lower", "none"), "src_case must be upper|lower|none")
    _check_vocab(cfg["src_vocab"], cfg["src_specials"], "src")
    _check_vocab(cfg["tgt_vocab"], cfg["tgt_specials"], "tgt")
    _check(cfg["src_tokens"] in ("chars", "words"), "src_tokens must be chars|words")
    src_special_ids = set(cfg["src_specials"].values())
    _check(cfg["src_tokens"] == "words" or all(len(t) == 1 or i in src_special_ids for i, t in enumerate(cfg["src_vocab"])),
           "source tokens must be single characters (specials excepted) unless src_tokens is words")
    _check_copy(cfg)
    _check("pad" in cfg["src_specials"] and "pad" in cfg["tgt_specials"], "pad ids are required")
    _check("bos" in cfg["tgt_specials"] and "eos" in cfg["tgt_specials"], "rnn needs bos and eos")
    _check(not cfg["copy"] or cfg["attention"] != "none",
           "the copy mechanism copies through the attention: attention none has none")
    return {k: cfg[k] for k in RNN_CONFIG_DEFAULTS}


class RnnEncoder(nn.Module):
    """``encoder.rnn``: PyTorch's bidirectional nn.GRU, so the state-dict names are
    ``encoder.rnn.{weight_ih,weight_hh,bias_ih,bias_hh}_l{k}[_reverse]``."""

    def __init__(self, E, H, layers, dropout=0.0):
        super().__init__()
        self.rnn = nn.GRU(E, H, num_layers=layers, bidirectional=True, batch_first=True,
                          dropout=dropout if layers > 1 else 0.0)

    def forward(self, x, lengths):
        """x [B,S,E], lengths [B] (>= 1) -> h [B,S,2H], zero at padded positions.
        Packed, so each direction only sees the example's own S_b positions (the
        backward direction starts at S_b - 1, from a zero state)."""
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
        out, _ = self.rnn(packed)
        h, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
        return h


class RnnDecoder(nn.Module):
    """``decoder.cell``: nn.GRUCell(E, D)."""

    def __init__(self, E, D):
        super().__init__()
        self.cell = nn.GRUCell(E, D)


class DotScore(nn.Module):
    """e_j = s_tᵀ h_j (needs D == 2H). No parameters."""

    def keys(self, h):
        return h

    def forward(self, keys, s):
        return torch.bmm(keys, s.unsqueeze(-1)).squeeze(-1)


class MultiplicativeScore(nn.Module):
    """e_j = s_tᵀ W h_j; ``attn.W.weight`` [D, 2H]; keys W h_j [B,S,D]."""

    def __init__(self, H2, D):
        super().__init__()
        self.W = nn.Linear(H2, D, bias=False)

    def keys(self, h):
        return self.W(h)

    def forward(self, keys, s):
        return torch.bmm(keys, s.unsqueeze(-1)).squeeze(-1)


class ReducedRankScore(nn.Module):
    """e_j = (U s_t)ᵀ (V h_j); ``attn.U.weight`` [r, D], ``attn.V.weight`` [r, 2H]."""

    def __init__(self, H2, D, r):
        super().__init__()
        self.U = nn.Linear(D, r, bias=False)
        self.V = nn.Linear(H2, r, bias=False)

    def keys(self, h):
        return self.V(h)

    def forward(self, keys, s):
        return torch.bmm(keys, self.U(s).unsqueeze(-1)).squeeze(-1)


class AdditiveScore(nn.Module):
    """e_j = vᵀ tanh(W1 h_j + W2 s_t); ``attn.W1.weight`` [A, 2H], ``attn.W2.weight``
    [A, D], ``attn.v.weight`` [1, A]; no biases."""

    def __init__(self, H2, D, A):
        super().__init__()
        self.W1 = nn.Linear(H2, A, bias=False)
        self.W2 = nn.Linear(D, A, bias=False)
        self.v = nn.Linear(A, 1, bias=False)

    def keys(self, h):
        return self.W1(h)

    def forward(self, keys, s):
        return self.v(torch.tanh(keys + self.W2(s).unsqueeze(1))).squeeze(-1)


class NoScore(nn.Module):
    """attention "none": no scores; the context is the fixed vector c (RnnSeq2Seq.attend)."""

    def keys(self, h):
        return h[:, :0]

    def forward(self, keys, s):
        raise AssertionError("attention none has no scores")


class RnnSeq2Seq(nn.Module):
    """arch "rnn": bidirectional GRU encoder, GRU decoder with attention.

        src_embed, tgt_embed   nn.Embedding (no scaling, no positions)
        encoder.rnn            nn.GRU(E, H, enc_layers, bidirectional, batch_first)
        bridge                 s_0 = tanh(bridge([h→_{S-1} ; h←_0])), top layer
        decoder.cell           s_t = GRUCell(tgt_embed[y_{t-1}], s_{t-1})
        attn                   scores e_j (dot | multiplicative | reduced_rank | additive)
        out                    logits_t = out([a_t ; s_t]),  a_t = Σ_j softmax(e)_j h_j
                               (attention "none": a_t = c = [h→_{S-1} ; h←_0], no alpha)

    Padded source positions get probability exactly 0. Dropout (training only, not
    part of the config) is applied to the embeddings, between encoder layers and
    to [a_t ; s_t] before ``out``.

    Decoding one token at a time: ``encode`` -> ``init_state`` -> ``step`` (and
    ``reorder_state`` for beam search); the state is the [N, D] matrix s plus the
    per-source attention keys (precomputed once).
    """

    def __init__(self, config, dropout=0.0, attn_dropout=0.0, act_dropout=0.0, emb_dropout=None):
        super().__init__()
        cfg = normalize_config(config)
        _check(cfg["arch"] == "rnn", "RnnSeq2Seq handles arch rnn")
        self.config = cfg
        E, H, D = cfg["emb_dim"], cfg["enc_hidden"], cfg["dec_hidden"]
        Vs, Vt = len(cfg["src_vocab"]), len(cfg["tgt_vocab"])
        self.src_pad = cfg["src_specials"]["pad"]
        self.tgt_pad = cfg["tgt_specials"]["pad"]
        self.H, self.D = H, D
        self.src_embed = nn.Embedding(Vs, E)
        self.tgt_embed = nn.Embedding(Vt, E)
        self.encoder = RnnEncoder(E, H, cfg["enc_layers"], dropout)
        self.bridge = nn.Linear(2 * H, D)
        self.decoder = RnnDecoder(E, D)
        a = cfg["attention"]
        if a == "dot":
            self.attn = DotScore()
        elif a == "multiplicative":
            self.attn = MultiplicativeScore(2 * H, D)
        elif a == "reduced_rank":
            self.attn = ReducedRankScore(2 * H, D, cfg["attn_dim"])
        elif a == "none":
            self.attn = NoScore()
        else:
            self.attn = AdditiveScore(2 * H, D, cfg["attn_dim"])
        self.out = nn.Linear(2 * H + D, Vt)
        self.emb_drop = nn.Dropout(dropout if emb_dropout is None else emb_dropout)
        self.drop = nn.Dropout(dropout)
        # The copy gate reads [a_t ; s_t ; the embedding of y_{t-1}] (the embedding as the cell reads it).
        self.copy_gate = CopyGate(2 * H + D + E) if cfg["copy"] else None

    # -- encoder ------------------------------------------------------------
    def _src_mask(self, src, src_pad_mask=None, src_lengths=None):
        if src_pad_mask is not None:
            return src_pad_mask
        if src_lengths is not None:
            lengths = torch.as_tensor(src_lengths, device=src.device)
            return torch.arange(src.shape[1], device=src.device)[None, :] >= lengths[:, None]
        return src.eq(self.src_pad)

    def encode(self, src, src_pad_mask=None, src_lengths=None):
        """src [B,S] -> (memory h [B,S,2H] (0 at padding), src_pad_mask [B,S], []).
        Padding must come after the tokens (lengths = non-pad count)."""
        spm = self._src_mask(src, src_pad_mask, src_lengths)
        S = src.shape[1]
        if S > self.config["max_pos"]:
            raise ValueError(f"source length {S} exceeds max_pos {self.config['max_pos']}")
        lengths = (~spm).sum(1)
        if bool((lengths < 1).any()):
            raise ValueError("empty source")
        x = self.emb_drop(self.src_embed(src))
        return self.encoder(x, lengths), spm, []

    def init_state(self, memory, src_pad_mask):
        """s_0 = tanh(bridge([h→_{S_b-1} ; h←_0])) from the top layer's outputs, plus
        the attention keys. -> state dict {"s": [B,D], "keys": [B,S,K]}."""
        H = self.H
        last = (~src_pad_mask).sum(1) - 1
        fwd = memory[torch.arange(memory.shape[0], device=memory.device), last, :H]
        bwd = memory[:, 0, H:]
        c = torch.cat([fwd, bwd], -1)
        s0 = torch.tanh(self.bridge(c))
        if self.config["attention"] == "none":
            return {"s": s0, "keys": c}  # the context vector stands in for the keys
        return {"s": s0, "keys": self.attn.keys(memory)}

    def reorder_state(self, state, idx):
        return {k: v.index_select(0, idx) for k, v in state.items()}

    # -- decoder ------------------------------------------------------------
    def attend(self, keys, memory, src_pad_mask, s):
        """-> (context a [N,2H], probabilities alpha [N,S]; exactly 0 at padding).
        Attention "none": a = c (carried as the keys), alpha None."""
        if self.config["attention"] == "none":
            return keys, None
        e = self.attn(keys, s).masked_fill(src_pad_mask, float("-inf"))
        alpha = torch.softmax(e, -1)
        return torch.bmm(alpha.unsqueeze(1), memory).squeeze(1), alpha

    def step(self, prev_tokens, state, memory, src_pad_mask):
        """One decoder step for every row: prev_tokens [N] (y_{t-1}; BOS first).
        -> (logits [N,Vt], new state, alpha [N,S])."""
        s = self.decoder.cell(self.emb_drop(self.tgt_embed(prev_tokens)), state["s"])
        a, alpha = self.attend(state["keys"], memory, src_pad_mask, s)
        logits = self.out(self.drop(torch.cat([a, s], -1)))
        return logits, {"s": s, "keys": state["keys"]}, alpha

    def decode(self, tgt, memory, src_pad_mask, tgt_pad_mask=None, return_attn=False):
        """Teacher-forced decoder over tgt [B,T] (input tokens, BOS first) ->
        (logits [B,T,Vt], [], [alpha [B,T,S]]). Rows after a target's end are
        computed but meaningless (tgt_pad_mask is not needed: no look-ahead)."""
        logits, sa, ca, _ = self.decode_copy(tgt, memory, src_pad_mask, tgt_pad_mask, return_attn)
        return logits, sa, ca

    def decode_copy(self, tgt, memory, src_pad_mask, tgt_pad_mask=None, return_attn=False):
        """decode(), and for a copy model what the copy mechanism reads: -> (logits, [],
        [alpha], None or (alpha [B,T,S], gate logit [B,T])). The copy attention is the
        decoder's attention; the gate reads the context a_t, the state s_t and the
        input's embedding. Target ids past the vocabulary are read as unk."""
        state = self.init_state(memory, src_pad_mask)
        s, keys = state["s"], state["keys"]
        y = self.emb_drop(self.tgt_embed(self.decoder_ids(tgt)))
        ctx, states, alphas = [], [], []
        for t in range(tgt.shape[1]):
            s = self.decoder.cell(y[:, t], s)
            a, alpha = self.attend(keys, memory, src_pad_mask, s)
            ctx.append(a)
            states.append(s)
            alphas.append(alpha)
        a, st = torch.stack(ctx, 1), torch.stack(states, 1)
        logits = self.out(self.drop(torch.cat([a, st], -1)))
        attn = [] if alphas[0] is None else [torch.stack(alphas, 1)]
        if self.copy_gate is None:
            return logits, [], attn, None
        return logits, [], attn, (attn[0], self.copy_gate(a, st, y))

    def decoder_ids(self, tgt):
        """The ids the decoder embeds: a copy model reads an id past the vocabulary as unk."""
        if self.copy_gate is None:
            return tgt
        return tgt.masked_fill(tgt >= len(self.config["tgt_vocab"]), self.config["tgt_specials"]["unk"])

    def forward_copy(self, src, tgt, src_lengths=None, src_pad_mask=None):
        """forward() as a dict, as Seq2SeqTransformer's: logits, and for a copy model
        copy_attn and gate_logits (output_log_probs mixes them in)."""
        memory, spm, _ = self.encode(src, src_pad_mask, src_lengths)
        logits, _, _, cp = self.decode_copy(tgt, memory, spm)
        out = {"logits": logits}
        if cp is not None:
            out["copy_attn"], out["gate_logits"] = cp
        return out

    def forward(self, src, tgt, src_lengths=None, src_pad_mask=None):
        """src [B,S] (padded after the tokens), tgt [B,T] decoder input (BOS first),
        src_lengths [B] (default: non-pad count) -> (logits [B,T,Vt], attention [B,T,S])."""
        memory, spm, _ = self.encode(src, src_pad_mask, src_lengths)
        logits, _, ca = self.decode(tgt, memory, spm)
        return logits, (ca[0] if ca else None)


def output_log_probs(out, copy_ids=None, n_extra=0):
    """The output distribution's log-probabilities from a forward's dict (a
    Seq2SeqTransformer's forward, an RnnSeq2Seq's forward_copy): log_softmax of the
    logits, or for a copy model the pointer-generator's mix (copy_distribution) over
    the target vocabulary and the n_extra tokens past it, copy_ids [B,S] giving each
    source position's output id."""
    lp = torch.log_softmax(out["logits"], -1)
    if "gate_logits" not in out:
        return lp
    return copy_distribution(lp, out["gate_logits"], out["copy_attn"], copy_ids, n_extra)


ARCHITECTURES = {
    "transformer": Seq2SeqTransformer,
    "cmlm": Seq2SeqTransformer,
    "rnn": RnnSeq2Seq,
}


def build_model(config, **train_kwargs):
    """Model for ``config['arch']``, via the ARCHITECTURES registry."""
    arch = config.get("arch", CONFIG_DEFAULTS["arch"])
    if arch not in ARCHITECTURES:
        raise ConfigError(f"unknown arch {arch!r}")
    return ARCHITECTURES[arch](config, **train_kwargs)


def config_json(config):
    return json.dumps(normalize_config(config), ensure_ascii=False, separators=(",", ":"))
