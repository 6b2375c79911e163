"""The inside of one decoder pass, by PyTorch: tests/fixtures/NAME.inside.json for every
parity fixture (tests/fixtures/README.md), the numbers Model::inspect must give.

    /usr/bin/python3 -m tests.tools.make_inside_fixtures      # from the repository root

Each fixture's first source and first target are run through the float64 reference
(models/train/seq2seq_torch.py, the stored weights reloaded), and forward hooks on its
own modules record what each one computed: the q/k/v/o projections and the attention
module's probabilities, each LayerNorm's input and output, the FFN's second layer's
input (the hidden layer after its activation), the embeddings; for the RNN the GRU's
states, the score module's raw scores, the bridge's input (the context vector c) and
the output layer's input [a_t ; s_t]. What a hook cannot see is derived from what it
saw, as the module itself computes it: the raw scores q·k of each head (the scaled
ones are what softmax reads) and each norm's mean and standard deviation.
The file holds the call (`source` text, `tokens` as Model::inspect takes them) and
`inside`, laid out as StepInside in the --trace JSON (src/snapshot_schema.json), so
that a test compares the two field by field.
"""

import json
import math
import os

import torch

from models.train.export import load_model_file
from models.train.seq2seq_torch import build_model

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")


def r(x):
    """Round floats for JSON (10 significant digits, far below the tolerance)."""
    if isinstance(x, list):
        return [r(v) for v in x]
    return float(f"{x:.10g}")


def flat(t):
    return r(t.reshape(-1).tolist())


class Recorder:
    """Forward hooks that keep each module's inputs and output, call after call."""

    def __init__(self):
        self.calls = {}
        self.handles = []

    def watch(self, name, module):
        def hook(_m, inputs, output):
            self.calls.setdefault(name, []).append((inputs, output))
        self.handles.append(module.register_forward_hook(hook))

    def last(self, name):
        return self.calls[name][-1]

    def close(self):
        for h in self.handles:
            h.remove()


def norm_of(rec, name):
    (x,), y = rec.last(name)
    x, y = x[0], y[0]
    mean = x.mean(-1)
    std = torch.sqrt(x.var(-1, unbiased=False) + rec.eps)
    return {"input": flat(x), "mean": flat(mean), "std": flat(std), "output": flat(y)}


def attention_of(rec, name, heads, causal):
    q = rec.last(f"{name}.q_proj")[1][0]
    k = rec.last(f"{name}.k_proj")[1][0]
    v = rec.last(f"{name}.v_proj")[1][0]
    (ctx,), _ = rec.last(f"{name}.o_proj")
    _, (_, probs) = rec.last(name)
    nq, nk, d = q.shape[0], k.shape[0], q.shape[1]
    dh = d // heads
    scores = torch.stack([q[:, h * dh:(h + 1) * dh] @ k[:, h * dh:(h + 1) * dh].T for h in range(heads)])
    mask = torch.ones(nq, nk, dtype=torch.bool).triu(1) if causal else torch.zeros(nq, nk, dtype=torch.bool)
    return {"queries": nq, "keys": nk, "q": flat(q), "k": flat(k), "v": flat(v), "scores": flat(scores),
            "scale": r(1 / math.sqrt(dh)), "scaled": flat(scores / math.sqrt(dh)), "mask": mask.int().reshape(-1).tolist(),
            "weights": flat(probs[0]), "headOutputs": flat(ctx[0])}


