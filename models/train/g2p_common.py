"""Shared pieces of the G2P training scripts: data, batching, decoding, scoring,
checkpoints. All deterministic given the seeds."""

import glob
import json
import math
import os
import random
import time

import torch

from .metrics import edit_distance, score  # noqa: F401  (re-exported: the training modules import them from here)

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(HERE, "work")
DATA = os.path.join(WORK, "data")
DATA_STRESS = os.path.join(WORK, "data-stress")  # prepare-data --stress: the same split, stress digits kept
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


def load_vocab(data=DATA):
    path = os.path.join(data, "vocab.json")
    if not os.path.exists(path):
        flag = " --stress" if data == DATA_STRESS else ""
        raise SystemExit(f"missing {path}: run /usr/bin/python3 -m models.train prepare-data{flag} first "
                         "(see models/train/README.md)")
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


def make_batches(examples, batch_size, seed, key=None, bucket=True):
    """Length-bucketed batches in a deterministic, seed-dependent order.

    examples: list of items; key(item) -> length used for bucketing.
    bucket=False: the shuffled examples taken batch_size at a time, unsorted.
    Returns a list of lists of indices.
    """
    rng = random.Random(seed)
    idx = list(range(len(examples)))
    rng.shuffle(idx)
    key = key or (lambda e: len(e[0]))
    if not bucket:
        return [idx[i:i + batch_size] for i in range(0, len(idx), batch_size)]
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

MAX_OUTPUT_LEN = 40  # output cap of the G2P models (EOS included), = train_transformer.MAX_TARGET_LEN


def max_output_len(cfg):
    """Longest output (EOS included) the G2P decoders allow for a model config:
    max_target_len (Transformer configs), else MAX_OUTPUT_LEN within max_pos (rnn)."""
    if "max_target_len" in cfg:
        return cfg["max_target_len"]
    return min(MAX_OUTPUT_LEN, cfg["max_pos"])


class _Stepper:
    """Next-token logits for a batch of prefixes ys [N, t+1]. A model with an
    incremental step (``init_state``/``step``/``reorder_state``: the RNN) is fed the
    last token only; the Transformer recomputes its decoder over the whole prefix."""

    def __init__(self, model, memory, spm):
        self.model, self.memory, self.spm = model, memory, spm
        self.incremental = hasattr(model, "step")
        self.state = model.init_state(memory, spm) if self.incremental else None

    def logits(self, ys):
        if self.incremental:
            logits, self.state, _ = self.model.step(ys[:, -1], self.state, self.memory, self.spm)
            return logits
        logits, _, _ = self.model.decode(ys, self.memory, self.spm, torch.zeros_like(ys, dtype=torch.bool))
        return logits[:, -1]

    def reorder(self, idx):
        """Row i of the new batch continues old row idx[i] (beam search)."""
        if self.incremental:
            self.state = self.model.reorder_state(self.state, idx)


def _ar_step_logprobs(stepper, codec, ys, t, max_len):
    """Log-probabilities of the next token, with the C++ engine's rules (src/ar_search.cpp):
    pad/unk/bos/mask are never emitted, and the last position (t + 1 == max_len) can
    only be EOS."""
    lp = torch.log_softmax(stepper.logits(ys).float(), -1)
    lp[:, sorted(codec.special_ids - {codec.eos})] = float("-inf")
    if t + 1 >= max_len:
        eos = lp[:, codec.eos].clone()
        lp.fill_(float("-inf"))
        lp[:, codec.eos] = eos
    return lp


