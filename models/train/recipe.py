"""What every G2P training command does around its training loop: the common
command-line options, the evaluation word lists, the teacher-forced batches and dev
check of the autoregressive models, and ``finalize`` (choose the weights, export,
evaluate with the C++ engine, check parity, write the results).

train_transformer.py, train_cmlm.py and train_rnn.py differ only in their model
config, their loss and their decoder; a new architecture plugs in the same way.
"""

import gzip
import hashlib
import json
import os
import time

import torch
import torch.nn.functional as F

from . import trainer
from .g2p_common import (DATA, DATA_STRESS, MODELS_DIR, ar_beam, ar_greedy, average_state_dicts, epoch_files, load_tsv, log, pad_seqs,
                        refs_by_word, score)
from .engine_cli import RECIPE_COMPUTE, decode, find_binary
from .eval_engine import engine_options
from .evaluate import TEST_SPLIT
from .metrics import load_references, score_stress_removed
from .export import export, load_model
from .seq2seq_torch import build_model
from . import parity_check
from .prepare_data import sha256
from . import soft_targets


# export.py's storage dtypes by the names the engine and the model cards use (Model::storage())
STORAGE_NAMES = {"f32": "f32", "f16": "f16", "i8": "int8"}
# finalize's storage candidates after f32, (name, export dtype, int8 levels), each smaller
# when gzipped (as the page's models travel) than the one before: int8 with fewer levels
# is the same file size, but two 4 M models at 127 levels alone are 7.7 MB gzipped, over
# the page's 6 MB first visit, and at 19 levels 5.5 MB
STORAGE_CANDIDATES = [("f16", "f16", 127), ("int8", "i8", 127), ("int8/31", "i8", 31), ("int8/19", "i8", 19)]
REPO_ROOT = os.path.dirname(MODELS_DIR)


def add_recipe_args(ap, run_dir=None, name=None):
    ap.add_argument("--run-dir", default=run_dir, help="checkpoints and logs of this run")
    ap.add_argument("--name", default=name, help="model name (the shipped file is MODELS_DIR/NAME.safetensors)")
    ap.add_argument("--models-dir", default=MODELS_DIR, help="where the shipped model and results go")
    ap.add_argument("--dev-eval-words", type=int, default=1000, help="dev words for the per-epoch dev check")
    ap.add_argument("--parity-words", type=int, default=300, help="dev words of the final PyTorch-vs-engine check")
    ap.add_argument("--limit-train", type=int, default=0, help="smoke tests only: use the first N training lines")
    ap.add_argument("--limit-eval", type=int, default=0, help="smoke tests only: evaluate on the first N dev/test words")
    ap.add_argument("--stress", action="store_true",
                    help="keep the stress digits: train and evaluate on models/train/work/data-stress/ "
                         "(prepare-data --stress); finalize adds the WER/PER with stress removed")


def data_dir(args):
    """The data a run trains and is evaluated on: stress removed, or kept (--stress)."""
    return DATA_STRESS if args.stress else DATA


def data_description(args):
    """What the model file's description says of its data."""
    return f"CMUdict 0.7b, stress {'kept' if args.stress else 'removed'}"


def already_finished(args):
    """A finished run only prints its results (delete RUN_DIR/final.json to redo the final step)."""
    final_json = os.path.join(args.run_dir, "final.json")
    if os.path.exists(final_json) and not args.bench:
        print(open(final_json).read())
        return True
    return False


def training_rows(args, path=None):
    rows = load_tsv(path or os.path.join(data_dir(args), "train.tsv"))
    return rows[: args.limit_train] if args.limit_train else rows


