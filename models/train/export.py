"""Write and read seq2seq-wasm model files (docs/model-format.md).

    export(model, config_dict, path, dtype="f32"|"f16"|"i8"|"q4", i8_levels=127, q4_group=32)
    config, state_dict = load_model_file(path)

CLI (a training checkpoint written by train_*.py -> model file):

    /usr/bin/python3 -m models.train export CHECKPOINT.pt|MODEL.safetensors OUT.safetensors [--f16 | --i8 [--i8-levels N] | --q4 [--q4-group G]]

The safetensors container is written here by hand (no safetensors package):
u64 LE header length, JSON header (tensor entries + ``__metadata__`` of strings,
padded with spaces to a multiple of 8), then the raw little-endian tensor data.
"""

import argparse
import json
import os
import struct

import numpy as np
import torch

from .seq2seq_torch import CONFIG_DEFAULTS, OPTIONAL_CONFIG_KEYS, build_model, normalize_config

FORMAT = "seq2seq-wasm"
FORMAT_VERSION = "1"
# "i8": 2-D weights as int8 with per-row f32 scales (name + ".scale"), everything else f32
# "q4": 2-D weights as 4-bit integers, two a byte (U8), with per-row f32 scales and
# multipliers per group of columns (name + ".multiplier", U8 [rows, cols / group]),
# everything else (biases, norms) f16: at 4 bits a weight they would be a twentieth of the file
_DT = {"f32": ("F32", np.dtype("<f4")), "f16": ("F16", np.dtype("<f2")), "i8": ("F32", np.dtype("<f4")),
       "q4": ("F16", np.dtype("<f2"))}
_NP_OF = {"F32": np.dtype("<f4"), "F16": np.dtype("<f2"), "I8": np.dtype("i1"), "U8": np.dtype("u1")}
SCALE_SUFFIX = ".scale"
MULTIPLIER_SUFFIX = ".multiplier"


def quantize_rows(a, levels=127):
    """float64 [R, C] -> (int8 [R, C], float32 scales [R]): symmetric, per row,
    q = round(w / s) with s = max|w| / levels (s = 0 for an all-zero row), q in
    -levels..levels. The stored weight is float32(q) * s, one float32 multiply, as
    the engines compute it. Fewer levels than 127 give the same file size but a file
    that compresses better (the page's models travel gzipped): 19 levels, about 5.3
    bits of information per weight, gzip to 0.71 of the 127-level file."""
    if not (isinstance(levels, int) and 1 <= levels <= 127):
        raise ValueError(f"i8 levels must be an integer in 1..127, not {levels!r}")
    scale = (np.abs(a).max(axis=1) / float(levels)).astype(np.float32)
    safe = np.where(scale > 0, scale, 1).astype(np.float64)
    q = np.clip(np.rint(a / safe[:, None]), -levels, levels).astype(np.int8)
    return q, scale


