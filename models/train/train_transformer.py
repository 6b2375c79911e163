"""Train, export and evaluate g2p-transformer (autoregressive Transformer G2P).

    /usr/bin/python3 models/train/train_transformer.py

One command: trains (resuming from models/train/work/ar/last.pt when it exists),
then picks the best of {last epoch, average of the last 3 / 5 epochs} by dev WER
(beam 5), exports models/g2p-transformer.safetensors (f16 if dev WER holds, else
f32), reports test WER (PyTorch beam 5, reported only, never used to choose) to
models/g2p-transformer.results.json, and calls the C++-engine evaluation hook.
Re-running after it finished only prints the results.
"""

import argparse
import json
import os
import sys
import time

# OpenMP threads that spin while the other core is busy (C++ builds share this
# machine) made steps 3x slower; passive waiting fixes it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch  # noqa: E402
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from g2p_common import (DATA, MODELS_DIR, WORK, Codec, ar_beam, ar_greedy, average_state_dicts,  # noqa: E402
                        engine_eval_hook, epoch_files, load_tsv, load_vocab, log, pad_seqs, refs_by_word, score)
from export import export, load_model  # noqa: E402
from seq2seq_torch import build_model, normalize_config  # noqa: E402
import trainer  # noqa: E402

MAX_POS = 48
MAX_TARGET_LEN = 40


def model_config(args, vocab, arch, name, description):
    return normalize_config({
        "arch": arch, "d_model": args.d_model, "n_heads": args.heads, "d_ff": args.d_ff,
        "activation": args.activation, "enc_layers": args.enc_layers, "dec_layers": args.dec_layers,
        "norm": args.norm, "ln_eps": 1e-5, "pos": "sinusoidal", "max_pos": MAX_POS,
        "scale_embedding": True, "tie_output": True, "max_target_len": MAX_TARGET_LEN,
        "src_vocab": vocab["src_vocab"], "tgt_vocab": vocab["tgt_vocab"],
        "src_specials": vocab["src_specials"], "tgt_specials": vocab["tgt_specials"],
        "src_case": "upper", "name": name, "description": description,
    })


def add_model_args(ap):
    ap.add_argument("--d-model", type=int, default=128)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--d-ff", type=int, default=512)
    ap.add_argument("--enc-layers", type=int, default=3)
    ap.add_argument("--dec-layers", type=int, default=3)
    ap.add_argument("--norm", default="pre", choices=["pre", "post"])
    ap.add_argument("--activation", default="relu", choices=["relu", "gelu"])


