"""Train, export and evaluate g2p-cmlm (Mask-Predict CMLM with a length head),
distilled from g2p-transformer.

    /usr/bin/python3 -m models.train train-cmlm

One command: (1) if work/data/train_distill.tsv is missing, decodes the training
words with the AR teacher models/g2p-transformer.safetensors (distill.py, resumable);
(2) trains on the teacher's outputs (resuming from work/cmlm/last.pt); (3)
recipe.finalize: picks last / averaged weights by dev WER, exports
models/g2p-cmlm.safetensors (f16 if dev WER holds), measures test WER/PER with the
C++ engine, checks PyTorch-vs-engine parity, writes models/g2p-cmlm.results.json.

Training (Mask-Predict): for each target of N tokens, n ~ U{1..N} positions are
replaced by <mask> and predicted (label-smoothed CE on the masked positions only);
the length head learns the true length (CE, weight --length-weight). With
probability --eos-pad-prob a target is first padded with k ~ U{1..--eos-pad-max}
EOS tokens (the length target stays the true length), so that decoding at a fixed
maximum length and cutting at the first EOS works (docs/model-format.md).
Dev/test decoding here: length beam --length-beam from the length head,
--iterations rounds of Mask-Predict, best candidate by mean log-probability plus
--length-score-weight times the length head's log-probability.
"""

import argparse
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from . import distill
from . import trainer
from .g2p_common import MODELS_DIR, WORK, Codec, cmlm_decode, load_vocab, pad_seqs, score
from . import recipe
from .eval_engine import engine_options
from .engine_cli import CMLM_ITERATIONS, CMLM_LENGTH_CANDIDATES, CMLM_LENGTH_SCORE_WEIGHT
from .seq2seq_torch import normalize_config
from .train_transformer import MAX_TARGET_LEN, add_model_args, model_config


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    recipe.add_recipe_args(ap, run_dir=os.path.join(WORK, "cmlm"), name="g2p-cmlm")
    ap.add_argument("--teacher", default=os.path.join(MODELS_DIR, "g2p-transformer.safetensors"))
    ap.add_argument("--distill-beam", type=int, default=1, help="teacher decoding: 1 = greedy, else beam size")
    ap.add_argument("--distill-file", default=distill.DEFAULT_OUT)
    ap.add_argument("--length-weight", type=float, default=0.1)
    ap.add_argument("--length-offset", type=int, default=20,
                    help="length head classes: 0 = absolute lengths; C > 0 = offsets -C..C from the word's length")
    ap.add_argument("--eos-pad-prob", type=float, default=0.2)
    ap.add_argument("--eos-pad-max", type=int, default=6)
    ap.add_argument("--iterations", type=int, default=CMLM_ITERATIONS)
    ap.add_argument("--length-beam", type=int, default=CMLM_LENGTH_CANDIDATES)
    ap.add_argument("--length-score-weight", type=float, default=CMLM_LENGTH_SCORE_WEIGHT,
                    help="length beam: a draft's score is avg log P(tokens) + this * log P(length)")
    add_model_args(ap, d_model=128, d_ff=512)
    trainer.add_train_args(ap, epochs=10, batch_size=256, lr=1.5e-3, warmup=500, attn_dropout=0.0)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    if recipe.already_finished(args):
        return

    distill.run(args.teacher, args.distill_beam, args.distill_file, limit=args.limit_train)
    vocab = load_vocab(recipe.data_dir(args))
    codec = Codec(vocab)
    config = model_config(args, vocab, "cmlm", args.name,
                          f"Grapheme-to-phoneme ({recipe.data_description(args)}), non-autoregressive Mask-Predict "
                          "CMLM distilled from g2p-transformer; input: an English word in upper case; output: "
                          "ARPAbet phonemes")
    config = normalize_config({**config, "length_offset": args.length_offset})
    # (an offset head also needs the length within C of the word's length; words outside are dropped)
    examples = [(codec.src(w), codec.tgt(p)) for w, p in recipe.training_rows(args, args.distill_file)
                if 0 < len(p) <= MAX_TARGET_LEN
                and (args.length_offset == 0 or abs(len(p) - len(w)) <= args.length_offset)]
    dev_refs, _, dev_small = recipe.eval_refs(args)

    def batch_fn(exs, rng):
        tins, touts, lens = [], [], []
        for _, t in exs:
            lens.append(len(t))
            t = list(t)
            room = MAX_TARGET_LEN - len(t)
            if room > 0 and rng.random() < args.eos_pad_prob:
                t += [codec.eos] * rng.randint(1, min(args.eos_pad_max, room))
            n = rng.randint(1, len(t))
            pos = set(rng.sample(range(len(t)), n))
            tins.append([codec.mask if i in pos else x for i, x in enumerate(t)])
            touts.append([x if i in pos else codec.pad for i, x in enumerate(t)])
        src = pad_seqs([s for s, _ in exs], codec.src_pad)
        T = max(len(x) for x in tins)
        tin = pad_seqs(tins, codec.pad, T)
        tout = pad_seqs(touts, codec.pad, T)
        # key padding from the lengths (a given token may never equal pad, but be explicit)
        tpm = torch.arange(T)[None, :] >= torch.tensor([len(x) for x in tins])[:, None]
        return src, tin, tout, tpm, torch.tensor(lens)

    def loss_fn(model, batch):
        src, tin, tout, tpm, lens = batch
        out = model(src, tin, src.eq(codec.src_pad), tpm)
        ntok = int(tout.ne(codec.pad).sum())
        tok_loss = F.cross_entropy(out["logits"].reshape(-1, out["logits"].shape[-1]), tout.reshape(-1),
                                   ignore_index=codec.pad, label_smoothing=args.label_smoothing)
        len_loss = F.cross_entropy(out["length_logits"], lens.clamp(max=MAX_TARGET_LEN))
        return tok_loss + args.length_weight * len_loss, ntok

    def decode(m, words):
        return cmlm_decode(m, codec, words, iterations=args.iterations, length_beam=args.length_beam,
                           length_score_weight=args.length_score_weight)

    def torch_eval_fn(model):
        wer, per = score(decode(model, dev_small), {w: dev_refs[w] for w in dev_small})
        return {"dev_wer": round(wer, 2), "dev_per": round(per, 2)}

    engine_opts = engine_options(config, iterations=args.iterations, length_candidates=args.length_beam,
                                 length_score_weight=args.length_score_weight)
    eval_fn = recipe.engine_dev_check(args, config, engine_opts, dev_refs, dev_small, torch_eval_fn)
    model = trainer.train(args.run_dir, config, args, examples, batch_fn, loss_fn, eval_fn,
                          batch_key=lambda e: len(e[0]) + len(e[1]))
    if model is None:
        return

    def torch_evaluate(m, refs):
        return score(decode(m, sorted(refs)), refs)

    recipe.finalize(args, config, torch_evaluate,
                    f"mask-predict, {args.iterations} iterations, length beam {args.length_beam} "
                    f"ranked with length score weight {args.length_score_weight}",
                    engine_opts=engine_opts)


if __name__ == "__main__":
    main()