def eval_refs(args):
    """-> (dev refs, test refs, dev_small: the words of the per-epoch dev check)."""
    dev = refs_by_word(load_tsv(os.path.join(data_dir(args), "dev.tsv")))
    test = refs_by_word(load_tsv(os.path.join(data_dir(args), "test.tsv")))
    if args.limit_eval:
        dev = {w: dev[w] for w in sorted(dev)[: args.limit_eval]}
        test = {w: test[w] for w in sorted(test)[: args.limit_eval]}
    return dev, test, sorted(dev)[: args.dev_eval_words]


def teacher_forcing_batch(codec, exs):
    """(source, source lengths, decoder input BOS+y, decoder target y+EOS), padded."""
    src = pad_seqs([e[0] for e in exs], codec.src_pad)
    lengths = torch.tensor([len(e[0]) for e in exs])
    tin = pad_seqs([[codec.bos] + e[1] for e in exs], codec.pad)
    tout = pad_seqs([e[1] + [codec.eos] for e in exs], codec.pad)
    return src, lengths, tin, tout


def soft_target_batch(exs, T):
    """The examples' token-level distillation targets (soft_targets.py), each a pair
    (indices [n, K], probabilities [n, K]), padded to T positions with probability 0
    -> (indices [B, T, K], probabilities [B, T, K])."""
    K = exs[0][2][0].shape[1]
    idx = torch.zeros(len(exs), T, K, dtype=torch.long)
    prob = torch.zeros(len(exs), T, K)
    for b, e in enumerate(exs):
        i, p = e[2]
        idx[b, :len(i)] = i
        prob[b, :len(p)] = p
    return idx, prob


def distillation_loss(logits, idx, prob, keep):
    """Cross-entropy from logits [B, T, V] to a teacher's distribution (its top K:
    indices and probabilities [B, T, K]), averaged over the positions ``keep`` [B, T]."""
    lp = torch.log_softmax(logits.float(), -1).gather(-1, idx)
    return -(lp * prob).sum(-1)[keep].mean()


def add_kd_args(ap):
    """Distillation of the autoregressive models: more rows labeled by a teacher
    (distill.py --words), token-level targets (soft_targets.py)."""
    ap.add_argument("--extra-train", default=None, metavar="FILE.tsv",
                    help="rows trained on after work/data/train.tsv's: a teacher's labels of words CMUdict does "
                         "not have (distill.py --words work/data/unlabeled.txt)")
    ap.add_argument("--kd-targets", default=None, metavar="FILE.pt",
                    help="train towards a teacher's next-token distributions too (soft_targets.py output)")
    ap.add_argument("--kd-weight", type=float, default=0.5,
                    help="with --kd-targets: loss = (1 - w) x label-smoothed cross-entropy + w x cross-entropy "
                         "to the teacher's distribution")


# The per-epoch dev numbers of the autoregressive models (greedy WER/PER) in their history.
AR_DEV_KEYS = ("dev_greedy_wer", "dev_greedy_per")


def greedy_dev_check(codec, dev_refs, dev_small, max_len):
    """The per-epoch greedy dev check of the autoregressive models decoded by PyTorch:
    what engine_dev_check falls back to without a built binary."""
    def eval_fn(model):
        wer, per = score(ar_greedy(model, codec, dev_small, max_len), {w: dev_refs[w] for w in dev_small})
        return {AR_DEV_KEYS[0]: round(wer, 2), AR_DEV_KEYS[1]: round(per, 2)}
    return eval_fn


def engine_dev_check(args, config, engine_opts, dev_refs, dev_small, torch_eval_fn, keys=("dev_wer", "dev_per")):
    """The per-epoch dev check decoded by the C++ engine, on an f32 export of the epoch's
    weights (RUN_DIR/dev-check.f32.safetensors): the same numbers as the PyTorch
    decoders (they follow the engine's search rules), many times faster (the 256-wide
    CMLM: PyTorch took ~90 s for 1,000 dev words at T = 10 with 3 lengths, a third of an
    epoch; the 4 M Transformer's greedy check ~2 min on one thread). ``keys``: the names
    of WER and PER in the epoch's history. Without a built binary, ``torch_eval_fn``."""
    binary = find_binary()
    if not binary:
        return torch_eval_fn
    refs = {w: dev_refs[w] for w in dev_small}
    path = os.path.join(args.run_dir, "dev-check.f32.safetensors")
    evaluate_file = _engine_scorer(binary, engine_opts)

    def eval_fn(model):
        export(model.eval(), config, path, "f32")
        wer, per = evaluate_file(path, refs)
        return {keys[0]: round(wer, 2), keys[1]: round(per, 2)}
    return eval_fn


