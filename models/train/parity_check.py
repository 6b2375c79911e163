"""PyTorch vs the C++ engine on a trained model file: same outputs, same probabilities.

    /usr/bin/python3 -m models.train parity MODEL.safetensors [--words 300] [--tol 1e-4]

The parity fixtures test the engine on random weights; this checks the trained
weights themselves, on dev words (never test words):

- autoregressive models (transformer, rnn): the engine decodes greedily with
  ``--trace``; PyTorch re-runs the decoder over the engine's own output path (teacher
  forcing) and must give, at every step, the probabilities the engine reports for
  its top-5 candidates (within --tol) and the same greedy choice; PyTorch's own
  greedy decoder must then give the same outputs word for word.
- cmlm: one Mask-Predict pass (``--iterations 1 --length-candidates 1``): the
  length distribution, the chosen length, every position's token and its
  probability must match.

Exits with status 1 on any mismatch, printing the first few.
"""

import argparse
import json
import math
import os
import subprocess
import sys

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch  # noqa: E402

from .g2p_common import DATA, Codec, ar_greedy, load_tsv, log, max_output_len, pad_seqs
from .engine_cli import RECIPE_COMPUTE, find_binary
from .export import load_model, load_model_file


def dev_words(n):
    """n dev words spread over the alphabetically sorted dev set (not its first n)."""
    words = sorted({w for w, _ in load_tsv(os.path.join(DATA, "dev.tsv"))})
    step = max(1, len(words) // n)
    return words[::step][:n]


def engine_trace(binary, model_path, words, options):
    p = subprocess.run([binary, "decode", "--model", model_path, "--trace", "--compute", RECIPE_COMPUTE] + options,
                       input="\n".join(words) + "\n", capture_output=True, text=True, check=False)
    if p.returncode != 0:
        raise RuntimeError(f"{binary} failed ({p.returncode}): {p.stderr[:2000]}")
    steps = {}
    for line in p.stdout.splitlines():
        snap = json.loads(line)
        steps.setdefault(snap["source"], []).append(snap)
    return steps


class Mismatches:
    def __init__(self, tol):
        self.tol, self.items, self.max_diff, self.checked = tol, [], 0.0, 0

    def prob(self, where, engine, torch_p):
        self.checked += 1
        d = abs(engine - torch_p)
        self.max_diff = max(self.max_diff, d)
        if d > self.tol:
            self.items.append(f"{where}: engine {engine:.6f} vs PyTorch {torch_p:.6f}")

    def same(self, where, engine, torch_v):
        self.checked += 1
        if engine != torch_v:
            self.items.append(f"{where}: engine {engine} vs PyTorch {torch_v}")


@torch.no_grad()
def check_autoregressive(model, cfg, codec, steps, words, mm):
    max_len = max_output_len(cfg)
    for w in words:
        final = steps[w][-1]
        hyp = final["finished"][0] if final["finished"] else final["live"][0]
        tokens = hyp["tokens"]
        # per step, the engine's candidates for the token it chose at that step
        cands = [s["live"][0]["candidates"] if s["live"] else s["finished"][0]["candidates"] for s in steps[w]]
        src = torch.tensor([codec.src(w)])
        memory, spm, _ = model.encode(src)
        ys = torch.tensor([[codec.bos] + tokens[:-1]])
        logits, _, _ = model.decode(ys, memory, spm, torch.zeros_like(ys, dtype=torch.bool))
        probs = torch.softmax(logits[0].float(), -1)
        for t, (tok, cs) in enumerate(zip(tokens, cands)):
            for c in cs:
                mm.prob(f"{w} step {t + 1} token {c['text']}", c["prob"], float(probs[t, c["token"]]))
            allowed = probs[t].clone()
            allowed[sorted(codec.special_ids - {codec.eos})] = -1.0
            if t + 1 >= max_len:
                continue  # the last position may only be EOS in both
            best = int(allowed.argmax())
            if best != tok and float(allowed[best] - allowed[tok]) > mm.tol:
                mm.same(f"{w} step {t + 1} greedy choice", codec.tgt_vocab[tok], codec.tgt_vocab[best])
    eng_out = {w: codec.phones((steps[w][-1]["results"] or [{"tokens": []}])[0]["tokens"]) for w in words}
    torch_out = ar_greedy(model, codec, words, max_len)
    for w in words:
        mm.same(f"{w} output", " ".join(eng_out[w]), " ".join(torch_out[w]))


@torch.no_grad()
def check_cmlm(model, cfg, codec, steps, words, mm):
    for w in words:
        snap = steps[w][0]
        src = torch.tensor([codec.src(w)])
        memory, spm, _ = model.encode(src)
        lp = torch.log_softmax(model.length_logits(memory, spm)[0].float(), -1)
        for n, e in enumerate(snap["lengthLogprobs"]):
            # compare probabilities (log-probabilities of unlikely lengths are large and loose)
            mm.prob(f"{w} P(length {n})", math.exp(e), float(lp[n].exp()))
        draft = snap["drafts"][0]
        L = draft["length"]
        mm.same(f"{w} chosen length", L, snap["lengths"][0])
        tin = pad_seqs([[codec.mask] * L], codec.pad)
        logits, _, _ = model.decode(tin, memory, spm, torch.zeros_like(tin, dtype=torch.bool))
        probs = torch.softmax(logits[0].float(), -1)
        probs[:, sorted(codec.special_ids - {codec.eos})] = -1.0  # never emitted (src/nar_search.cpp)
        conf, ids = probs.max(-1)
        for i in range(L):
            mm.same(f"{w} position {i} token", draft["texts"][i], codec.tgt_vocab[int(ids[i])])
            mm.prob(f"{w} position {i} probability", draft["probs"][i], float(conf[i]))


def run(model_path, n_words=300, tol=1e-4, binary=None, log_fn=log):
    binary = binary or find_binary()
    if not binary:
        raise SystemExit("no seq2seq binary: build it (cmake --build build/native) or set SEQ2SEQ_BIN")
    cfg, _ = load_model_file(model_path)
    model = load_model(model_path)
    codec = Codec(cfg)
    words = dev_words(n_words)
    mm = Mismatches(tol)
    if cfg["arch"] == "cmlm":
        steps = engine_trace(binary, model_path, words, ["--nar", "--iterations", "1", "--length-candidates", "1"])
        check_cmlm(model, cfg, codec, steps, words, mm)
    else:
        steps = engine_trace(binary, model_path, words, ["--greedy", "--max-length", str(max_output_len(cfg))])
        check_autoregressive(model, cfg, codec, steps, words, mm)
    ok = not mm.items
    log_fn(f"[parity] {os.path.basename(model_path)}: {len(words)} dev words, {mm.checked} checks, "
           f"max |p_engine - p_torch| {mm.max_diff:.2e} (tol {tol:g}): "
           + ("PASS" if ok else f"FAIL, {len(mm.items)} mismatches"))
    for item in mm.items[:10]:
        log_fn(f"[parity]   {item}")
    return {"words": len(words), "checks": mm.checked, "max_prob_diff": mm.max_diff, "tol": tol,
            "mismatches": len(mm.items), "pass": ok}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--words", type=int, default=300)
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--bin", default=None)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    res = run(a.model, a.words, a.tol, a.bin)
    sys.exit(0 if res["pass"] else 1)


if __name__ == "__main__":
    main()
