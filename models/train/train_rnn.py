"""Train, export and evaluate g2p-rnn-<score> (RNN encoder-decoder G2P, "arch": "rnn").

    /usr/bin/python3 models/train/train_rnn.py --attention dot|multiplicative|reduced_rank|additive

Same data, split, batching, checkpointing and final selection as train_transformer.py:
trains (resuming from models/train/work/rnn-<score>/last.pt when it exists), picks the
best of {last epoch, average of the last 3 / 5 epochs} by dev WER (PyTorch beam 5,
the engine's search rules), exports models/g2p-rnn-<score>.safetensors (f16 if its dev
WER is within 0.2 of f32, else f32), reports the test WER to
models/g2p-rnn-<score>.results.json and calls the C++-engine evaluation hook.
Re-running after it finished only prints the results.

Model (docs/model-format.md, "The RNN encoder-decoder"): bidirectional GRU encoder,
bridge, GRU decoder, attention score --attention; the same sizes for all four scores
(dec_hidden = 2 x enc_hidden, so dot works). Training: teacher forcing,
label-smoothed cross-entropy, AdamW, warmup then cosine decay, dropout on the
embeddings, between encoder layers and before the output layer.
"""

import argparse
import os
import sys

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from g2p_common import (DATA, MODELS_DIR, WORK, Codec, ar_beam, ar_greedy, load_tsv, load_vocab,  # noqa: E402
                        max_output_len, pad_seqs, refs_by_word, score)
from seq2seq_torch import RNN_ATTENTIONS, normalize_config  # noqa: E402
from train_transformer import finalize  # noqa: E402
import trainer  # noqa: E402

MAX_POS = 48  # longest source (CMUdict: 34 characters) and longest output the engine accepts


def model_config(args, vocab, name, description):
    return normalize_config({
        "arch": "rnn", "cell": "gru", "emb_dim": args.emb_dim, "enc_hidden": args.enc_hidden,
        "enc_layers": args.enc_layers, "dec_hidden": args.dec_hidden, "attention": args.attention,
        "attn_dim": args.attn_dim if args.attention in ("reduced_rank", "additive") else 0,
        "max_pos": MAX_POS,
        "src_vocab": vocab["src_vocab"], "tgt_vocab": vocab["tgt_vocab"],
        "src_specials": vocab["src_specials"], "tgt_specials": vocab["tgt_specials"],
        "src_case": "upper", "name": name, "description": description,
    })


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--attention", required=True, choices=RNN_ATTENTIONS)
    ap.add_argument("--run-dir", default=None, help="default: models/train/work/rnn-<attention>")
    ap.add_argument("--name", default=None, help="default: g2p-rnn-<attention> (dashes for underscores)")
    ap.add_argument("--models-dir", default=MODELS_DIR, help="where the shipped model and results go")
    ap.add_argument("--beam", type=int, default=5)
    ap.add_argument("--dev-eval-words", type=int, default=1000, help="dev words for the per-epoch greedy WER")
    ap.add_argument("--limit-train", type=int, default=0, help="smoke tests only: use the first N training lines")
    ap.add_argument("--limit-eval", type=int, default=0, help="smoke tests only: evaluate on the first N dev/test words")
    ap.add_argument("--emb-dim", type=int, default=64)
    ap.add_argument("--enc-hidden", type=int, default=120, help="per direction")
    ap.add_argument("--enc-layers", type=int, default=1)
    ap.add_argument("--dec-hidden", type=int, default=240)
    ap.add_argument("--attn-dim", type=int, default=64, help="r (reduced_rank) / A (additive); unused otherwise")
    trainer.add_train_args(ap, epochs=10, batch_size=256, lr=2e-3, warmup=300, dropout=0.2, attn_dropout=0.0)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    score_name = args.attention.replace("_", "-")
    args.run_dir = args.run_dir or os.path.join(WORK, f"rnn-{score_name}")
    args.name = args.name or f"g2p-rnn-{score_name}"

    final_json = os.path.join(args.run_dir, "final.json")
    if os.path.exists(final_json) and not args.bench:
        print(open(final_json).read())
        return

    vocab = load_vocab()
    codec = Codec(vocab)
    config = model_config(args, vocab, args.name,
                          "Grapheme-to-phoneme (CMUdict 0.7b, stress removed), RNN encoder-decoder "
                          f"(bidirectional GRU, GRU decoder, {args.attention.replace('_', '-')} attention); "
                          "input: an English word in upper case; output: ARPAbet phonemes")
    max_len = max_output_len(config)
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
        lengths = torch.tensor([len(s) for s, _ in exs])
        tin = pad_seqs([[codec.bos] + t for _, t in exs], codec.pad)
        tout = pad_seqs([t + [codec.eos] for _, t in exs], codec.pad)
        return src, lengths, tin, tout

    def loss_fn(model, batch):
        src, lengths, tin, tout = batch
        logits, _ = model(src, tin, lengths)
        ntok = int(tout.ne(codec.pad).sum())
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1),
                               ignore_index=codec.pad, label_smoothing=args.label_smoothing)
        return loss, ntok

    def eval_fn(model):
        hyps = ar_greedy(model, codec, dev_small, max_len)
        wer, per = score(hyps, {w: dev_refs[w] for w in dev_small})
        return {"dev_greedy_wer": round(wer, 2), "dev_greedy_per": round(per, 2)}

    model = trainer.train(args.run_dir, config, args, examples, batch_fn, loss_fn, eval_fn,
                          batch_key=lambda e: len(e[0]) + len(e[1]))
    if model is None:
        return

    def evaluate(m, split):
        refs = dev_refs if split == "dev" else test_refs
        hyps = ar_beam(m, codec, sorted(refs), max_len, beam=args.beam)
        return score(hyps, refs)

    finalize(args.run_dir, args.name, evaluate, {"decoding": f"beam {args.beam}", "train_args": vars(args)},
             models_dir=args.models_dir, eval_limit=args.limit_eval)


if __name__ == "__main__":
    main()