@torch.no_grad()
def ar_greedy(model, codec, words, max_len, batch_size=512):
    """Greedy decoding; at most ``max_len`` output tokens, EOS included."""
    model.eval()
    out = {}
    for i in range(0, len(words), batch_size):
        ws = words[i:i + batch_size]
        src = pad_seqs([codec.src(w) for w in ws], codec.src_pad)
        memory, spm, _ = model.encode(src)
        stepper = _Stepper(model, memory, spm)
        ys = torch.full((len(ws), 1), codec.bos, dtype=torch.long)
        done = torch.zeros(len(ws), dtype=torch.bool)
        for t in range(max_len):
            nxt = _ar_step_logprobs(stepper, codec, ys, t, max_len).argmax(-1)
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
    """Beam search with the C++ engine's rules (src/ar_search.cpp, length penalty none,
    n-best 1): each step ranks all extensions of the live hypotheses by total
    log-probability; an EOS extension is finished if it ranks among the first ``beam``,
    the best ``beam`` non-EOS extensions stay live; a source is done when nothing is
    live or no live hypothesis beats its best finished one; at most ``max_len`` output
    tokens, EOS included. Returns the best finished hypothesis per word."""
    model.eval()
    out = {}
    V = len(codec.tgt_vocab)
    K = beam
    NEG = float("-inf")
    for i in range(0, len(words), batch_size):
        ws = words[i:i + batch_size]
        B = len(ws)
        src = pad_seqs([codec.src(w) for w in ws], codec.src_pad)
        memory, spm, _ = model.encode(src)
        memory = memory.repeat_interleave(K, 0)
        spm = spm.repeat_interleave(K, 0)
        stepper = _Stepper(model, memory, spm)
        ys = torch.full((B * K, 1), codec.bos, dtype=torch.long)
        live = torch.full((B, K), NEG, dtype=torch.float64)
        live[:, 0] = 0.0
        best_fin = torch.full((B,), NEG, dtype=torch.float64)
        best_tokens = [[] for _ in range(B)]
        done = torch.zeros(B, dtype=torch.bool)
        for t in range(max_len):
            lp = _ar_step_logprobs(stepper, codec, ys, t, max_len).double().view(B, K, V)
            cand = (live[..., None] + lp).view(B, K * V)
            top, idx = cand.topk(2 * K, -1)  # sorted, best first
            row, tok = idx // V, idx % V
            valid = torch.isfinite(top)
            is_eos = tok.eq(codec.eos) & valid
            rank = torch.arange(2 * K)[None, :]
            fin = is_eos & (rank < K)
            # finished: keep the best per source
            fin_score = torch.where(fin, top, torch.full_like(top, NEG))
            fbest, fpos = fin_score.max(-1)
            improve = (fbest > best_fin) & ~done
            for b in improve.nonzero().flatten().tolist():
                r = int(row[b, fpos[b]])
                best_tokens[b] = ys[b * K + r, 1:].tolist()
            best_fin = torch.where(improve, fbest, best_fin)
            # live: the first K valid non-EOS candidates
            nonfin = valid & ~tok.eq(codec.eos)
            take = nonfin & (nonfin.long().cumsum(-1) <= K)
            order = torch.sort((~take).long(), dim=-1, stable=True).indices[:, :K]  # taken ones first, in rank order
            sel = take.gather(1, order)
            new_row = row.gather(1, order)
            new_tok = tok.gather(1, order)
            new_live = torch.where(sel, top.gather(1, order), torch.full((B, K), NEG, dtype=torch.float64))
            base = (torch.arange(B)[:, None] * K + new_row).view(-1)
            ys = torch.cat([ys[base], new_tok.view(-1, 1)], 1)
            stepper.reorder(base)
            live = torch.where(done[:, None], torch.full_like(new_live, NEG), new_live)
            best_live = live.max(-1).values
            done |= ~torch.isfinite(best_live) | (torch.isfinite(best_fin) & (best_live <= best_fin))
            if done.all():
                break
        for b, w in enumerate(ws):
            out[w] = codec.phones(best_tokens[b])
    return out