def finalize(run_dir, name, evaluate, log_extra=None, f16_tolerance=0.2, models_dir=MODELS_DIR, eval_limit=0):
    """Choose last / averaged weights by dev WER, export (f16 if it holds), test WER."""
    files = epoch_files(run_dir)
    ck = torch.load(files[-1], map_location="cpu")
    config = ck["config"]
    cands = {"last": ck["model"]}
    for k in (3, 5):
        if len(files) >= k:
            cands[f"avg{k}"] = average_state_dicts(files[-k:])
    results = {"candidates": {}}
    best, best_wer = None, None
    for cname, sd in cands.items():
        m = build_model(config)
        m.load_state_dict(sd)
        m.eval()
        wer, per = evaluate(m, "dev")
        results["candidates"][cname] = {"dev_wer": wer, "dev_per": per}
        log(f"final candidate {cname}: dev WER {wer:.2f} PER {per:.2f}")
        if best_wer is None or wer < best_wer:
            best, best_wer = cname, wer
    out32 = os.path.join(run_dir, f"{name}.f32.safetensors")
    out16 = os.path.join(run_dir, f"{name}.f16.safetensors")
    m = build_model(config)
    m.load_state_dict(cands[best])
    export(m, config, out32, "f32")
    export(m, config, out16, "f16")
    wer16, per16 = evaluate(load_model(out16), "dev")
    log(f"f16 export of {best}: dev WER {wer16:.2f} PER {per16:.2f}")
    use16 = wer16 <= best_wer + f16_tolerance
    chosen = out16 if use16 else out32
    final = os.path.join(models_dir, f"{name}.safetensors")
    with open(chosen, "rb") as fi, open(final + ".tmp", "wb") as fo:
        fo.write(fi.read())
    os.replace(final + ".tmp", final)
    mfinal = load_model(final)
    twer, tper = evaluate(mfinal, "test")
    results.update({
        "chosen": best, "storage": "f16" if use16 else "f32", "file": os.path.relpath(final, models_dir),
        "bytes": os.path.getsize(final), "params": sum(p.numel() for p in mfinal.parameters()),
        "dev_wer": wer16 if use16 else best_wer, "test_wer": twer, "test_per": tper,
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
    })
    results.update(log_extra or {})
    with open(os.path.join(models_dir, f"{name}.results.json"), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(run_dir, "final.json"), "w") as f:
        json.dump(results, f, indent=1)
    log(f"shipped {final} ({results['bytes']} bytes, {results['storage']}): test WER {twer:.2f} PER {tper:.2f}")
    eng = engine_eval_hook(final, "test", log, limit=eval_limit)
    if eng:
        results["engine_test"] = eng
        for p in (os.path.join(models_dir, f"{name}.results.json"), os.path.join(run_dir, "final.json")):
            with open(p, "w") as f:
                json.dump(results, f, indent=1)
    return results


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run-dir", default=os.path.join(WORK, "ar"))
    ap.add_argument("--name", default="g2p-transformer")
    ap.add_argument("--models-dir", default=MODELS_DIR, help="where the shipped model and results go")
    ap.add_argument("--beam", type=int, default=5)
    ap.add_argument("--dev-eval-words", type=int, default=1000, help="dev words for the per-epoch greedy WER")
    ap.add_argument("--limit-train", type=int, default=0, help="smoke tests only: use the first N training lines")
    ap.add_argument("--limit-eval", type=int, default=0, help="smoke tests only: evaluate on the first N dev/test words")
    add_model_args(ap)
    trainer.add_train_args(ap, epochs=6, batch_size=256, lr=1.5e-3, warmup=500, attn_dropout=0.0)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)

    final_json = os.path.join(args.run_dir, "final.json")
    if os.path.exists(final_json) and not args.bench:
        print(open(final_json).read())
        return

    vocab = load_vocab()
    codec = Codec(vocab)
    config = model_config(args, vocab, "transformer", args.name,
                          "Grapheme-to-phoneme (CMUdict 0.7b, stress removed), autoregressive Transformer; "
                          "input: an English word in upper case; output: ARPAbet phonemes")
    train_rows = load_tsv(os.path.join(DATA, "train.tsv"))
    if args.limit_train:
        train_rows = train_rows[: args.limit_train]
    examples = [(codec.src(w), codec.tgt(p)) for w, p in train_rows]
    dev_refs = refs_by_word(load_tsv(os.path.join(DATA, "dev.tsv")))
    test_refs = refs_by_word(load_tsv(os.path.join(DATA, "test.tsv")))
    if args.limit_eval:
        dev_refs = {w: dev_refs[w] for w in sorted(dev_refs)[: args.limit_eval]}
        test_refs = {w: test_refs[w] for w in sorted(test_refs)[: args.limit_eval]}
    dev_small = sorted(dev_refs)[: args.dev_eval_words]

    def batch_fn(exs, rng):
        src = pad_seqs([s for s, _ in exs], codec.src_pad)
        tin = pad_seqs([[codec.bos] + t for _, t in exs], codec.pad)
        tout = pad_seqs([t + [codec.eos] for _, t in exs], codec.pad)
        return src, tin, tout

    def loss_fn(model, batch):
        src, tin, tout = batch
        out = model(src, tin, src.eq(codec.src_pad), tin.eq(codec.pad))
        ntok = int(tout.ne(codec.pad).sum())
        loss = F.cross_entropy(out["logits"].reshape(-1, out["logits"].shape[-1]), tout.reshape(-1),
                               ignore_index=codec.pad, label_smoothing=args.label_smoothing)
        return loss, ntok

    def eval_fn(model):
        hyps = ar_greedy(model, codec, dev_small, MAX_TARGET_LEN)
        wer, per = score(hyps, {w: dev_refs[w] for w in dev_small})
        return {"dev_greedy_wer": round(wer, 2), "dev_greedy_per": round(per, 2)}

    model = trainer.train(args.run_dir, config, args, examples, batch_fn, loss_fn, eval_fn,
                          batch_key=lambda e: len(e[0]) + len(e[1]))
    if model is None:
        return

    def evaluate(m, split):
        refs = dev_refs if split == "dev" else test_refs
        hyps = ar_beam(m, codec, sorted(refs), MAX_TARGET_LEN, beam=args.beam)
        return score(hyps, refs)

    finalize(args.run_dir, args.name, evaluate, {"decoding": f"beam {args.beam}", "train_args": vars(args)},
             models_dir=args.models_dir, eval_limit=args.limit_eval)


if __name__ == "__main__":
    main()