def transformer_inside(ref, cfg, source, target):
    rec = Recorder()
    rec.eps = cfg["ln_eps"]
    pre = cfg["norm"] == "pre"
    stacks = {"encoder": ref.encoder, "decoder": ref.decoder}
    for sname, stack in stacks.items():
        for i, layer in enumerate(stack.layers):
            p = f"{sname}.{i}"
            rec.watch(p, layer)
            for a in ("self_attn", "cross_attn"):
                if hasattr(layer, a):
                    att = getattr(layer, a)
                    rec.watch(f"{p}.{a}", att)
                    for proj in ("q_proj", "k_proj", "v_proj", "o_proj"):
                        rec.watch(f"{p}.{a}.{proj}", getattr(att, proj))
            rec.watch(f"{p}.ffn", layer.ffn)
            rec.watch(f"{p}.ffn.fc2", layer.ffn.fc2)
            for ln in ("ln1", "ln2", "ln3"):
                if hasattr(layer, ln):
                    rec.watch(f"{p}.{ln}", getattr(layer, ln))
        if stack.final_ln is not None:
            rec.watch(f"{sname}.final_ln", stack.final_ln)
    rec.watch("src_embed", ref.src_embed)
    rec.watch("tgt_embed", ref.tgt_embed)
    with torch.no_grad():
        src = torch.tensor([source])
        tgt = torch.tensor([target])
        out = ref(src, tgt)
        positions = {"encoder": ref._positions(len(source), ref.src_pos, src.device, torch.float64),
                     "decoder": ref._positions(len(target), ref.tgt_pos, src.device, torch.float64)}
    rec.close()
    H = cfg["n_heads"]
    causal = cfg["arch"] == "transformer"

    def sub(p, ln, branch, kind, att_name=None, cross=False):
        """One residual branch: its input, norm, delta, sum and output, as StepInside has them."""
        _, delta = rec.last(branch)
        delta = (delta[0] if isinstance(delta, tuple) else delta)[0]
        n = norm_of(rec, f"{p}.{ln}")
        normed = torch.tensor(n["output"], dtype=torch.float64).reshape(delta.shape)
        if pre:
            x = torch.tensor(n["input"], dtype=torch.float64).reshape(delta.shape)
            total = x + delta
            output = total
        else:
            total = torch.tensor(n["input"], dtype=torch.float64).reshape(delta.shape)
            x = total - delta  # the branch's input: what the module was called with
            output = normed
        s = {"input": flat(x), "preNorm": pre, "norm": n, "isAttention": kind == "attention"}
        if kind == "attention":
            s["attention"] = attention_of(rec, att_name, H, causal and not cross and p.startswith("decoder"))
        else:
            (h,), _ = rec.last(f"{p}.ffn.fc2")
            s["ffnHidden"] = flat(h[0])
        s.update(delta=flat(delta), sum=flat(total), output=flat(output))
        return s

    def stack_of(sname, ids, embed_name):
        stack = stacks[sname]
        _, tok = rec.last(embed_name)
        tok = tok[0] * ref.emb_scale
        pos = positions[sname]
        st = {"length": len(ids), "tokenEmbedding": flat(tok), "positional": flat(pos), "input": flat(tok + pos),
              "layers": []}
        for i, layer in enumerate(stack.layers):
            p = f"{sname}.{i}"
            b = {"selfAttention": sub(p, "ln1", f"{p}.self_attn", "attention", f"{p}.self_attn")}
            if sname == "decoder":
                b["hasCross"] = True
                b["crossAttention"] = sub(p, "ln2", f"{p}.cross_attn", "attention", f"{p}.cross_attn", cross=True)
                b["ffn"] = sub(p, "ln3", f"{p}.ffn", "ffn")
            else:
                b["hasCross"] = False
                b["ffn"] = sub(p, "ln2", f"{p}.ffn", "ffn")
            st["layers"].append(b)
        st["hasFinalNorm"] = stack.final_ln is not None
        if stack.final_ln is not None:
            st["finalNorm"] = norm_of(rec, f"{sname}.final_ln")
        return st

    # In post-LN the branch input of a self-attention equals the layer's input; the
    # derived x above (sum - delta) is checked against the hooked layer input here.
    if not pre:
        for sname in stacks:
            for i in range(len(stacks[sname].layers)):
                (x_in, *_), _ = rec.last(f"{sname}.{i}")
                _, a = rec.last(f"{sname}.{i}.self_attn")
                (total,), _ = rec.last(f"{sname}.{i}.ln1")
                assert (total - a[0] - x_in).abs().max() < 1e-12
    inside = {"rnn": False, "arch": cfg["arch"], "sourceLength": len(source), "target": target,
              "vocabSize": len(cfg["tgt_vocab"]), "logits": flat(out["logits"][0]),
              "dModel": cfg["d_model"], "heads": H, "headDim": cfg["d_model"] // H, "ffnDim": cfg["d_ff"],
              "norm": cfg["norm"], "positionalKind": cfg["pos"], "activation": cfg["activation"], "causal": causal,
              "encoder": stack_of("encoder", source, "src_embed"), "decoder": stack_of("decoder", target, "tgt_embed")}
    return inside


def rnn_inside(ref, cfg, source, target):
    rec = Recorder()
    rec.watch("encoder", ref.encoder)
    rec.watch("bridge", ref.bridge)
    rec.watch("cell", ref.decoder.cell)
    rec.watch("attn", ref.attn)
    rec.watch("out", ref.out)
    with torch.no_grad():
        logits, alpha = ref(torch.tensor([source]), torch.tensor([target]), torch.tensor([len(source)]))
    rec.close()
    _, h = rec.last("encoder")
    (c,), _ = rec.last("bridge")
    states = torch.stack([o for _, o in rec.calls["cell"]], 1)[0]
    (feats,), _ = rec.last("out")
    H2 = 2 * cfg["enc_hidden"]
    none = cfg["attention"] == "none"
    scores = torch.zeros(0) if none else torch.stack([o for _, o in rec.calls["attn"]], 1)[0]
    return {"rnn": True, "arch": "rnn", "sourceLength": len(source), "target": target,
            "vocabSize": len(cfg["tgt_vocab"]), "logits": flat(logits[0]),
            "attention": cfg["attention"], "encoderWidth": H2, "decoderWidth": cfg["dec_hidden"],
            "encoderStates": flat(h[0]), "contextVector": flat(c[0]), "decoderStates": flat(states),
            "scores": flat(scores), "weights": [] if none else flat(alpha[0]), "context": flat(feats[0, :, :H2])}


def main():
    names = sorted(f[:-len(".json")] for f in os.listdir(FIXTURES)
                   if f.endswith(".json") and not f.endswith(".inside.json") and f != "shipped_models.json")
    for name in names:
        with open(os.path.join(FIXTURES, name + ".json")) as f:
            fx = json.load(f)
        cfg, sd = load_model_file(os.path.join(FIXTURES, fx["model"]))
        ref = build_model(cfg).double().eval()
        ref.load_state_dict({k: v.double() for k, v in sd.items()})
        source, target = fx["sources"][0], fx["targets"][0]
        text = "".join(cfg["src_vocab"][i] for i in source)
        if cfg["arch"] == "rnn":
            inside, tokens = rnn_inside(ref, cfg, source, target), target[1:]
        else:
            inside = transformer_inside(ref, cfg, source, target)
            tokens = target[1:] if cfg["arch"] == "transformer" else target
        out = {"model": fx["model"], "tolerance": 1e-4, "source": text, "tokens": tokens, "inside": inside}
        with open(os.path.join(FIXTURES, name + ".inside.json"), "w") as f:
            json.dump(out, f, separators=(",", ":"))
            f.write("\n")
        print(f"{name:36s} inside: source {text!r}, {len(tokens)} tokens")


if __name__ == "__main__":
    main()