@torch.no_grad()
def cmlm_decode(model, codec, words, iterations=10, length_beam=3, batch_size=256, early_stop=True,
                length_score_weight=0.0):
    """Mask-Predict, with the same rules as the C++ engine's NarSearch (src/nar_search.cpp):

    * candidates: the ``length_beam`` most likely lengths 1..max_target_len of the
      length head (ties: the shorter), one draft each, all positions MASK;
    * iteration t = 1..T predicts every masked position (argmax over the vocabulary
      without pad/unk/bos/mask) and remembers its probability; before iteration t > 1
      the floor(n * (T - t + 1) / T) least confident positions (ties: the earlier) are
      re-masked; it stops after T iterations, when the schedule would re-mask nothing,
      or (early_stop) when an iteration t > 1 changed no draft of that source;
    * a draft's output is cut at the first EOS; its score is the mean log-probability
      of its tokens up to and including that EOS plus ``length_score_weight`` times
      the length head's log-probability of its length; the best-scoring draft wins.
    """
    model.eval()
    out = {}
    T = iterations
    Lmax = model.config["max_target_len"]
    banned = sorted(codec.special_ids - {codec.eos})
    for i in range(0, len(words), batch_size):
        ws = words[i:i + batch_size]
        B = len(ws)
        src = pad_seqs([codec.src(w) for w in ws], codec.src_pad)
        memory, spm, _ = model.encode(src)
        len_lp = torch.log_softmax(model.length_logits(memory, spm), -1)[:, 1:Lmax + 1]
        K = min(length_beam, Lmax)
        order = torch.sort(-len_lp, dim=-1, stable=True).indices[:, :K] + 1  # [B, K] lengths
        lens = order.reshape(-1)
        N = int(lens.max())
        memory = memory.repeat_interleave(K, 0)
        spm = spm.repeat_interleave(K, 0)
        pos = torch.arange(N)[None, :]
        tpm = pos >= lens[:, None]
        tokens = torch.full((B * K, N), codec.mask, dtype=torch.long).masked_fill(tpm, codec.pad)
        probs = torch.zeros(B * K, N)
        done = torch.zeros(B, dtype=torch.bool)
        for t in range(1, T + 1):
            active = (~done).repeat_interleave(K)[:, None]
            before = tokens.clone()
            if t > 1:
                n_mask = (lens * (T - t + 1)) // T
                key = probs.masked_fill(tpm, float("inf"))
                order_pos = torch.sort(key, dim=-1, stable=True).indices
                rank = torch.empty_like(order_pos)
                rank.scatter_(1, order_pos, torch.arange(N).expand_as(order_pos).contiguous())
                tokens = torch.where((rank < n_mask[:, None]) & active, torch.full_like(tokens, codec.mask), tokens)
            masked = tokens.eq(codec.mask) & ~tpm & active
            logits, _, _ = model.decode(tokens, memory, spm, tpm)
            lp = torch.log_softmax(logits.float(), -1)
            lp[..., banned] = float("-inf")
            best_lp, best = lp.max(-1)
            tokens = torch.where(masked, best, tokens)
            probs = torch.where(masked, best_lp.exp(), probs)
            changed = (tokens != before).view(B, K, N).any(-1).any(-1)
            if t == T or bool((((lens * (T - t)) // T) == 0).all()):
                break
            if early_stop and t > 1:
                done |= ~changed
                if done.all():
                    break
        is_eos = tokens.eq(codec.eos) & ~tpm
        has_eos = is_eos.any(-1)
        first_eos = torch.where(has_eos, is_eos.float().argmax(-1), lens)
        counted = torch.minimum(lens, first_eos + has_eos.long())
        logp = probs.clamp(min=1e-30).log().masked_fill(pos >= counted[:, None], 0.0)
        avg = torch.where(counted > 0, logp.sum(-1) / counted.clamp(min=1).float(), torch.zeros(B * K))
        draft_score = avg.view(B, K) + length_score_weight * torch.gather(len_lp, 1, order - 1).to(avg.dtype)
        pick = draft_score.argmax(-1)  # first maximum: the more likely length on ties
        for b, w in enumerate(ws):
            out[w] = codec.phones(tokens[b * K + pick[b]].tolist())
    return out
