"""Running the native CLI (build/native/seq2seq) over many words: the one place the
evaluation and training scripts call the C++ engine from. Standard library only."""

import json
import os
import subprocess
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def shipped_decoding(name):
    """A shipped model's decoding settings (model.decode()'s options) as models/manifest.json
    lists them; scripts/make-models-manifest.mjs writes them there from models/train/decoding.json."""
    with open(os.path.join(ROOT, "models", "manifest.json"), encoding="utf-8") as f:
        return next(m["decoding"] for m in json.load(f)["models"] if m["name"] == name)


# g2p-cmlm's length beam ranks drafts by avg log P(tokens) + w log P(length)
# (--length-score-weight). w = 0.03 was chosen on the 2,853 dev words for the shipped
# model (run cmlm3, the first 256-wide one; eval-engine --split dev, 3 length candidates, T = 10):
# w = 0 / 0.01 / 0.02 / 0.03 / 0.05 / 0.1 / 0.2 gave dev WER
# 39.54 / 31.51 / 30.46 / 30.35 / 30.74 / 31.13 / 31.83. With w = 0 (Mask-Predict's rule)
# the average alone prefers drafts whose few tokens are all confident.
# web/js/state.js (the Mask-Predict lane's default lw) must say the same; tests/browser/defaults.test.mjs checks it.
CMLM_DECODING = shipped_decoding("g2p-cmlm")
CMLM_LENGTH_SCORE_WEIGHT = CMLM_DECODING["lengthScoreWeight"]
CMLM_LENGTH_CANDIDATES = CMLM_DECODING["lengthCandidates"]
CMLM_ITERATIONS = CMLM_DECODING["iterations"]

# The recipe decodes as PyTorch computes: int8-stored weights widened to f32 (--compute f32),
# not the engine's default int8 kernels. Its teachers' labels, its dev choices and its parity
# checks were all made that way, and only so do the recorded label files regenerate bit for
# bit (with the int8 kernels, cmlm_kd1.tsv comes out with other outputs for a few words).
RECIPE_COMPUTE = "f32"


def find_binary():
    """$SEQ2SEQ_BIN, else build/native/seq2seq, else build/seq2seq; None if none is built."""
    for p in (os.environ.get("SEQ2SEQ_BIN"), os.path.join(ROOT, "build", "native", "seq2seq"),
              os.path.join(ROOT, "build", "seq2seq")):
        if p and os.path.exists(p):
            return p
    return None


def decode(binary, model, words, options, compute=None):
    """Decode all words in one process (stdin, one per line) -> ({word: [phonemes]}, seconds).
    ``model``: a model file, or a list of them to decode with their ensemble.
    ``compute``: "auto" or "f32", passed as --compute (None: the CLI's default, auto).
    Exit status 1 means some words were rejected (their error is on stderr); they get []."""
    start = time.perf_counter()
    paths = [model] if isinstance(model, str) else list(model)
    model_args = [a for p in paths for a in ("--model", p)]
    compute_args = ["--compute", compute] if compute else []
    p = subprocess.run([binary, "decode"] + model_args + list(options) + compute_args,
                       input="\n".join(words) + "\n", capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if p.returncode not in (0, 1):
        raise RuntimeError(f"{binary} failed ({p.returncode}): {p.stderr[:2000]}")
    hyps = {}
    for line in p.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) >= 2 and parts[0] not in hyps:
            hyps[parts[0]] = parts[1].split()
    for w in words:
        hyps.setdefault(w, [])
    return hyps, seconds


def is_autoregressive(binary, model):
    info = subprocess.run([binary, "info", model], capture_output=True, text=True, check=True).stdout
    return "(autoregressive)" in info
