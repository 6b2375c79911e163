"""Train, export and evaluate g2p-transformer (autoregressive Transformer G2P).

    /usr/bin/python3 -m models.train train-transformer

One command: trains (resuming from models/train/work/ar/last.pt when it exists),
then (recipe.finalize) picks the best of {last epoch, average of the last 3 / 5 / 10
epochs} by dev WER (beam 5), exports models/g2p-transformer.safetensors (f16 if dev
WER holds, else f32), measures test WER/PER with the C++ engine (reported only,
never used to choose), checks PyTorch-vs-engine parity on 300 dev words and writes
models/g2p-transformer.results.json. Re-running after it finished only prints the
results.
"""

import argparse
import os

# OpenMP threads that spin while the other core is busy (C++ builds share this
# machine) made steps 3x slower; passive waiting fixes it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch  # noqa: E402

from .g2p_common import WORK, Codec, load_vocab
from .seq2seq_torch import normalize_config
from . import recipe
from . import trainer

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


def add_model_args(ap, d_model=256, d_ff=512):
    ap.add_argument("--d-model", type=int, default=d_model)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--d-ff", type=int, default=d_ff)
    ap.add_argument("--enc-layers", type=int, default=3)
    ap.add_argument("--dec-layers", type=int, default=3)
    ap.add_argument("--norm", default="pre", choices=["pre", "post"])
    ap.add_argument("--activation", default="relu", choices=["relu", "gelu"])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    recipe.add_recipe_args(ap, run_dir=os.path.join(WORK, "ar"), name="g2p-transformer")
    ap.add_argument("--beam", type=int, default=5)
    add_model_args(ap)
    recipe.add_kd_args(ap)
    # 3 layers x 256 wide, as the published g2p-seq2seq Transformer row (its filter size is not
    # given); FFN 512 keeps it at 3.98 M parameters: 8.0 MB as f16, 4.1 MB as int8
    trainer.add_train_args(ap, epochs=26, batch_size=256, lr=1.2e-3, warmup=800, attn_dropout=0.0)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    if recipe.already_finished(args):
        return

    vocab = load_vocab(recipe.data_dir(args))
    codec = Codec(vocab)
    config = model_config(args, vocab, "transformer", args.name,
                          f"Grapheme-to-phoneme ({recipe.data_description(args)}), autoregressive Transformer; "
                          "input: an English word in upper case; output: ARPAbet phonemes")
    recipe.train_autoregressive(
        args, config, codec,
        lambda m, src, lengths, tin: m(src, tin, src.eq(codec.src_pad), tin.eq(codec.pad))["logits"],
        MAX_TARGET_LEN)


if __name__ == "__main__":
    main()
