"""Build a shipped model from committed inputs: the chain of configs/MODEL.json.

    /usr/bin/python3 -m models.train build MODEL [--dry-run] [--retrain-lost]

A config lists the chain's steps in order. Each step either runs a command of this
package (``run``), writes a file from git history (``git``: COMMIT:PATH), joins files
(``concat``), copies a file (``copy``), or stands for an input that is lost
(``lost``: it names the config that would retrain it). A step's ``inputs`` and
``outputs`` map paths (relative to the repository root) to their sha256 where known.

A step whose outputs all exist (with the recorded sha256, where one is recorded) is
skipped, so the command resumes a chain after an interruption (the training commands
resume from their own checkpoints too). ``--dry-run`` prints the chain and checks,
without running anything, that every input exists now, is committed, or is made by
an earlier step; it names every missing one and exits 1 if the chain cannot run.
A lost input blocks the chain unless ``--retrain-lost`` is given: then its config is
built first, and the model built from it will differ from the shipped file.
"""

import argparse
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys

from .engine_cli import ROOT, find_binary

CONFIGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs")
# What the runs recorded (their arguments, minutes, earlier runs): read only to report.
RUNS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runs")
ENGINE = "{engine}"  # an input that stands for the native CLI (find_binary: $SEQ2SEQ_BIN or build/native/seq2seq)


def config_path(model):
    return os.path.join(CONFIGS, f"{model}.json")


def load_config(model):
    path = config_path(model)
    if not os.path.exists(path):
        known = sorted(f[:-5] for f in os.listdir(CONFIGS) if f.endswith(".json"))
        raise SystemExit(f"no config {os.path.relpath(path, ROOT)}; known: {', '.join(known)}")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load_run(model):
    """The record of the run that made the model (runs/MODEL.json), {} if there is none."""
    path = os.path.join(RUNS, f"{model}.json")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def abspath(path):
    return path if os.path.isabs(path) else os.path.join(ROOT, path)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def git_blob(spec):
    """The bytes of COMMIT:PATH, or None if git does not have it."""
    p = subprocess.run(["git", "-C", ROOT, "show", spec], capture_output=True, check=False)
    return p.stdout if p.returncode == 0 else None


def step_action(step):
    for kind in ("run", "git", "concat", "copy", "lost"):
        if kind in step:
            return kind
    raise SystemExit(f"step {step.get('name')!r} has no action (run, git, concat, copy or lost)")


def describe(step):
    kind = step_action(step)
    if kind == "run":
        return "python3 -m models.train " + " ".join(shlex.quote(a) for a in step["run"])
    if kind == "git":
        return f"git show {step['git']}"
    if kind == "concat":
        return "cat " + " ".join(step["concat"])
    if kind == "copy":
        return "; ".join(f"cp {src} {dst}" for src, dst in step["copy"])
    return f"LOST: {step['lost']}; retrained by {step['retrain']}"


def output_ok(path, sha):
    full = abspath(path)
    return os.path.exists(full) and (sha is None or sha256_file(full) == sha)


def known_flags():
    """Every --flag a command of this package defines (the chain's flags must be among them)."""
    here = os.path.dirname(os.path.abspath(__file__))
    text = "".join(open(os.path.join(here, f), encoding="utf-8").read() for f in os.listdir(here) if f.endswith(".py"))
    return text


