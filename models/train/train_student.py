"""A g2p-transformer student distilled from an ensemble of teachers: one command for
the whole chain (train/README.md, section 2, "Distillation from an ensemble").

    /usr/bin/python3 -m models.train train-student --teachers A.safetensors B.safetensors ... --tag ens1 \
        --run-dir models/train/work/kd1 [--no-unlabeled] [train_transformer.py options ...]

Steps, each skipped when its output exists (so re-running the same command resumes):
1. work/data/unlabeled.txt: words CMUdict does not have (unlabeled_words.py);
2. work/data/pseudo_TAG.tsv: their labels, the ensemble's beam-5 outputs (distill.py,
   engine, resumable);
3. work/data/soft_TAG.pt (soft_TAG_train.pt with --no-unlabeled): the ensemble's
   next-token distributions over train.tsv's rows and then the labeled rows
   (soft_targets.py);
4. the student: train_transformer.py with --extra-train and --kd-targets, resuming from
   RUN_DIR/last.pt. Its final step writes to RUN_DIR/out (not to models/: a student is
   shipped by hand, and only if it beats the shipped file on dev) unless --models-dir
   is given.
"""

import argparse
import json
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch  # noqa: E402

from .g2p_common import DATA, log
from . import distill
from . import soft_targets
from . import train_transformer
from . import unlabeled_words


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--teachers", nargs="+", required=True)
    ap.add_argument("--tag", required=True, help="names this teacher set's data files in work/data")
    ap.add_argument("--run-dir", required=True)
    ap.add_argument("--no-unlabeled", action="store_true", help="distil on the training rows only")
    ap.add_argument("--limit", type=int, default=0,
                    help="smoke tests only (with --no-unlabeled): the first N training rows")
    ap.add_argument("--threads", type=int, default=2)
    a, rest = ap.parse_known_args(argv)
    if a.limit and not a.no_unlabeled:
        raise SystemExit("--limit needs --no-unlabeled (the labeled rows come after all of train.tsv's)")
    torch.set_num_threads(a.threads)  # distill runs one engine process per thread
    threads = ["--threads", str(a.threads)]
    teachers = soft_targets.teacher_record(a.teachers)
    extra = []
    data = [os.path.join(DATA, "train.tsv")]
    if not a.no_unlabeled:
        if not os.path.exists(unlabeled_words.OUT):
            unlabeled_words.main()
        pseudo = os.path.join(DATA, f"pseudo_{a.tag}.tsv")
        made_by = pseudo + ".teachers.json"  # distill.py's output does not say who labeled it
        if os.path.exists(made_by) and json.load(open(made_by)) != teachers:
            raise SystemExit(f"{pseudo} was labeled by other teachers ({made_by}): use another --tag")
        with open(made_by, "w") as f:
            json.dump(teachers, f, indent=1)
        distill.run(a.teachers, beam=5, out=pseudo, words_file=unlabeled_words.OUT)
        extra = ["--extra-train", pseudo]
        data.append(pseudo)
    soft = os.path.join(DATA, f"soft_{a.tag}{'_train' if a.no_unlabeled else ''}{f'_{a.limit}' if a.limit else ''}.pt")
    if not os.path.exists(soft):
        soft_targets.main(["--teachers", *a.teachers, "--out", soft, "--data", *data, "--limit", str(a.limit)]
                          + threads)
    elif soft_targets.describe(soft)["teachers"] != teachers:
        raise SystemExit(f"{soft} was made by other teachers: use another --tag")
    else:
        log(f"{soft} exists")
    if a.limit:
        rest += ["--limit-train", str(a.limit)]
    if "--models-dir" not in rest:
        out = os.path.join(a.run_dir, "out")
        os.makedirs(out, exist_ok=True)
        rest += ["--models-dir", out]
    train_transformer.main(["--run-dir", a.run_dir, "--kd-targets", soft, *extra, *threads] + rest)


if __name__ == "__main__":
    main()
