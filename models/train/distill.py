"""Knowledge distillation data for g2p-cmlm: the AR teacher's outputs for the
training words.

    /usr/bin/python3 -m models.train distill [--teacher models/g2p-transformer.safetensors [MORE ...]] [--beam 1]

Decodes every distinct word of work/data/train.tsv (never dev or test), or of --words
FILE (unlabeled_words.py: words CMUdict does not have), with the
teacher (greedy by default, --beam N for beam search; with the C++ engine when it is
built, else with the PyTorch decoders; several --teacher files: their ensemble,
ensemble.py) and writes
work/data/train_distill.tsv (``WORD<TAB>PH ON ES``, one line per word). Resumable:
it appends chunk by chunk to a .partial file and skips words already done.
"""

import argparse
import os
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch  # noqa: E402

from .g2p_common import DATA, MODELS_DIR, Codec, ar_beam, ar_greedy, load_tsv, log
from .engine_cli import RECIPE_COMPUTE, decode, find_binary
from .export import load_model_file, load_model
from .ensemble import load_ensemble

DEFAULT_OUT = os.path.join(DATA, "train_distill.tsv")


def run(teacher=os.path.join(MODELS_DIR, "g2p-transformer.safetensors"), beam=1, out=DEFAULT_OUT,
        chunk=2048, limit=0, words_file=None):
    """``teacher``: a model file, or a list of them (their ensemble). ``words_file``: the
    words to label, one per line (unlabeled_words.py), instead of the training words."""
    if os.path.exists(out):
        log(f"{out} exists")
        return out
    teachers = [teacher] if isinstance(teacher, str) else list(teacher)
    for t in teachers:
        if not os.path.exists(t):
            raise SystemExit(f"teacher {t} not found: train the AR model first (train_transformer.py)")
    cfg, _ = load_model_file(teachers[0])
    model = load_model(teachers[0]) if len(teachers) == 1 else load_ensemble(teachers)
    codec = Codec(cfg)
    max_len = cfg["max_target_len"]
    if words_file:
        with open(words_file, encoding="utf-8") as f:
            words = sorted({ln.strip() for ln in f if ln.strip()})
    else:
        words = sorted({w for w, _ in load_tsv(os.path.join(DATA, "train.tsv"))})
    if limit:
        words = words[:limit]
    partial = out + ".partial"
    done = set()
    if os.path.exists(partial):
        with open(partial, encoding="utf-8") as f:
            lines = f.readlines()
        # drop a torn last line
        good = [ln for ln in lines if ln.endswith("\n") and "\t" in ln]
        with open(partial, "w", encoding="utf-8") as f:
            f.writelines(good)
        done = {ln.split("\t")[0] for ln in good}
    todo = [w for w in words if w not in done]
    binary = find_binary()
    log(f"distilling {len(todo)} of {len(words)} {'words of ' + words_file if words_file else 'training words'} with {' + '.join(teachers)} "
        f"({'greedy' if beam <= 1 else f'beam {beam}'}, {'C++ engine' if binary else 'PyTorch'})")
    # the engine gives the PyTorch decoders' outputs (parity_check.py) several times faster
    engine_opts = (["--greedy"] if beam <= 1 else ["--beam", str(beam), "--length-norm", "none"]) + \
        ["--max-length", str(max_len)]
    def teach(ws):
        if binary:
            return decode(binary, teachers, ws, engine_opts, compute=RECIPE_COMPUTE)[0]
        if beam <= 1:
            return ar_greedy(model, codec, ws, max_len)
        return ar_beam(model, codec, ws, max_len, beam)

    # engine processes are single-threaded: run one per core, chunks written in order
    workers = max(1, torch.get_num_threads()) if binary else 1
    chunks = [todo[i:i + chunk] for i in range(0, len(todo), chunk)]
    with open(partial, "a", encoding="utf-8") as f, ThreadPoolExecutor(workers) as pool:
        n = len(done)
        for ws, hyps in zip(chunks, pool.map(teach, chunks)):
            for w in ws:
                f.write(f"{w}\t{' '.join(hyps[w])}\n")
            f.flush()
            n += len(ws)
            log(f"distilled {n}/{len(words)}")
    # sort into the final file
    with open(partial, encoding="utf-8") as f:
        rows = sorted(ln for ln in f if ln.strip())
    empty = sum(1 for ln in rows if not ln.rstrip("\n").split("\t")[1])
    rows = [ln for ln in rows if ln.rstrip("\n").split("\t")[1]]
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        f.writelines(rows)
    os.replace(out + ".tmp", out)
    os.remove(partial)
    log(f"wrote {out}: {len(rows)} words ({empty} empty outputs dropped)")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--teacher", nargs="+", default=[os.path.join(MODELS_DIR, "g2p-transformer.safetensors")],
                    help="the teacher model file; several: their ensemble")
    ap.add_argument("--beam", type=int, default=1)
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--words", default=None, metavar="FILE",
                    help="label these words (one per line, e.g. work/data/unlabeled.txt) instead of the training words")
    ap.add_argument("--limit", type=int, default=0, help="smoke tests only: first N words")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    run(a.teacher, a.beam, a.out, limit=a.limit, words_file=a.words)


if __name__ == "__main__":
    main()