def train_autoregressive(args, config, codec, logits_fn, max_len):
    """The whole command of an autoregressive model (transformer, rnn): teacher-forced
    label-smoothed cross-entropy, a greedy dev check per epoch, then ``finalize`` with
    beam ``args.beam`` and no length normalization. logits_fn(model, src, src_lengths,
    decoder_input) -> logits [B, T, V] is all that differs between architectures.
    With --extra-train, a teacher's labeled rows follow train.tsv's; with --kd-targets,
    the loss mixes in the cross-entropy to a teacher's next-token distributions
    (distillation_loss)."""
    rows = training_rows(args)
    n_train_rows = len(rows)
    if args.extra_train:
        rows = rows + load_tsv(args.extra_train)
    examples = [(codec.src(w), codec.tgt(p)) for w, p in rows]
    kd_weight, kd_info = 0.0, None
    if args.kd_targets:
        if args.limit_train and args.extra_train:
            raise SystemExit("--limit-train with --extra-train and --kd-targets: the targets' rows would not line up")
        files = [os.path.join(data_dir(args), "train.tsv")] + ([args.extra_train] if args.extra_train else [])
        soft, kd_info = soft_targets.load(args.kd_targets, files, len(rows) if args.limit_train else None)
        for (_, t), (i, _) in zip(examples, soft):
            if len(i) != len(t) + 1:
                raise SystemExit(f"{args.kd_targets} does not match the training rows (positions per row differ)")
        if len(soft) != len(examples):
            raise SystemExit(f"{args.kd_targets} has {len(soft)} rows, the training data {len(examples)}")
        examples = [(s, t, k) for (s, t), k in zip(examples, soft)]
        kd_weight = args.kd_weight
        log(f"token-level distillation from {args.kd_targets} (weight {kd_weight}): {kd_info['teachers']}")
    dev_refs, _, dev_small = eval_refs(args)

    def batch_fn(exs, rng):
        batch = teacher_forcing_batch(codec, exs)
        return batch + (soft_target_batch(exs, batch[3].shape[1]) if kd_weight else None,)

    def loss_fn(model, batch):
        src, lengths, tin, tout, soft = batch
        logits = logits_fn(model, src, lengths, tin)
        ntok = int(tout.ne(codec.pad).sum())
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1),
                               ignore_index=codec.pad, label_smoothing=args.label_smoothing)
        if soft is not None:
            loss = (1 - kd_weight) * loss + kd_weight * distillation_loss(logits, *soft, tout.ne(codec.pad))
        return loss, ntok

    eval_fn = engine_dev_check(args, config, ["--greedy", "--max-length", str(max_len)], dev_refs, dev_small,
                               greedy_dev_check(codec, dev_refs, dev_small, max_len),
                               keys=AR_DEV_KEYS)
    model = trainer.train(args.run_dir, config, args, examples, batch_fn,
                          loss_fn, eval_fn, batch_key=lambda e: len(e[0]) + len(e[1]))
    if model is None:
        return None
    if args.steps:
        # a fixed-step run (the engine trainer's twin): its last weights as they are
        path = os.path.join(args.run_dir, "last.f32.safetensors")
        export(model, config, path, "f32")
        log(f"{args.steps} steps done: {path}")
        return None

    def torch_evaluate(m, refs):
        return score(ar_beam(m, codec, sorted(refs), max_len, beam=args.beam), refs)

    return finalize(args, config, torch_evaluate, f"beam {args.beam}, no length normalization",
                    engine_opts=["--beam", str(args.beam), "--length-norm", "none", "--max-length", str(max_len)],
                    extra={**({"token_distillation": {**kd_info, "weight": kd_weight}} if kd_info else {}),
                           **({"extra_train": {"file": os.path.basename(args.extra_train),
                                               "sha256": sha256(args.extra_train),
                                               "rows": len(rows) - n_train_rows}}
                              if args.extra_train else {})})


