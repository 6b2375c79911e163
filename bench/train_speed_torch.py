"""PyTorch's side of bench/train-speed.mjs: training steps per second of the
reference Transformer (models/train/seq2seq_torch.py, the classes the engine's
trainer is held to) on one thread, for the config bench_train times.

    /usr/bin/python3 bench/train_speed_torch.py D_MODEL HEADS D_FF LAYERS BATCH WARMUP_STEPS TIMED_STEPS

The batches have the reverse task's shapes and vocabularies as `seq2seq train
--task reverse` draws them (src/train/tasks.cpp: letters a-z, lengths 3 to 12
uniform; source vocabulary 2 specials + 26, target 5 + 26), padded as the
recipe pads (models/train/recipe.py's teacher_forcing_batch). A step is what
the recipe's trainer does (models/train/trainer.py): forward, cross-entropy,
backward, clip_grad_norm_ 1.0, AdamW; dropout and label smoothing 0, as the
task's defaults. One JSON line, as bench_train prints: steps per second (of wall
time and of the process's CPU time) over the timed steps after the warm-up steps; peak resident set of the process (the
interpreter and torch included).
"""

import json
import os
import random
import resource
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from models.train.seq2seq_torch import build_model, normalize_config  # noqa: E402

SRC_SPECIALS = ["<pad>", "<unk>"]
TGT_SPECIALS = ["<pad>", "<unk>", "<s>", "</s>", "<mask>"]
LETTERS = [chr(c) for c in range(ord("a"), ord("z") + 1)]
MIN_LEN, MAX_LEN = 3, 12


def batches(batch_size, rng):
    """Endless reverse-task batches: (source, decoder input, decoder target), padded."""
    pad, bos, eos = 0, 2, 3
    while True:
        src, tin, tout = [], [], []
        for _ in range(batch_size):
            n = rng.randint(MIN_LEN, MAX_LEN)
            s = [rng.randrange(26) for _ in range(n)]
            src.append([len(SRC_SPECIALS) + c for c in s])
            t = [len(TGT_SPECIALS) + c for c in reversed(s)]
            tin.append([bos] + t)
            tout.append(t + [eos])

        def padded(rows):
            width = max(len(r) for r in rows)
            return torch.tensor([r + [pad] * (width - len(r)) for r in rows])
        yield padded(src), padded(tin), padded(tout)


def main():
    if len(sys.argv) != 8:
        sys.exit(__doc__)
    d_model, heads, d_ff, layers, batch_size, warm, timed = (int(a) for a in sys.argv[1:])
    torch.set_num_threads(1)
    torch.manual_seed(1)
    config = normalize_config({
        "arch": "transformer", "d_model": d_model, "n_heads": heads, "d_ff": d_ff, "activation": "relu",
        "enc_layers": layers, "dec_layers": layers, "norm": "pre", "ln_eps": 1e-5, "pos": "sinusoidal",
        "max_pos": MAX_LEN + 2, "scale_embedding": True, "tie_output": True, "max_target_len": MAX_LEN + 1,
        "src_vocab": SRC_SPECIALS + LETTERS, "tgt_vocab": TGT_SPECIALS + LETTERS,
        "src_specials": {"pad": 0, "unk": 1}, "tgt_specials": {"pad": 0, "unk": 1, "bos": 2, "eos": 3, "mask": 4},
        "src_case": "lower",
    })
    model = build_model(config, dropout=0.0, attn_dropout=0.0)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, betas=(0.9, 0.98), eps=1e-8, weight_decay=0.01)
    data = batches(batch_size, random.Random(1))

    def step():
        src, tin, tout = next(data)
        logits = model(src, tin, src.eq(0), tin.eq(0))["logits"]
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1), ignore_index=0)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    for _ in range(warm):
        step()
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(timed):
        step()
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(json.dumps({
        "side": "pytorch", "torch": torch.__version__, "params": sum(p.numel() for p in model.parameters()),
        "dModel": d_model, "heads": heads, "dFf": d_ff, "layers": layers, "batch": batch_size, "steps": timed,
        "seconds": round(seconds, 4), "stepsPerSecond": round(timed / seconds, 3),
        "cpuSeconds": round(cpu, 4), "stepsPerCpuSecond": round(timed / cpu, 3),
        "peakMB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))


if __name__ == "__main__":
    main()
