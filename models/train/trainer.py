"""A small resumable training loop shared by train_transformer.py and train_cmlm.py.

State lives in RUN_DIR:
  last.pt        full state (model, optimizer, step, epoch, position in the epoch,
                 RNG states, history), written at every epoch end and every
                 --ckpt-minutes inside an epoch; a re-run of the same command resumes
                 from it (the batch order of an epoch is a pure function of the seed
                 and the epoch, so it continues exactly where it stopped).
  epoch{N}.pt    the weights after epoch N (the last few are kept for averaging).
  history.json   per-epoch loss / dev numbers.
"""

import argparse
import hashlib
import json
import os
import random
import shutil
import time

import torch

from .g2p_common import epoch_files, log, lr_at, make_batches, save_atomic
from .export import load_model_file
from .metrics import without_stress
from .seq2seq_torch import build_model


def cpu_has_bf16():
    """Whether this CPU computes bfloat16 natively (AVX-512 BF16 or AMX). Without it,
    torch's CPU autocast emulates bf16 and a step is slower, not faster: 27.5 s against
    1.1 s in f32 for the 4 M CMLM on an AMD EPYC without AVX-512 BF16."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            flags = next((ln.split(":", 1)[1].split() for ln in f if ln.startswith("flags")), [])
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def cpu_seconds():
    """CPU time of this process and of the children it waited for (the engine's dev
    checks), all threads: what a run costs where other work shares the cores and wall
    time says little."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def add_train_args(ap, **defaults):
    d = dict(epochs=15, batch_size=256, lr=1e-3, warmup=800, dropout=0.1, attn_dropout=0.1,
             label_smoothing=0.1, weight_decay=0.0, seed=1, keep_epochs=10, ckpt_minutes=10.0,
             bf16=cpu_has_bf16())
    d.update(defaults)
    ap.add_argument("--epochs", type=int, default=d["epochs"])
    ap.add_argument("--batch-size", type=int, default=d["batch_size"])
    ap.add_argument("--lr", type=float, default=d["lr"], help="peak learning rate (warmup, then cosine decay)")
    ap.add_argument("--warmup", type=int, default=d["warmup"], help="warmup steps")
    ap.add_argument("--dropout", type=float, default=d["dropout"])
    ap.add_argument("--attn-dropout", type=float, default=d["attn_dropout"])
    ap.add_argument("--label-smoothing", type=float, default=d["label_smoothing"])
    ap.add_argument("--weight-decay", type=float, default=d["weight_decay"])
    ap.add_argument("--seed", type=int, default=d["seed"])
    ap.add_argument("--keep-epochs", type=int, default=d["keep_epochs"], help="epoch weight files kept (for averaging)")
    ap.add_argument("--ckpt-minutes", type=float, default=d["ckpt_minutes"], help="mid-epoch checkpoint interval")
    ap.add_argument("--bench", type=int, default=0, help="only time this many training steps, then exit")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--bf16", action=argparse.BooleanOptionalAction, default=d["bf16"],
                    help="bfloat16 autocast of the forward pass (1.4-1.5x faster steps on a CPU with AVX-512 "
                         "BF16, 25x slower without it; weights, optimizer and evaluation stay f32). Default: "
                         "on when /proc/cpuinfo lists avx512_bf16 or amx_bf16")
    ap.add_argument("--init-from", default=None, metavar="MODEL.safetensors",
                    help="warm start: a new run starts from this model file's weights (copied into the run "
                         "directory, its sha256 logged) instead of a random init")
    ap.add_argument("--init-skip", default="", metavar="PREFIX[,PREFIX]",
                    help="with --init-from: tensors whose names start with these stay randomly initialised")
    # A fixed-step run as the engine's trainer computes one (seq2seq train, src/train/), so that
    # the two can be compared with one config: bench/train-g2p-twin.sh.
    ap.add_argument("--steps", type=int, default=0,
                    help="stop after this many optimizer steps (the schedule spans them instead of --epochs); "
                         "the loss every --log-steps steps goes to RUN_DIR/steps.jsonl, and the command ends by "
                         "exporting the last weights (RUN_DIR/last.f32.safetensors) without finalize's choice")
    ap.add_argument("--log-steps", type=int, default=50, help="with --steps: the loss is logged every this many steps")
    ap.add_argument("--final-lr-ratio", type=float, default=0.02,
                    help="the learning rate at the last step, as a fraction of --lr (the engine's default: 0.1)")
    ap.add_argument("--adam-eps", type=float, default=1e-9, help="AdamW's eps (the engine's default: 1e-8)")
    ap.add_argument("--decay-matrices-only", action="store_true",
                    help="weight decay on the weight matrices and embeddings only (tensors of 2 or more "
                         "dimensions), not on biases or LayerNorms, as the engine's trainer decays")
    ap.add_argument("--shuffle-batches", action="store_true",
                    help="each epoch's batches are the shuffled rows taken in order, without length bucketing, "
                         "as the engine's trainer draws them")
    ap.add_argument("--init-rows-by-name", action="store_true",
                    help="with --init-from: the rows of the target vocabulary's tensors (its embedding, the output "
                         "layer's weight and bias) come from the file's row of the same token, or of the token "
                         "without its stress digits (AH0, AH1 and AH2 from AH): a stressed model warm-started from "
                         "a stress-free one")


