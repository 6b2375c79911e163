"""Shared pieces of the G2P training scripts: data, batching, decoding, scoring,
checkpoints. All deterministic given the seeds."""

import glob
import json
import math
import os
import random
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(HERE, "work")
DATA = os.path.join(WORK, "data")
MODELS_DIR = os.path.abspath(os.path.join(HERE, ".."))


def log(msg, path=None):
    line = time.strftime("%Y-%m-%d %H:%M:%S ") + msg
    print(line, flush=True)


# ----------------------------------------------------------------------------
# Data
# ----------------------------------------------------------------------------

def load_tsv(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            w, p = line.rstrip("\n").split("\t")
            rows.append((w, p.split()))
    return rows


def load_vocab():
    path = os.path.join(DATA, "vocab.json")
    if not os.path.exists(path):
        raise SystemExit(f"missing {path}: run models/train/prepare_data.py first (see models/train/README.md)")
    with open(path) as f:
        return json.load(f)


def refs_by_word(rows):
    """word -> set of reference pronunciations (tuples)."""
    d = {}
    for w, p in rows:
        d.setdefault(w, set()).add(tuple(p))
    return d


class Codec:
    def __init__(self, vocab):
        self.src_vocab, self.tgt_vocab = vocab["src_vocab"], vocab["tgt_vocab"]
        self.s2i = {c: i for i, c in enumerate(self.src_vocab)}
        self.t2i = {c: i for i, c in enumerate(self.tgt_vocab)}
        sp = vocab["tgt_specials"]
        self.pad, self.bos, self.eos, self.mask = sp["pad"], sp["bos"], sp["eos"], sp["mask"]
        self.src_pad = vocab["src_specials"]["pad"]
        self.special_ids = set(sp.values())

    def src(self, word):
        return [self.s2i[c] for c in word.upper()]

    def tgt(self, phones):
        return [self.t2i[p] for p in phones]

    def phones(self, ids):
        out = []
        for i in ids:
            if i == self.eos:
                break
            if i not in self.special_ids:
                out.append(self.tgt_vocab[i])
        return out


def pad_seqs(seqs, pad, length=None):
    T = length or max(len(s) for s in seqs)
    out = torch.full((len(seqs), T), pad, dtype=torch.long)
    for b, s in enumerate(seqs):
        out[b, :len(s)] = torch.tensor(s, dtype=torch.long)
    return out


def make_batches(examples, batch_size, seed, key=None):
    """Length-bucketed batches in a deterministic, seed-dependent order.

    examples: list of items; key(item) -> length used for bucketing.
    Returns a list of lists of indices.
    """
    rng = random.Random(seed)
    idx = list(range(len(examples)))
    rng.shuffle(idx)
    key = key or (lambda e: len(e[0]))
    chunk = batch_size * 50
    batches = []
    for c in range(0, len(idx), chunk):
        part = sorted(idx[c:c + chunk], key=lambda i: key(examples[i]))
        batches.extend(part[i:i + batch_size] for i in range(0, len(part), batch_size))
    rng.shuffle(batches)
    return batches


# ----------------------------------------------------------------------------
# Learning-rate schedule, checkpoints
# ----------------------------------------------------------------------------

def lr_at(step, total, peak, warmup, final_frac=0.02):
    """Linear warmup to ``peak``, then cosine decay to ``final_frac * peak``."""
    if step < warmup:
        return peak * (step + 1) / warmup
    t = min(1.0, (step - warmup) / max(1, total - warmup))
    return peak * (final_frac + (1 - final_frac) * 0.5 * (1 + math.cos(math.pi * t)))


def save_atomic(obj, path):
    tmp = path + ".tmp"
    torch.save(obj, tmp)
    os.replace(tmp, path)


def average_state_dicts(paths):
    avg = None
    for p in paths:
        sd = torch.load(p, map_location="cpu")["model"]
        if avg is None:
            avg = {k: v.clone().double() for k, v in sd.items()}
        else:
            for k, v in sd.items():
                avg[k] += v.double()
    return {k: (v / len(paths)).float() for k, v in avg.items()}


def epoch_files(run_dir):
    files = glob.glob(os.path.join(run_dir, "epoch*.pt"))
    return sorted(files, key=lambda p: int(os.path.basename(p)[5:-3]))


# ----------------------------------------------------------------------------
# Decoding (PyTorch reference decoders)
# ----------------------------------------------------------------------------

@torch.no_grad()
def ar_greedy(model, codec, words, max_len, batch_size=512):
    model.eval()
    out = {}
    for i in range(0, len(words), batch_size):
        ws = words[i:i + batch_size]
        src = pad_seqs([codec.src(w) for w in ws], codec.src_pad)
        memory, spm, _ = model.encode(src)
        ys = torch.full((len(ws), 1), codec.bos, dtype=torch.long)
        done = torch.zeros(len(ws), dtype=torch.bool)
        for _ in range(max_len):
            logits, _, _ = model.decode(ys, memory, spm, torch.zeros_like(ys, dtype=torch.bool))
            nxt = logits[:, -1].argmax(-1)
            nxt = torch.where(done, torch.full_like(nxt, codec.eos), nxt)
            ys = torch.cat([ys, nxt[:, None]], 1)
            done |= nxt.eq(codec.eos)
            if done.all():
                break
        for w, y in zip(ws, ys.tolist()):
            out[w] = codec.phones(y[1:])
    return out


@torch.no_grad()
def ar_beam(model, codec, words, max_len, beam=5, batch_size=128):
    """Beam search; hypotheses ranked by total log-probability (no length penalty)."""
    model.eval()
    out = {}
    V = len(codec.tgt_vocab)
    for i in range(0, len(words), batch_size):
        ws = words[i:i + batch_size]
        B = len(ws)
        src = pad_seqs([codec.src(w) for w in ws], codec.src_pad)
        memory, spm, _ = model.encode(src)
        memory = memory.repeat_interleave(beam, 0)
        spm = spm.repeat_interleave(beam, 0)
        ys = torch.full((B * beam, 1), codec.bos, dtype=torch.long)
        scores = torch.full((B, beam), float("-inf"))
        scores[:, 0] = 0.0
        finished = torch.zeros(B, beam, dtype=torch.bool)
        for t in range(max_len):
            logits, _, _ = model.decode(ys, memory, spm, torch.zeros_like(ys, dtype=torch.bool))
            lp = torch.log_softmax(logits[:, -1].float(), -1).view(B, beam, V)
            # finished hypotheses only extend with EOS at no cost
            fin_lp = torch.full((V,), float("-inf"))
            fin_lp[codec.eos] = 0.0
            lp = torch.where(finished[..., None], fin_lp, lp)
            cand = (scores[..., None] + lp).view(B, beam * V)
            top, idx = cand.topk(beam, -1)
            src_beam, tok = idx // V, idx % V
            base = (torch.arange(B)[:, None] * beam + src_beam).view(-1)
            ys = torch.cat([ys[base], tok.view(-1, 1)], 1)
            finished = finished.view(-1)[base].view(B, beam) | tok.eq(codec.eos)
            scores = top
            if finished.all():
                break
        best = scores.argmax(-1)
        for b, w in enumerate(ws):
            out[w] = codec.phones(ys[b * beam + best[b], 1:].tolist())
    return out


@torch.no_grad()
def cmlm_decode(model, codec, words, iterations=10, length_beam=3, batch_size=256, max_target_len=None):
    """Mask-Predict: length beam from the length head, ``iterations`` rounds of
    re-masking the lowest-probability tokens; output cut at the first EOS; best
    candidate by mean token log-probability."""
    model.eval()
    out = {}
    Lmax = max_target_len or model.config["max_target_len"]
    for i in range(0, len(words), batch_size):
        ws = words[i:i + batch_size]
        B = len(ws)
        src = pad_seqs([codec.src(w) for w in ws], codec.src_pad)
        memory, spm, _ = model.encode(src)
        len_logits = model.length_logits(memory, spm)
        len_logits[:, 0] = float("-inf")
        lens = len_logits.topk(length_beam, -1).indices.clamp(1, Lmax)  # [B, K]
        K = length_beam
        lens = lens.view(-1)
        T = int(lens.max())
        memory = memory.repeat_interleave(K, 0)
        spm = spm.repeat_interleave(K, 0)
        pos = torch.arange(T)[None, :]
        tpm = pos >= lens[:, None]
        tokens = torch.full((B * K, T), codec.mask, dtype=torch.long).masked_fill(tpm, codec.pad)
        probs = torch.zeros(B * K, T)
        for it in range(iterations):
            logits, _, _ = model.decode(tokens, memory, spm, tpm)
            logits[..., list(codec.special_ids - {codec.eos})] = float("-inf")
            lp = torch.log_softmax(logits, -1)
            p, tok = lp.max(-1)
            masked = tokens.eq(codec.mask)
            tokens = torch.where(masked, tok, tokens)
            probs = torch.where(masked, p, probs)
            if it == iterations - 1:
                break
            n_mask = (lens.float() * (1.0 - (it + 1) / iterations)).long()
            sc = probs.masked_fill(tpm, float("inf"))
            order = sc.argsort(-1)
            remask = torch.zeros_like(masked)
            rank = torch.empty_like(order)
            rank.scatter_(1, order, torch.arange(T).expand_as(order).contiguous())
            remask = rank < n_mask[:, None]
            tokens = tokens.masked_fill(remask, codec.mask)
        avg = probs.masked_fill(tpm, 0).sum(-1) / lens.float()
        best = avg.view(B, K).argmax(-1)
        for b, w in enumerate(ws):
            out[w] = codec.phones(tokens[b * K + best[b]].tolist())
    return out


def score(hyps, refs):
    """-> (WER %, PER %): a word is right if it equals any reference; PER is
    edit distance to the closest reference over that reference's length."""
    wrong, edits, total = 0, 0, 0
    for w, rs in refs.items():
        h = tuple(hyps[w])
        if h not in rs:
            wrong += 1
        best = min(rs, key=lambda r: (edit_distance(h, r), len(r)))
        edits += edit_distance(h, best)
        total += len(best)
    return 100.0 * wrong / len(refs), 100.0 * edits / max(1, total)


def edit_distance(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def engine_eval_hook(model_path, split_tsv, log_fn=print):
    """Hook for evaluating a shipped model with the C++ engine.

    The engine CLI is not ready yet. When it is, run it here on ``split_tsv``
    (words in column 1) with the same decoding settings and score with ``score``.
    Set SEQ2SEQ_BIN to the CLI binary to enable; until then this only logs.
    """
    binary = os.environ.get("SEQ2SEQ_BIN")
    if not binary:
        log_fn(f"[engine-eval hook] C++ engine evaluation skipped for {model_path} (SEQ2SEQ_BIN not set)")
        return None
    log_fn(f"[engine-eval hook] SEQ2SEQ_BIN={binary}: engine evaluation not implemented yet")
    return None