def quantize_int4(a, group=32):
    """float64 [R, C] -> (uint8 [R, C / 2], float32 scales [R], uint8 multipliers [R, C / group]):
    4-bit values q in -7..7, two a byte (the even column in the low nibble, each a
    two's-complement nibble), a scale s per row and a multiplier m in 0..15 per group of
    ``group`` columns; the stored weight is float32(q * m) * s. So q * m is an int8
    value (|q * m| <= 105) and the engine multiplies the weight in int8 exactly as
    stored. s = max|row| / 105, m = the least that covers the group's largest value
    (ceil(max|group| / (7 s))), q = round(w / (m s)): each group gets a step of m * s
    for its own range, within one s of the step max|group| / 7 that a scale of its own
    would give."""
    R, C = a.shape
    if not (isinstance(group, int) and group >= 2 and group % 2 == 0 and C % group == 0):
        raise ValueError(f"int4 group must be an even integer dividing the {C} columns, not {group!r}")
    scale = (np.abs(a).max(axis=1) / 105.0).astype(np.float32)
    s = scale.astype(np.float64)
    safe = np.where(s > 0, s, 1)[:, None, None]
    g = a.reshape(R, C // group, group)
    m = np.clip(np.ceil(np.abs(g).max(axis=2, keepdims=True) / (7 * safe) - 1e-9), 0, 15)
    m = np.where(s[:, None, None] > 0, m, 0)
    q = np.where(m > 0, np.clip(np.rint(g / (np.where(m > 0, m, 1) * safe)), -7, 7), 0).astype(np.int8).reshape(R, C)
    nib = (q & 0xF).astype(np.uint8)
    return (nib[:, 0::2] | (nib[:, 1::2] << 4)).astype(np.uint8), scale, m[:, :, 0].astype(np.uint8)


def unpack_q4(packed):
    """uint8 [R, C / 2] -> int8 [R, C] (two's-complement nibbles, the low one first)."""
    lo = (packed & 0xF).astype(np.int8)
    hi = (packed >> 4).astype(np.int8)
    q = np.empty((packed.shape[0], packed.shape[1] * 2), dtype=np.int8)
    q[:, 0::2], q[:, 1::2] = lo, hi
    return np.where(q >= 8, q - 16, q).astype(np.int8)


def widen_int4(packed, multiplier=None):
    """A U8 weight and its multipliers [R, G] (or None: all 1) -> int8 [R, C]: q * m."""
    q = unpack_q4(packed).astype(np.int16)
    if multiplier is not None:
        q = q * np.repeat(multiplier.astype(np.int16), q.shape[1] // multiplier.shape[1], axis=1)
    return q.astype(np.int8)


def dequantize_rows(q, scale):
    return torch.from_numpy(q.astype(np.float32)) * torch.from_numpy(scale.astype(np.float32))[:, None]


def expected_tensor_names(config):
    """The tensor names (and shapes) the spec requires for ``config``."""
    cfg = normalize_config(config)
    if cfg["arch"] == "rnn":
        return expected_rnn_tensor_names(cfg)
    L, F, Vs, Vt = cfg["d_model"], cfg["d_ff"], len(cfg["src_vocab"]), len(cfg["tgt_vocab"])
    shapes = {"src_embed.weight": [Vs, L], "tgt_embed.weight": [Vt, L], "out_proj.bias": [Vt]}
    if cfg["pos"] == "learned":
        shapes["src_pos.weight"] = shapes["tgt_pos.weight"] = [cfg["max_pos"], L]

    def attn(prefix):
        for p in "qkvo":
            shapes[f"{prefix}.{p}_proj.weight"] = [L, L]
            shapes[f"{prefix}.{p}_proj.bias"] = [L]

    def ffn(prefix):
        shapes[f"{prefix}.fc1.weight"], shapes[f"{prefix}.fc1.bias"] = [F, L], [F]
        shapes[f"{prefix}.fc2.weight"], shapes[f"{prefix}.fc2.bias"] = [L, F], [L]

    def ln(name):
        shapes[f"{name}.weight"] = shapes[f"{name}.bias"] = [L]

    for i in range(cfg["enc_layers"]):
        p = f"encoder.layers.{i}"
        attn(p + ".self_attn"); ffn(p + ".ffn"); ln(p + ".ln1"); ln(p + ".ln2")
    if cfg["norm"] == "pre" and cfg["enc_layers"] > 0:
        ln("encoder.final_ln")
    for i in range(cfg["dec_layers"]):
        p = f"decoder.layers.{i}"
        attn(p + ".self_attn"); attn(p + ".cross_attn"); ffn(p + ".ffn")
        ln(p + ".ln1"); ln(p + ".ln2"); ln(p + ".ln3")
    if cfg["norm"] == "pre":
        ln("decoder.final_ln")
    if not cfg["tie_output"]:
        shapes["out_proj.weight"] = [Vt, L]
    if cfg["arch"] == "cmlm":
        shapes["length_head.weight"] = [cfg["max_target_len"] + 1, L]
        shapes["length_head.bias"] = [cfg["max_target_len"] + 1]
    if cfg["copy"]:  # [context ; decoder output ; decoder input], each L wide
        shapes["copy_gate.weight"], shapes["copy_gate.bias"] = [1, 3 * L], [1]
    return shapes


def expected_rnn_tensor_names(cfg):
    """Tensor names and shapes of an ``"arch": "rnn"`` model (docs/model-format.md,
    "The RNN encoder-decoder"), in the order they are written."""
    E, H, D = cfg["emb_dim"], cfg["enc_hidden"], cfg["dec_hidden"]
    Vs, Vt = len(cfg["src_vocab"]), len(cfg["tgt_vocab"])
    shapes = {"src_embed.weight": [Vs, E], "tgt_embed.weight": [Vt, E]}
    for k in range(cfg["enc_layers"]):
        for sfx in ("", "_reverse"):
            shapes[f"encoder.rnn.weight_ih_l{k}{sfx}"] = [3 * H, E if k == 0 else 2 * H]
            shapes[f"encoder.rnn.weight_hh_l{k}{sfx}"] = [3 * H, H]
            shapes[f"encoder.rnn.bias_ih_l{k}{sfx}"] = [3 * H]
            shapes[f"encoder.rnn.bias_hh_l{k}{sfx}"] = [3 * H]
    shapes["bridge.weight"], shapes["bridge.bias"] = [D, 2 * H], [D]
    shapes["decoder.cell.weight_ih"], shapes["decoder.cell.weight_hh"] = [3 * D, E], [3 * D, D]
    shapes["decoder.cell.bias_ih"], shapes["decoder.cell.bias_hh"] = [3 * D], [3 * D]
    a, r = cfg["attention"], cfg["attn_dim"]
    if a == "multiplicative":
        shapes["attn.W.weight"] = [D, 2 * H]
    elif a == "reduced_rank":
        shapes["attn.U.weight"], shapes["attn.V.weight"] = [r, D], [r, 2 * H]
    elif a == "additive":
        shapes["attn.W1.weight"], shapes["attn.W2.weight"], shapes["attn.v.weight"] = [r, 2 * H], [r, D], [1, r]
    shapes["out.weight"], shapes["out.bias"] = [Vt, 2 * H + D], [Vt]
    if cfg["copy"]:  # [a_t ; s_t ; the input's embedding]
        shapes["copy_gate.weight"], shapes["copy_gate.bias"] = [1, 2 * H + D + E], [1]
    return shapes


def write_safetensors(path, tensors, metadata, dtype="f32", i8_levels=127, q4_group=32):
    """tensors: dict name -> array-like (float); metadata: dict of str -> str;
    i8_levels: with dtype "i8", the quantization levels each side of 0 (quantize_rows);
    q4_group: with dtype "q4", the columns a multiplier covers (quantize_int4)."""
    st_dtype, np_dtype = _DT[dtype]
    header = {"__metadata__": {k: str(v) for k, v in metadata.items()}}
    blobs, offset = [], 0
    for name, t in tensors.items():
        if isinstance(t, torch.Tensor):
            t = t.detach().cpu().to(torch.float64).numpy()
        a64 = np.asarray(t, dtype=np.float64)
        if dtype == "i8" and a64.ndim == 2:
            q, scale = quantize_rows(a64, i8_levels)
            parts = [(name, "I8", q), (name + SCALE_SUFFIX, "F32", scale)]
        elif dtype == "q4" and a64.ndim == 2:
            q, scale, mult = quantize_int4(a64, q4_group)
            parts = [(name, "U8", q), (name + SCALE_SUFFIX, "F32", scale), (name + MULTIPLIER_SUFFIX, "U8", mult)]
        else:
            parts = [(name, st_dtype, a64.astype(np_dtype))]
        for pname, pdt, a in parts:
            a = np.ascontiguousarray(a)
            if pdt == "F16" and not np.all(np.isfinite(a)):
                raise ValueError(f"tensor {name} overflows float16")
            b = a.tobytes(order="C")
            header[pname] = {"dtype": pdt, "shape": list(a.shape), "data_offsets": [offset, offset + len(b)]}
            blobs.append(b)
            offset += len(b)
    hj = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    hj += b" " * ((-len(hj)) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(hj)))
        f.write(hj)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


def read_safetensors(path):
    """-> (metadata dict, {name: float32 torch tensor}, {name: dtype string}).
    I8 and U8 (4-bit) tensors come back dequantized with their scales (which are not listed)."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n].decode("utf-8"))
    body = data[8 + n:]
    meta = header.pop("__metadata__", {})
    raw, dtypes = {}, {}
    for name, e in header.items():
        b, en = e["data_offsets"]
        raw[name] = np.frombuffer(body[b:en], dtype=_NP_OF[e["dtype"]]).reshape(e["shape"])
        dtypes[name] = e["dtype"]
    tensors = {}
    quantized = ("I8", "U8")
    companion = lambda n: any(n.endswith(x) and dtypes.get(n[: -len(x)]) in quantized  # noqa: E731
                              for x in (SCALE_SUFFIX, MULTIPLIER_SUFFIX))
    for name, a in raw.items():
        if companion(name):
            continue
        if dtypes[name] in quantized:
            q = a if dtypes[name] == "I8" else widen_int4(a, raw.get(name + MULTIPLIER_SUFFIX))
            tensors[name] = dequantize_rows(q, raw[name + SCALE_SUFFIX])
        else:
            tensors[name] = torch.from_numpy(a.astype(np.float32))
    dtypes = {k: v for k, v in dtypes.items() if k in tensors}
    return meta, tensors, dtypes


def export(model, config_dict, path, dtype="f32", i8_levels=127, q4_group=32):
    """Write ``model`` (its state_dict) with ``config_dict`` to ``path`` (``i8_levels``:
    see quantize_rows; ``q4_group``: quantize_int4).

    Checks that the tensor names and shapes are exactly those of the spec.
    Returns the normalized config.
    """
    if dtype not in _DT:
        raise ValueError("dtype must be 'f32', 'f16', 'i8' or 'q4'")
    cfg = normalize_config(config_dict)
    sd = model.state_dict() if hasattr(model, "state_dict") else dict(model)
    want = expected_tensor_names(cfg)
    got = {k: list(v.shape) for k, v in sd.items()}
    if set(got) != set(want):
        raise ValueError(f"state_dict names differ from the spec: missing {sorted(set(want) - set(got))}, "
                         f"extra {sorted(set(got) - set(want))}")
    for k, s in want.items():
        if got[k] != s:
            raise ValueError(f"{k}: shape {got[k]} != spec {s}")
    # Optional keys at their default are left out, so that a model not using them is
    # written exactly as before the key existed (and older engines still load it).
    written = {k: v for k, v in cfg.items() if not (k in OPTIONAL_CONFIG_KEYS and v == CONFIG_DEFAULTS[k])}
    meta = {"format": FORMAT, "format_version": FORMAT_VERSION,
            "config": json.dumps(written, ensure_ascii=False, separators=(",", ":"))}
    write_safetensors(path, {k: sd[k] for k in want}, meta, dtype, i8_levels, q4_group)
    return cfg


def load_model_file(path):
    """-> (config dict, state_dict of float32 tensors)."""
    meta, tensors, _ = read_safetensors(path)
    if meta.get("format") != FORMAT or meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{path}: not a {FORMAT} v{FORMAT_VERSION} file")
    cfg = normalize_config(json.loads(meta["config"]))
    want = expected_tensor_names(cfg)
    if set(want) != set(tensors):
        raise ValueError(f"{path}: tensor names differ from the spec")
    return cfg, tensors


def load_model(path):
    """-> an eval() model built from a model file."""
    cfg, sd = load_model_file(path)
    model = build_model(cfg)
    model.load_state_dict(sd)
    return model.eval()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint", help="checkpoint .pt with keys 'config' and 'model' (or 'avg_model'), or a model "
                    "file .safetensors to store again (an int8 or 4-bit one is read dequantized)")
    ap.add_argument("out", help="output .safetensors")
    ap.add_argument("--f16", action="store_true", help="store weights as float16")
    ap.add_argument("--i8", action="store_true", help="store 2-D weights as int8 with per-row scales")
    ap.add_argument("--i8-levels", type=int, default=127,
                    help="with --i8: quantization levels each side of 0 (fewer: a file that gzips smaller)")
    ap.add_argument("--q4", action="store_true", help="store 2-D weights as 4-bit integers with per-row scales and per-group multipliers")
    ap.add_argument("--q4-group", type=int, default=32, help="with --q4: the columns each multiplier covers")
    ap.add_argument("--key", default=None, help="state-dict key inside the checkpoint (default: avg_model if present, else model)")
    a = ap.parse_args(argv)
    torch.set_num_threads(2)
    if a.checkpoint.endswith(".safetensors"):
        config, state, key = *load_model_file(a.checkpoint), "model file"
    else:
        ck = torch.load(a.checkpoint, map_location="cpu")
        key = a.key or ("avg_model" if ck.get("avg_model") is not None else "model")
        config, state = ck["config"], ck[key]
    model = build_model(config)
    model.load_state_dict(state)
    export(model, config, a.out, "q4" if a.q4 else "i8" if a.i8 else "f16" if a.f16 else "f32", a.i8_levels, a.q4_group)
    print(f"wrote {a.out} ({os.path.getsize(a.out)} bytes) from {key}")


if __name__ == "__main__":
    main()