def _engine_scorer(binary, options):
    def evaluate_file(path, refs):
        words = sorted(refs)
        return score(decode(binary, path, words, options, compute=RECIPE_COMPUTE)[0], refs)
    return evaluate_file


def finalize(args, config, torch_evaluate, decoding, storage_tolerance=0.2, engine_opts=None, extra=None):
    """Choose last / average of the last 3 / 5 / 10 / --keep-epochs epochs by dev WER,
    export it in the storage that is smallest gzipped (STORAGE_CANDIDATES: int8 with 19,
    31 or 127 levels, f16, f32) whose dev WER is within storage_tolerance of f32, then
    test WER/PER, a parity check of the shipped file against PyTorch, and
    MODELS_DIR/NAME.results.json.

    With a built seq2seq binary every WER here is measured by the C++ engine with
    ``engine_opts`` (default: eval_engine.engine_options), which is also much faster
    than the PyTorch decoders; without one, ``torch_evaluate(model, refs)`` is used
    and the results say so."""
    run_dir, name = args.run_dir, args.name
    binary = find_binary()
    engine_opts = engine_opts if engine_opts is not None else engine_options(config)
    engine_eval = _engine_scorer(binary, engine_opts) if binary else None
    dev_refs, test_refs, _ = eval_refs(args)

    def evaluate(path, refs):
        if engine_eval:
            return engine_eval(path, refs)
        return torch_evaluate(load_model(path), refs)

    files = epoch_files(run_dir)
    ck = torch.load(files[-1], map_location="cpu")
    config = ck["config"]
    cands = {"last": ck["model"]}
    for k in sorted({3, 5, 10, args.keep_epochs}):  # as many as the run kept (--keep-epochs)
        if 1 < k <= len(files):
            cands[f"avg{k}"] = average_state_dicts(files[-k:])
    results = {"evaluated_by": "C++ engine (" + " ".join(engine_opts) + ")" if engine_eval else "PyTorch",
               "decoding": decoding, "candidates": {}}
    best, best_wer = None, None
    for cname, sd in cands.items():
        m = build_model(config)
        m.load_state_dict(sd)
        path = os.path.join(run_dir, f"{name}.{cname}.f32.safetensors")
        export(m.eval(), config, path, "f32")
        wer, per = evaluate(path, dev_refs)
        results["candidates"][cname] = {"dev_wer": wer, "dev_per": per}
        log(f"final candidate {cname}: dev WER {wer:.2f} PER {per:.2f}")
        if best_wer is None or wer < best_wer:
            best, best_wer = cname, wer
    m = build_model(config)
    m.load_state_dict(cands[best])
    chosen, storage, chosen_wer = os.path.join(run_dir, f"{name}.{best}.f32.safetensors"), "f32", best_wer
    results["storage_candidates"] = {"f32": {"dev_wer": best_wer}}
    levels = None
    for kind, dtype, lv in STORAGE_CANDIDATES:  # each smaller gzipped than the last; keep the smallest that holds
        path = os.path.join(run_dir, f"{name}.{kind.replace('/', '-')}.safetensors")
        export(m.eval(), config, path, dtype, i8_levels=lv)
        wer_d, per_d = evaluate(path, dev_refs)
        with open(path, "rb") as f:
            gz = len(gzip.compress(f.read(), 6))
        results["storage_candidates"][kind] = {"dev_wer": wer_d, "dev_per": per_d, "bytes": os.path.getsize(path),
                                               "gzip_bytes": gz}
        log(f"{kind} export of {best}: dev WER {wer_d:.2f} PER {per_d:.2f}, {gz} bytes gzipped")
        if wer_d <= best_wer + storage_tolerance:
            chosen, storage, chosen_wer = path, STORAGE_NAMES[dtype], wer_d
            levels = lv if dtype == "i8" else None
    final = os.path.join(args.models_dir, f"{name}.safetensors")
    os.makedirs(args.models_dir, exist_ok=True)  # a --models-dir of the run's own, e.g. RUN_DIR/out
    with open(chosen, "rb") as fi, open(final + ".tmp", "wb") as fo:
        fo.write(fi.read())
    os.replace(final + ".tmp", final)
    twer, tper = evaluate(final, test_refs)
    results.update({
        "chosen": best, "storage": storage, **({"i8_levels": levels} if levels else {}),
        "file": os.path.relpath(final, args.models_dir),
        "bytes": os.path.getsize(final), "params": sum(p.numel() for p in m.parameters()),
        "dev_wer": chosen_wer, "test_wer": twer, "test_per": tper,
        "test_words": len(test_refs), "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
        "train_minutes": round(sum(h.get("minutes", 0) for h in _history(run_dir)), 1),
        **({"train_cpu_minutes": round(sum(h["cpu_minutes"] for h in _history(run_dir)), 1)}
           if all("cpu_minutes" in h for h in _history(run_dir)) else {}),
        "train_args": {k: _repo_relative(v) for k, v in vars(args).items()},
    })
    results.update(extra or {})
    init = os.path.join(run_dir, "init.safetensors")
    if os.path.exists(init):  # a warm-started run (trainer.warm_start): which file it started from
        with open(init, "rb") as f:
            results["warm_start"] = {"from": args.init_from, "sha256": hashlib.sha256(f.read()).hexdigest(),
                                     "skipped": args.init_skip,
                                     **({"rows_by_name": True} if args.init_rows_by_name else {})}
    log(f"shipped {final} ({results['bytes']} bytes, {results['storage']}): test WER {twer:.2f} PER {tper:.2f}")
    if args.stress and binary:
        results["stress_removed"] = stress_removed_scores(binary, engine_opts, final, dev_refs, test_refs)
        log(f"with stress removed: {results['stress_removed']}")
    if binary:
        results["parity"] = parity_check.run(final, args.parity_words, binary=binary)
    else:
        log("[parity] no seq2seq binary: parity check skipped (build it, then run parity_check.py)")
    for p in (os.path.join(args.models_dir, f"{name}.results.json"), os.path.join(run_dir, "final.json")):
        with open(p, "w") as f:
            json.dump(results, f, indent=1)
    return results


def stress_removed_scores(binary, engine_opts, path, dev_refs, test_refs):
    """A stressed model's dev and test WER/PER with the stress digits removed from its
    outputs and references; on test against the standard test split, as the
    stress-free models are scored."""
    standard = load_references(TEST_SPLIT)
    out = {}
    for split, refs in (("dev", dev_refs), ("test", {w: standard[w] for w in test_refs})):
        hyps = decode(binary, path, sorted(refs), engine_opts, compute=RECIPE_COMPUTE)[0]
        wer, per = score_stress_removed(hyps, refs)
        out[split] = {"wer": wer, "per": per}
    return out


def _repo_relative(value):
    """Paths under the repository as repository-relative ones, so that the results do
    not record the folder of the checkout that trained the model."""
    if isinstance(value, str) and os.path.isabs(value) and value.startswith(REPO_ROOT + os.sep):
        return os.path.relpath(value, REPO_ROOT)
    return value


def _history(run_dir):
    path = os.path.join(run_dir, "history.json")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return json.load(f)
