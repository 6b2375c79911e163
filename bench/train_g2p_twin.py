"""The engine's trainer against its PyTorch twin on G2P: `seq2seq train --task g2p`
with its defaults, and the training recipe's PyTorch loop (models/train/, one
thread) with the same model, optimizer, schedule, label smoothing, dropout, batch
size, steps and seed; both exported to the model format and decoded by the engine
on the recipe's dev split (greedy, and beam 5 as the recipe scores). Hours of CPU:
a measurement for docs/training.md "Measured", never run in CI.

    /usr/bin/python3 bench/train_g2p_twin.py run [--seed S] [--out DIR] [--steps N]
    /usr/bin/python3 bench/train_g2p_twin.py compare [--seed S] [--out DIR]

`run` trains both side by side (two processes of one thread each, under
/usr/bin/time -v), then runs `compare`: the two loss curves per 500 steps, the
engine's held-out word accuracy and the twin's greedy dev WER on 1,000 dev words
at its epoch ends, the dev WER/PER of both final models, CPU minutes and peak
memory, and the difference of their greedy dev WERs with a 95 % interval from a
paired bootstrap over the dev words (--also-seeds adds the models of other seeds,
trained by `run --seed N`: the other source of noise). The engine is $SEQ2SEQ_BIN or build/native/seq2seq.

The twin's flags come from the g2p defaults of src/train/training_options.json,
the one statement of them; an option the recipe cannot follow (it has fixed
betas, clipping, cosine decay, sinusoidal positions, tied, scaled embeddings) is
checked to be at the recipe's value instead. What still differs, and why it does
not matter for the comparison, is listed in docs/training.md "Measured": the
initial weights (each side's own generator), the batches (each side's own
shuffle of the same rows), and the engine's 200 held-out training words.
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
OPTIONS = os.path.join(ROOT, "src", "train", "training_options.json")
DATA = os.path.join(ROOT, "models", "train", "work", "data")
sys.path.insert(0, ROOT)

# options the recipe's trainer holds fixed (models/train/trainer.py, recipe.py, train_transformer.py)
RECIPE_FIXED = {"arch": "transformer", "beta1": 0.9, "beta2": 0.98, "clip_norm": 1.0, "lr_decay": "cosine",
                "pos": "sinusoidal", "tie_output": True, "scale_embedding": True, "scheduled_sampling": "off",
                "copy": False, "guided_attention_weight": 0.0}
# engine option -> the recipe's flag
RECIPE_FLAGS = {"d_model": "--d-model", "heads": "--heads", "d_ff": "--d-ff", "layers": ("--enc-layers", "--dec-layers"),
                "norm": "--norm", "activation": "--activation", "steps": "--steps", "batch_size": "--batch-size",
                "learning_rate": "--lr", "warmup_steps": "--warmup", "final_lr_ratio": "--final-lr-ratio",
                "adam_eps": "--adam-eps", "weight_decay": "--weight-decay", "dropout": "--dropout",
                "attention_dropout": "--attn-dropout", "label_smoothing": "--label-smoothing", "seed": "--seed"}


def g2p_defaults():
    with open(OPTIONS, encoding="utf-8") as f:
        table = json.load(f)
    return {o["cpp"]: o.get("taskDefaults", {}).get("g2p", o["default"]) for o in table["options"]}


def twin_args(opts):
    for k, v in RECIPE_FIXED.items():
        if opts[k] != v:
            raise SystemExit(f"the engine's g2p default {k} = {opts[k]}; the recipe's trainer has {v} only")
    args = []
    for k, flag in RECIPE_FLAGS.items():
        for f in (flag if isinstance(flag, tuple) else (flag,)):
            args += [f, str(opts[k])]
    # the engine decays matrices and embeddings only; its batches are shuffled rows, not length buckets
    return args + ["--decay-matrices-only", "--shuffle-batches", "--threads", "1", "--no-bf16"]


def binary():
    return os.environ.get("SEQ2SEQ_BIN") or os.path.join(ROOT, "build", "native", "seq2seq")


def paths(out, seed):
    return {"engine_log": os.path.join(out, f"engine-s{seed}.jsonl"),
            "engine_model": os.path.join(out, f"engine-s{seed}.safetensors"),
            "engine_time": os.path.join(out, f"engine-s{seed}.time"),
            "torch_dir": os.path.join(out, f"torch-s{seed}"),
            "torch_log": os.path.join(out, f"torch-s{seed}.log"),
            "torch_model": os.path.join(out, f"torch-s{seed}", "last.f32.safetensors"),
            "torch_time": os.path.join(out, f"torch-s{seed}.time")}


def run(a):
    if not os.path.exists(os.path.join(DATA, "train.tsv")):
        subprocess.run([sys.executable, "-m", "models.train", "prepare-data"], cwd=ROOT, check=True)
    opts = g2p_defaults()
    opts["seed"] = a.seed
    if a.steps:
        opts["steps"] = a.steps
    os.makedirs(a.out, exist_ok=True)
    p = paths(a.out, a.seed)
    engine = ["/usr/bin/time", "-v", "-o", p["engine_time"], binary(), "train", "--task", "g2p",
              "--data", os.path.join(DATA, "train.tsv"), "--seed", str(a.seed), "--steps", str(opts["steps"]),
              "--out", p["engine_model"], "--json"]
    twin = ["/usr/bin/time", "-v", "-o", p["torch_time"], "/usr/bin/python3", "-m", "models.train",
            "train-transformer", "--run-dir", p["torch_dir"], "--name", f"twin-s{a.seed}",
            "--models-dir", p["torch_dir"]] + twin_args(opts)
    print(" ".join(engine[4:]), "\n" + " ".join(twin[4:]), flush=True)
    env = {**os.environ, "SEQ2SEQ_BIN": binary()}
    with open(p["engine_log"], "w") as e_out, open(p["torch_log"], "w") as t_out:
        procs = [subprocess.Popen(engine, cwd=ROOT, stdout=e_out, stderr=subprocess.STDOUT),
                 subprocess.Popen(twin, cwd=ROOT, stdout=t_out, stderr=subprocess.STDOUT, env=env)]
        codes = [q.wait() for q in procs]
    if any(codes):
        raise SystemExit(f"exit codes {codes}: see {p['engine_log']}, {p['torch_log']}")
    compare(a)


def time_v(path):
    """CPU minutes (user + system, children included) and peak resident MB from /usr/bin/time -v."""
    text = open(path, encoding="utf-8").read()
    get = lambda label: float(re.search(re.escape(label) + r": ([0-9.]+)", text).group(1))  # noqa: E731
    return {"cpu_min": (get("User time (seconds)") + get("System time (seconds)")) / 60,
            "peak_mb": get("Maximum resident set size (kbytes)") / 1024}


def dev_decode(model, beam):
    """The engine's outputs for the dev words (greedy: beam 1), as eval-engine decodes."""
    from models.train.engine_cli import RECIPE_COMPUTE, decode
    from models.train.eval_engine import engine_options
    from models.train.export import load_model_file
    from models.train.g2p_common import load_tsv, refs_by_word
    cfg, _ = load_model_file(model)
    refs = refs_by_word(load_tsv(os.path.join(DATA, "dev.tsv")))
    hyps, _ = decode(binary(), model, sorted(refs), engine_options(cfg, beam=beam), compute=RECIPE_COMPUTE)
    return hyps, refs


