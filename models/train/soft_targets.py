"""Token-level distillation targets for an autoregressive student: a teacher's (or
an ensemble's, ensemble.py) next-token distribution at every position of every
training pronunciation, teacher-forced on that pronunciation (Sun et al. 2019,
"Token-Level Ensemble Distillation for Grapheme-to-Phoneme Conversion").

    /usr/bin/python3 -m models.train soft-targets --teachers A.safetensors [B ...] --out FILE.pt
        [--data work/data/train.tsv [MORE.tsv ...]]

FILE.pt holds, for row i of the data files taken in order (by default
work/data/train.tsv, never dev or test; after it, e.g., the teacher's labels of
unlabeled words, distill.py --words), the K most likely tokens and their
probabilities, renormalised over those K, at each of the row's len(phonemes) + 1
positions (the last one predicts EOS), plus the sha256 of each data file and
teacher, so that a student cannot silently train on targets of other data.
train_transformer.py --kd-targets FILE.pt [--extra-train MORE.tsv] mixes them into
its loss.
"""

import argparse
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch  # noqa: E402

from .g2p_common import DATA, Codec, load_tsv, log, pad_seqs, save_atomic
from .ensemble import load_ensemble
from .export import load_model_file
from .prepare_data import sha256

TRAIN_TSV = os.path.join(DATA, "train.tsv")


@torch.no_grad()
def compute(teachers, rows, codec, top_k=8, batch_size=256, partial=None, record=None, save_every=100):
    """-> (indices uint8 [N_pos, K], probs float16 [N_pos, K], offsets int64 [N_rows + 1]):
    row i's positions are offsets[i]:offsets[i+1].

    ``partial``: a file that holds the rows done so far every ``save_every`` batches, and
    that a rerun with the same ``record`` (teachers, data, top_k) resumes from: three
    teachers over ~190 K rows take most of an hour, so a partial run must be resumable."""
    model = load_ensemble(teachers)
    banned = sorted(codec.special_ids - {codec.eos})
    order = sorted(range(len(rows)), key=lambda i: len(rows[i][1]))  # similar lengths per batch: less padding
    per_row = [None] * len(rows)
    start = 0
    if partial and os.path.exists(partial):
        d = torch.load(partial, map_location="cpu")
        if d["record"] == record and d["rows"] == len(rows):
            start = len(d["lengths"])  # rows done: the first `start` of `order`
            off = [0] + d["lengths"].cumsum(0).tolist()
            for k, i in enumerate(order[:start]):
                per_row[i] = (d["indices"][off[k]:off[k + 1]], d["probs"][off[k]:off[k + 1]])
            log(f"soft targets: resumed from {partial}, {start}/{len(rows)} rows done")
        else:
            log(f"soft targets: {partial} was made for other teachers or data: starting again")
    for b in range(start, len(order), batch_size):
        ids = order[b:b + batch_size]
        src = pad_seqs([codec.src(rows[i][0]) for i in ids], codec.src_pad)
        tin = pad_seqs([[codec.bos] + codec.tgt(rows[i][1]) for i in ids], codec.pad)
        memory, spm, _ = model.encode(src)
        lp, _, _ = model.decode(tin, memory, spm, tin.eq(codec.pad))
        lp[..., banned] = float("-inf")  # never emitted by the decoders (g2p_common._ar_step_logprobs)
        top, idx = lp.topk(top_k, -1)
        p = torch.softmax(top, -1)  # renormalised over the K kept
        for j, i in enumerate(ids):
            n = len(rows[i][1]) + 1
            per_row[i] = (idx[j, :n].to(torch.uint8), p[j, :n].to(torch.float16))
        if (b // batch_size) % 50 == 0:
            log(f"soft targets: {b + len(ids)}/{len(rows)} rows")
        if partial and (b // batch_size + 1) % save_every == 0:
            done = [per_row[i] for i in order[:b + len(ids)]]  # the rows of the batches so far, in order
            save_atomic({"record": record, "rows": len(rows), "lengths": torch.tensor([len(r[0]) for r in done]),
                         "indices": torch.cat([r[0] for r in done]), "probs": torch.cat([r[1] for r in done])},
                        partial)
    offsets = torch.zeros(len(rows) + 1, dtype=torch.long)
    offsets[1:] = torch.tensor([len(r[0]) for r in per_row]).cumsum(0)
    return torch.cat([r[0] for r in per_row]), torch.cat([r[1] for r in per_row]), offsets


def data_record(files):
    return [[os.path.basename(p), sha256(p)] for p in files]


def teacher_record(paths):
    """How a targets file names its teachers: file name -> sha256."""
    return {os.path.basename(t): sha256(t) for t in paths}


def load(path, data_files=(TRAIN_TSV,), n=None):
    """-> (list over the first ``n`` rows (default: all) of the data files of (indices
    [n, K] long, probs [n, K] float32), describe(path)); checks that the file was made
    from these files."""
    d = torch.load(path, map_location="cpu")
    if d["data"] != data_record(data_files):
        raise SystemExit(f"{path} was made from other data ({[r[0] for r in d['data']]}) than "
                         f"{[os.path.basename(p) for p in data_files]}: make it again (soft_targets.py --data ...)")
    n = d["rows"] if n is None else n
    if d["rows"] < n:
        raise SystemExit(f"{path} covers the first {d['rows']} rows, not {n} (made with --limit?)")
    off = d["offsets"].tolist()
    rows = [(d["indices"][off[i]:off[i + 1]].long(), d["probs"][off[i]:off[i + 1]].float()) for i in range(n)]
    return rows, describe(path, d)


def describe(path, loaded=None):
    """What a results file records about the targets a student learnt from
    (``loaded``: the file's contents, if already read)."""
    d = loaded if loaded is not None else torch.load(path, map_location="cpu")
    return {"file": os.path.basename(path), "sha256": sha256(path), "top_k": d["top_k"], "teachers": d["teachers"]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--teachers", nargs="+", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--data", nargs="+", default=[TRAIN_TSV], help="the rows, file after file")
    ap.add_argument("--top-k", type=int, default=8)
    ap.add_argument("--limit", type=int, default=0, help="smoke tests only: first N training rows")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    cfg, _ = load_model_file(a.teachers[0])
    codec = Codec(cfg)
    rows = [r for p in a.data for r in load_tsv(p)]
    if a.limit:
        rows = rows[: a.limit]
    record = {"top_k": a.top_k, "data": data_record(a.data), "teachers": teacher_record(a.teachers)}
    partial = a.out + ".partial"
    idx, probs, offsets = compute(a.teachers, rows, codec, a.top_k, partial=partial, record=record)
    save_atomic({"indices": idx, "probs": probs, "offsets": offsets, "rows": len(rows), **record}, a.out)
    if os.path.exists(partial):
        os.remove(partial)
    log(f"wrote {a.out}: {len(rows)} rows, {idx.shape[0]} positions, top {a.top_k} "
        f"(teachers: {', '.join(a.teachers)})")


if __name__ == "__main__":
    main()