def check_chain(config, retrain_lost=False, out=print):
    """-> list of problems (empty: the chain can run). Prints every step and input."""
    problems = []
    made = set()
    flags = known_flags()
    for i, step in enumerate(config["steps"], 1):
        kind = step_action(step)
        out(f"{i}. {step['name']}: {describe(step)}")
        if step.get("what"):
            out(f"   {step['what']}")
        if kind == "run":
            for a in step["run"]:
                if a.startswith("--") and f'"{a}"' not in flags:
                    problems.append(f"step {step['name']}: {a} is not an option of any command here")
        for path, sha in step.get("inputs", {}).items():
            if path == ENGINE:
                binary = find_binary()
                state = f"ok ({os.path.relpath(binary, ROOT) if binary.startswith(ROOT) else binary})" if binary else "MISSING"
                if not binary:
                    problems.append("the native CLI: build it (cmake -S . -B build/native && cmake --build build/native "
                                    "-j2 --target seq2seq) or set SEQ2SEQ_BIN")
            elif path in made:
                state = "made by an earlier step"
            elif os.path.exists(abspath(path)):
                if sha and sha256_file(abspath(path)) != sha:
                    state = "PRESENT BUT ITS SHA256 DIFFERS"
                    problems.append(f"{path}: sha256 is not {sha}")
                else:
                    state = "ok" + (" (sha256 checked)" if sha else "")
            else:
                state = "MISSING"
                problems.append(f"{path} (input of step {step['name']}) is missing and no earlier step makes it")
            out(f"   in  {path}: {state}")
        if kind == "git":
            (path, sha), = step["outputs"].items()
            blob = git_blob(step["git"])
            if blob is None:
                problems.append(f"git has no {step['git']}")
                out(f"   git {step['git']}: MISSING")
            elif sha and hashlib.sha256(blob).hexdigest() != sha:
                problems.append(f"git {step['git']}: sha256 is not {sha}")
                out(f"   git {step['git']}: SHA256 DIFFERS")
            else:
                out(f"   git {step['git']}: ok (sha256 checked, {len(blob):,} bytes)")
        if kind == "lost":
            done = all(output_ok(p, s) for p, s in step["outputs"].items())
            if done:
                out("   present (sha256 checked)")
            elif retrain_lost:
                out(f"   will be retrained first: {step['retrain']} (~{step.get('minutes', '?')} min of training "
                    f"measured when it ran); the model built from it will differ from the shipped file")
                sub = load_config(os.path.basename(step["retrain"])[:-5])
                sub_problems = check_chain(sub, retrain_lost, out=lambda s: out("      " + s))
                problems += [f"{step['retrain']}: {p}" for p in sub_problems]
            else:
                problems.append(f"{', '.join(step['outputs'])} is lost ({step['lost']}); --retrain-lost retrains it "
                                f"by {step['retrain']} (~{step.get('minutes', '?')} min of training)")
                out("   MISSING (lost)")
        for path, sha in step.get("outputs", {}).items():
            made.add(path)
            if kind != "lost":
                out(f"   out {path}" + (f" (sha256 {sha[:12]}…)" if sha else ""))
    return list(dict.fromkeys(problems))  # each once (the engine is an input of several steps)


def run_step(step, retrain_lost):
    kind = step_action(step)
    outputs = step.get("outputs", {})
    if not step.get("always") and outputs and all(output_ok(p, s) for p, s in outputs.items()):
        print(f"== {step['name']}: done already", flush=True)
        return
    print(f"== {step['name']}: {describe(step)}", flush=True)
    if kind == "run":
        subprocess.run([sys.executable, "-m", "models.train", *step["run"]], cwd=ROOT, check=True)
    elif kind == "git":
        (path, _), = outputs.items()
        os.makedirs(os.path.dirname(abspath(path)), exist_ok=True)
        with open(abspath(path), "wb") as f:
            f.write(git_blob(step["git"]))
    elif kind == "concat":
        (path, _), = outputs.items()
        with open(abspath(path), "wb") as f:
            for part in step["concat"]:
                with open(abspath(part), "rb") as g:
                    shutil.copyfileobj(g, f)
    elif kind == "copy":
        for src, dst in step["copy"]:
            shutil.copyfile(abspath(src), abspath(dst))
    elif kind == "lost":
        if not retrain_lost:
            raise SystemExit(f"{', '.join(outputs)} is lost: --retrain-lost retrains it by {step['retrain']}")
        build(load_config(os.path.basename(step["retrain"])[:-5]), retrain_lost)
    for path, sha in outputs.items():
        if not os.path.exists(abspath(path)):
            raise SystemExit(f"step {step['name']} did not write {path}")
        if sha and sha256_file(abspath(path)) != sha:
            print(f"   note: {path} differs from the recorded sha256 {sha[:12]}… (a retrained file is not "
                  "bit-identical)", flush=True)


def build(config, retrain_lost=False):
    problems = check_chain(config, retrain_lost, out=lambda s: None)
    if problems:
        raise SystemExit("cannot build {}:\n  {}".format(config["model"], "\n  ".join(problems)))
    for step in config["steps"]:
        run_step(step, retrain_lost)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", help="a config of models/train/configs/, e.g. g2p-cmlm")
    ap.add_argument("--dry-run", action="store_true", help="print the chain and check its inputs; run nothing")
    ap.add_argument("--retrain-lost", action="store_true", help="retrain lost inputs by their configs first")
    a = ap.parse_args(argv)
    config = load_config(a.model)
    if not a.dry_run:
        build(config, a.retrain_lost)
        return 0
    print(f"{config['model']}: {config['summary']}")
    print(f"shipped file {config['file']} (sha256 {config['sha256']}); training measured when it ran: "
          f"{load_run(a.model).get('train_minutes', '?')} min")
    problems = check_chain(config, a.retrain_lost)
    if problems:
        print("\nthe chain cannot run as it is:\n  " + "\n  ".join(problems))
        return 1
    print("\nevery input is present, committed or made by an earlier step: the chain can run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