def paired_bootstrap(wrong_a, wrong_b, rounds=2000):
    """95 % interval of WER(a) - WER(b) in points, resampling the dev words."""
    rng = random.Random(0)
    n = len(wrong_a)
    diffs = sorted(100.0 * sum(wrong_a[i] - wrong_b[i] for i in (rng.randrange(n) for _ in range(n))) / n
                   for _ in range(rounds))
    return diffs[int(0.025 * rounds)], diffs[int(0.975 * rounds) - 1]


def per_window(records, key_step, key_loss, window):
    """Mean loss of the records in each window of steps (the records are every 50 steps)."""
    sums = {}
    for r in records:
        w = -(-r[key_step] // window) * window
        s = sums.setdefault(w, [0.0, 0])
        s[0] += r[key_loss]
        s[1] += 1
    return {w: s[0] / s[1] for w, s in sums.items()}


def compare(a):
    p = paths(a.out, a.seed)
    eng = [json.loads(ln) for ln in open(p["engine_log"]) if ln.startswith("{")]
    twin = [json.loads(ln) for ln in open(os.path.join(p["torch_dir"], "steps.jsonl"))]
    hist = json.load(open(os.path.join(p["torch_dir"], "history.json")))
    steps_per_epoch = None
    m = re.search(r"(\d+) steps/epoch", open(p["torch_log"]).read())
    if m:
        steps_per_epoch = int(m.group(1))
    e_loss = per_window(eng, "step", "loss", a.window)
    t_loss = per_window(twin, "step", "loss", a.window)
    held = {r["step"]: r["wordAccuracy"] for r in eng if "wordAccuracy" in r}
    held_words = next((r["heldOut"] for r in eng if "heldOut" in r), "?")
    print(f"| step | engine loss | PyTorch loss | engine held-out exact ({held_words} words) |")
    print("| ---: | ---: | ---: | ---: |")
    for w in sorted(set(e_loss) | set(t_loss)):
        h = held.get(w)
        print(f"| {w} | {e_loss.get(w, float('nan')):.4f} | {t_loss.get(w, float('nan')):.4f} | "
              f"{'' if h is None else f'{100 * h:.1f} %'} |")
    if steps_per_epoch:
        print("\nPyTorch's greedy dev WER on the first 1,000 dev words at its epoch ends: " +
              ", ".join(f"step {min(r['epoch'] * steps_per_epoch, twin[-1]['step'])}: {r['dev_greedy_wer']}"
                        for r in hist))
    print("\n| side | dev WER greedy | dev PER greedy | dev WER beam 5 | dev PER beam 5 | CPU min (all) | "
          "CPU min (training process) | peak MB |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    from models.train.metrics import score
    sides = [(f"engine, seed {a.seed}", p["engine_model"], p["engine_time"], None),
             (f"PyTorch, seed {a.seed}", p["torch_model"], p["torch_time"], twin[-1]["processCpuSeconds"] / 60)]
    for seed in a.also_seeds:
        q = paths(a.out, seed)
        sides.append((f"engine, seed {seed}", q["engine_model"], q["engine_time"], None))
        if os.path.exists(q["torch_model"]):
            steps = [json.loads(ln) for ln in open(os.path.join(q["torch_dir"], "steps.jsonl"))]
            sides.append((f"PyTorch, seed {seed}", q["torch_model"], q["torch_time"], steps[-1]["processCpuSeconds"] / 60))
    wrong = {}
    for side, model, tfile, train_cpu in sides:
        if not os.path.exists(model):
            print(f"| {side} | (no model yet: {model}) |")
            continue
        hyps, refs = dev_decode(model, 1)
        words = sorted(refs)
        wrong[side] = [0 if tuple(hyps.get(w, ())) in refs[w] else 1 for w in words]
        gw, gp = score(hyps, refs)
        bw, bp = score(*dev_decode(model, 5))
        t = time_v(tfile) if os.path.exists(tfile) else {"cpu_min": float("nan"), "peak_mb": float("nan")}
        print(f"| {side} | {gw:.2f} | {gp:.2f} | {bw:.2f} | {bp:.2f} | {t['cpu_min']:.1f} | "
              f"{'' if train_cpu is None else f'{train_cpu:.1f}'} | {t['peak_mb']:.0f} |")
    if wrong:
        print(f"\n(dev: {len(refs)} words of models/train/work/data/dev.tsv, none trained on by either side)")
    names = list(wrong)
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            lo, hi = paired_bootstrap(wrong[x], wrong[y])
            d = 100.0 * (sum(wrong[x]) - sum(wrong[y])) / len(wrong[x])
            print(f"greedy dev WER, {x} minus {y}: {d:+.2f} points (95 % paired bootstrap over the dev words: "
                  f"{lo:+.2f} to {hi:+.2f})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["run", "compare"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "train-g2p-twin"))
    ap.add_argument("--steps", type=int, default=0, help="run: steps for both (default: the engine's g2p default)")
    ap.add_argument("--window", type=int, default=500, help="compare: steps per row of the loss table")
    ap.add_argument("--also-seeds", type=int, nargs="*", default=[],
                    help="compare: the models of these seeds too (engine-sN, torch-sN in --out, where they are)")
    a = ap.parse_args()
    run(a) if a.command == "run" else compare(a)


if __name__ == "__main__":
    main()
