"""Train, export and evaluate g2p-rnn-<score> (RNN encoder-decoder G2P, "arch": "rnn").

    /usr/bin/python3 -m models.train train-rnn --attention dot|multiplicative|reduced_rank|additive

Same data, split, batching, checkpointing and final selection as train_transformer.py:
trains (resuming from models/train/work/rnn-<score>/last.pt when it exists), picks the
best of {last epoch, average of the last 3 / 5 / 10 epochs kept} by dev WER (beam 5, measured
by the C++ engine: recipe.finalize), exports models/g2p-rnn-<score>.safetensors (f16
if its dev WER is within 0.2 of f32, else f32), measures the test WER/PER with the
engine, checks PyTorch-vs-engine parity and writes models/g2p-rnn-<score>.results.json.
Re-running after it finished only prints the results.

Model (docs/model-format.md, "The RNN encoder-decoder"): bidirectional GRU encoder,
bridge, GRU decoder, attention score --attention; the same sizes for all four scores
(dec_hidden = 2 x enc_hidden, so dot works). Training: teacher forcing,
label-smoothed cross-entropy, AdamW, warmup then cosine decay, dropout on the
embeddings, between encoder layers and before the output layer.
"""

import argparse
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch  # noqa: E402

from .g2p_common import WORK, Codec, load_vocab, max_output_len
from .seq2seq_torch import RNN_ATTENTIONS, normalize_config
from . import recipe
from . import trainer

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
    recipe.add_recipe_args(ap)  # --run-dir default: work/rnn-<score>; --name default: g2p-rnn-<score>
    ap.add_argument("--beam", type=int, default=5)
    ap.add_argument("--emb-dim", type=int, default=64)
    ap.add_argument("--enc-hidden", type=int, default=120, help="per direction")
    ap.add_argument("--enc-layers", type=int, default=1)
    ap.add_argument("--dec-hidden", type=int, default=240)
    ap.add_argument("--attn-dim", type=int, default=64, help="r (reduced_rank) / A (additive); unused otherwise")
    recipe.add_kd_args(ap)
    trainer.add_train_args(ap, epochs=6, batch_size=256, lr=2e-3, warmup=300, dropout=0.2, attn_dropout=0.0,
                           bf16=False)  # (the shipped RNNs were trained in f32)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    score_name = args.attention.replace("_", "-")
    args.run_dir = args.run_dir or os.path.join(WORK, f"rnn-{score_name}")
    args.name = args.name or f"g2p-rnn-{score_name}"
    if recipe.already_finished(args):
        return

    vocab = load_vocab(recipe.data_dir(args))
    codec = Codec(vocab)
    config = model_config(args, vocab, args.name,
                          f"Grapheme-to-phoneme ({recipe.data_description(args)}), RNN encoder-decoder "
                          f"(bidirectional GRU, GRU decoder, {score_name} attention); "
                          "input: an English word in upper case; output: ARPAbet phonemes")
    recipe.train_autoregressive(args, config, codec, lambda m, src, lengths, tin: m(src, tin, lengths)[0],
                                max_output_len(config))


if __name__ == "__main__":
    main()