# The tensors with one row (or entry) per target token, in every architecture's names.
TARGET_ROW_TENSORS = ("tgt_embed.weight", "out_proj.weight", "out_proj.bias", "out.weight", "out.bias")


def target_row_map(new_vocab, old_vocab):
    """For each token of ``new_vocab``, the index in ``old_vocab`` of the token of the same
    name, else of its name without stress digits (data_rules.json's)."""
    index = {t: i for i, t in enumerate(old_vocab)}
    rows = []
    for t in new_vocab:
        source = t if t in index else "".join(without_stress([t]))
        if source not in index:
            raise SystemExit(f"--init-rows-by-name: the warm-start file has neither {t} nor {source}")
        rows.append(index[source])
    return rows


def warm_start(model, path, skip, run_dir, tgt_vocab=None):
    """Copy a model file's weights into ``model`` (a new run's), except tensors named by
    the ``skip`` prefixes. The file is copied to RUN_DIR/init.safetensors first, so
    that the run does not depend on a shipped file that its own final step replaces.
    With ``tgt_vocab`` (--init-rows-by-name), the target-token tensors' rows are taken
    by token name (target_row_map). Returns what the run's state records about it."""
    copy = os.path.join(run_dir, "init.safetensors")
    if os.path.abspath(path) != os.path.abspath(copy):
        shutil.copyfile(path, copy)
    with open(copy, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    file_config, weights = load_model_file(copy)
    mapped = []
    if tgt_vocab is not None:
        rows = torch.tensor(target_row_map(tgt_vocab, file_config["tgt_vocab"]))
        mapped = [k for k in TARGET_ROW_TENSORS if k in weights]
        weights = {**weights, **{k: weights[k][rows] for k in mapped}}
    prefixes = [p for p in skip.split(",") if p]
    own = model.state_dict()
    kept = [k for k in own if not any(k.startswith(p) for p in prefixes)]
    for k in kept:
        if k not in weights or weights[k].shape != own[k].shape:
            raise SystemExit(f"--init-from {path}: tensor {k} is missing or has another shape")
        own[k].copy_(weights[k])
    skipped = sorted(set(own) - set(kept))
    log(f"warm start from {path} (sha256 {sha[:16]}…): {len(kept)} tensors copied, kept fresh: {skipped}"
        + (f"; rows by target token name: {mapped}" if mapped else ""))
    return {"from": path, "sha256": sha, "skipped": skipped, **({"rows_by_name": mapped} if mapped else {})}


def train(run_dir, config, args, examples, batch_fn, loss_fn, eval_fn=None, batch_key=None):
    """Train until args.epochs are done (resuming from run_dir/last.pt).

    batch_fn(list_of_examples, rng) -> batch; loss_fn(model, batch) -> (loss, n_tokens);
    eval_fn(model) -> dict of dev numbers (after each epoch). Returns the model.
    """
    os.makedirs(run_dir, exist_ok=True)
    torch.manual_seed(args.seed)
    model = build_model(config, dropout=args.dropout, attn_dropout=args.attn_dropout)
    params = model.parameters()
    if args.decay_matrices_only:
        params = [{"params": [p for p in model.parameters() if p.dim() >= 2]},
                  {"params": [p for p in model.parameters() if p.dim() < 2], "weight_decay": 0.0}]
    opt = torch.optim.AdamW(params, lr=args.lr, betas=(0.9, 0.98), eps=args.adam_eps,
                            weight_decay=args.weight_decay)
    n_params = sum(p.numel() for p in model.parameters())
    bucket = not args.shuffle_batches
    steps_per_epoch = len(make_batches(examples, args.batch_size, args.seed, batch_key, bucket))
    total = args.steps or steps_per_epoch * args.epochs
    epochs = -(-total // steps_per_epoch) if args.steps else args.epochs
    steps_log = os.path.join(run_dir, "steps.jsonl")
    window = {"loss": 0.0, "tokens": 0}
    state = {"epoch": 0, "batch": 0, "step": 0, "history": []}
    last = os.path.join(run_dir, "last.pt")
    if os.path.exists(last) and not args.bench:
        ck = torch.load(last, map_location="cpu")
        if ck["config"] != config:
            raise SystemExit(f"{last} was written with another model config; use another --run-dir")
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["optimizer"])
        state = ck["state"]
        torch.set_rng_state(ck["torch_rng"])
        log(f"resumed from {last}: epoch {state['epoch'] + 1}, batch {state['batch']}/{steps_per_epoch}, "
            f"step {state['step']}/{total}")
    else:
        log(f"new run in {run_dir}: {n_params} parameters, {len(examples)} examples, "
            f"{steps_per_epoch} steps/epoch x {epochs} epochs" + (f", stopping at step {total}" if args.steps else ""))
        if args.init_from:
            state["init"] = warm_start(model, args.init_from, args.init_skip, run_dir,
                                       config["tgt_vocab"] if args.init_rows_by_name else None)

    def checkpoint():
        save_atomic({"config": config, "model": model.state_dict(), "optimizer": opt.state_dict(),
                     "state": state, "torch_rng": torch.get_rng_state(), "args": vars(args)}, last)

    last_ckpt = time.time()
    while state["epoch"] < epochs and state["step"] < total:
        ep = state["epoch"]
        batches = make_batches(examples, args.batch_size, args.seed * 1000 + ep, batch_key, bucket)
        model.train()
        t0, tot_loss, tot_tok, n_steps = time.time(), 0.0, 0, 0
        c0 = time.process_time()
        cpu0 = cpu_seconds()
        while state["batch"] < len(batches) and state["step"] < total:
            bi = state["batch"]
            rng = random.Random((args.seed * 1000 + ep) * 100003 + bi)
            batch = batch_fn([examples[i] for i in batches[bi]], rng)
            for g in opt.param_groups:
                g["lr"] = lr_at(state["step"], total, args.lr, args.warmup, args.final_lr_ratio)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
                loss, ntok = loss_fn(model, batch)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            state["batch"] += 1
            state["step"] += 1
            n_steps += 1
            tot_loss += loss.item() * ntok
            tot_tok += ntok
            if args.steps:
                window["loss"] += loss.item() * ntok
                window["tokens"] += ntok
                if state["step"] % args.log_steps == 0 or state["step"] == total:
                    with open(steps_log, "a") as f:
                        f.write(json.dumps({"step": state["step"], "loss": window["loss"] / window["tokens"],
                                            "learningRate": opt.param_groups[0]["lr"],
                                            "processCpuSeconds": time.process_time()}) + "\n")
                    window["loss"], window["tokens"] = 0.0, 0
            if args.bench and n_steps == args.bench:
                dt = (time.time() - t0) / n_steps
                cpu = (time.process_time() - c0) / n_steps
                log(f"bench: {dt:.3f} s/step; {steps_per_epoch} steps/epoch -> {dt * steps_per_epoch / 60:.1f} "
                    f"min/epoch; {n_params} params; CPU {cpu:.3f} s/step (all threads; about "
                    f"{cpu / args.threads:.3f} s/step wall on {args.threads} idle cores)")
                return None
            if state["batch"] % 100 == 0:
                el = time.time() - t0
                log(f"epoch {ep + 1} batch {state['batch']}/{len(batches)} loss {tot_loss / tot_tok:.4f} "
                    f"lr {opt.param_groups[0]['lr']:.2e} {el / n_steps:.3f} s/step")
            if time.time() - last_ckpt > args.ckpt_minutes * 60 and state["batch"] < len(batches):
                checkpoint()
                last_ckpt = time.time()
        # end of epoch
        rec = {"epoch": ep + 1, "train_loss": tot_loss / max(1, tot_tok), "minutes": (time.time() - t0) / 60}
        if eval_fn is not None:
            rec.update(eval_fn(model))
            model.train()
        rec["cpu_minutes"] = (cpu_seconds() - cpu0) / 60
        state["history"].append(rec)
        log("epoch done: " + json.dumps(rec))
        save_atomic({"config": config, "model": model.state_dict(), "epoch": ep + 1},
                    os.path.join(run_dir, f"epoch{ep + 1}.pt"))
        for old in epoch_files(run_dir)[:-args.keep_epochs]:
            os.remove(old)
        state["epoch"] += 1
        state["batch"] = 0
        checkpoint()
        last_ckpt = time.time()
        with open(os.path.join(run_dir, "history.json"), "w") as f:
            json.dump(state["history"], f, indent=1)
    model.eval()
    return model
