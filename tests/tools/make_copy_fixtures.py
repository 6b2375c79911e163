"""Build the copy mechanism's PyTorch parity fixtures in tests/fixtures/ (copy_*; see
tests/fixtures/README.md, "The copy mechanism").

    /usr/bin/python3 -m tests.tools.make_copy_fixtures       (from the repository root)

Small random-weight copy models (pointer-generator, docs/model-format.md "The copy
mechanism"): a Transformer and an RNN reading characters, and a Transformer reading
words whose sources hold words in no vocabulary. Each is exported to
tests/fixtures/<name>.safetensors, with tests/fixtures/<name>.json holding the
inputs and the reference numbers (the logits, the copy attention, p_gen and the
mixed log-probabilities over the extended vocabulary at every target position of a
padded batch of three; the forced scores of three targets; a greedy decode) and
tests/fixtures/<name>.inside.json the copy fields of Model::inspect. References are
computed in float64 from the stored weights. Deterministic; writes only copy_* files.
"""

import json
import os

import torch

from models.train.export import export, load_model_file
from models.train.seq2seq_torch import build_model, output_log_probs, source_copy_ids
from tests.tools.make_fixtures import GREEDY_MAX_LENGTH, GREEDY_MIN_LENGTH, OUT_DIR, pad_batch, r

PROVENANCE = "random weights, copy mechanism parity fixture from tests/tools/make_copy_fixtures.py"

# Characters: the target vocabulary holds four of the source's letters and lacks the
# others, so that a source mixes tokens both share with copy-only ones.
CHAR_SRC = ["<pad>", "<unk>", "A", "B", "C", "D", "E", "F", "G", "'", "-", "."]
CHAR_TGT = ["<pad>", "<unk>", "<s>", "</s>", "A", "B", "C", "D", "AA", "AH", "K", "S", "T"]
CHAR_SOURCES = ["ABEFFAC", "G-DA", "CAB'EGGE."]

# Words: the notes' chatbot. "kuroro" and "zed" are in no vocabulary (the encoder reads
# them as <unk>); "bob" is in both; "my" is a target word too.
WORD_SRC = ["<pad>", "<unk>", "my", "name", "is", "i", "am", "bob", "call", "me"]
WORD_TGT = ["<pad>", "<unk>", "<s>", "</s>", "hello", "nice", "to", "meet", "you", "bob", "my"]
WORD_SOURCES = ["my name is kuroro", "i am bob", "call me zed zed please"]

SPECIALS_SRC = {"pad": 0, "unk": 1}
SPECIALS_TGT = {"pad": 0, "unk": 1, "bos": 2, "eos": 3}

TRANSFORMER = {"d_model": 16, "n_heads": 4, "d_ff": 32, "enc_layers": 2, "dec_layers": 2, "ln_eps": 1e-5,
               "max_pos": 12, "max_target_len": 8}
RNN = {"arch": "rnn", "cell": "gru", "emb_dim": 12, "enc_hidden": 8, "dec_hidden": 16, "enc_layers": 1,
       "attention": "additive", "attn_dim": 8, "max_pos": 12}

# name -> (config, source texts, the copy gate's bias: negative leans towards copying,
# so that the greedy decodes copy tokens the vocabulary lacks, the random seed: the
# word model's chosen among 3002..3013 for a greedy decode that copies "kuroro")
FIXTURES = {
    "copy_ar_pre_sin_tied_relu": (dict(TRANSFORMER, arch="transformer", norm="pre", pos="sinusoidal", tie_output=True,
                                       activation="relu", scale_embedding=True, src_vocab=CHAR_SRC, tgt_vocab=CHAR_TGT,
                                       src_case="upper"), CHAR_SOURCES, -1.0, 3000),
    "copy_rnn_additive": (dict(RNN, src_vocab=CHAR_SRC, tgt_vocab=CHAR_TGT, src_case="upper"), CHAR_SOURCES, -1.0, 3001),
    "copy_words_post_learned_untied": (dict(TRANSFORMER, arch="transformer", norm="post", pos="learned",
                                            tie_output=False, activation="gelu", scale_embedding=True,
                                            src_vocab=WORD_SRC, tgt_vocab=WORD_TGT, src_case="lower",
                                            src_tokens="words"), WORD_SOURCES, -2.0, 3009),
}

TGT_LENS = [5, 6, 4]


def read_source(text, cfg):
    """The engine's reading of a source (tokenize_source with its texts): -> (ids, texts)."""
    vocab = {t: i for i, t in enumerate(cfg["src_vocab"])}
    text = text.upper() if cfg["src_case"] == "upper" else text.lower() if cfg["src_case"] == "lower" else text
    toks = text.split() if cfg.get("src_tokens") == "words" else list(text.strip())
    return [vocab.get(t, cfg["src_specials"]["unk"]) for t in toks], toks


def randomize(model, gen, gate_bias):
    """As make_fixtures.randomize, for both architectures: peaked attention, no zero bias."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            n = torch.randn(p.shape, generator=gen, dtype=torch.float64)
            if ".ln" in name or "final_ln" in name:
                v = 1.0 + 0.25 * n if name.endswith("weight") else 0.15 * n
            elif "embed" in name or name.endswith("pos.weight"):
                v = 0.5 * n
            elif name.startswith("attn.v"):
                v = 1.2 * n
            elif name.endswith("weight") or "weight_" in name:
                v = 0.3 * n
            else:
                v = 0.2 * n
            p.copy_(v.to(p.dtype))
        model.copy_gate.bias.fill_(gate_bias)


def forward(ref, cfg, src_ids, tgt):
    """One padded batch through the float64 reference: -> dict of the forward and the
    mixed log-probabilities over each source's extended vocabulary (padded to the widest)."""
    src, spm = pad_batch(src_ids, cfg["src_specials"]["pad"])
    tgt_ids, tpm = pad_batch(tgt, cfg["tgt_specials"]["pad"])
    if cfg["arch"] == "rnn":
        out = ref.forward_copy(src, tgt_ids, src_pad_mask=spm)
    else:
        out = ref(src, tgt_ids, spm, tpm)
    return out


def build(name, cfg, sources, gate_bias, seed):
    cfg = dict(cfg, src_specials=SPECIALS_SRC, tgt_specials=SPECIALS_TGT, copy=True, name=f"fixture {name}",
               description=PROVENANCE)
    gen = torch.Generator().manual_seed(seed)
    model = build_model(cfg)
    randomize(model, gen, gate_bias)
    path = os.path.join(OUT_DIR, name + ".safetensors")
    export(model, cfg, path, "f32")
    cfg, sd = load_model_file(path)
    ref = build_model(cfg).double().eval()
    ref.load_state_dict({k: v.double() for k, v in sd.items()})

    Vt = len(cfg["tgt_vocab"])
    sp = cfg["tgt_specials"]
    read = [read_source(s, cfg) for s in sources]
    src_ids = [ids for ids, _ in read]
    maps = [source_copy_ids(texts, cfg["tgt_vocab"], sp) for _, texts in read]
    n_extra = max(len(extra) for _, extra in maps)
    # Decoder inputs: <s>, then tokens of the vocabulary and of each source's copy-only ones.
    targets = []
    for b, n in enumerate(TGT_LENS):
        pool = [i for i in range(Vt) if i not in sp.values()] + list(range(Vt, Vt + len(maps[b][1])))
        idx = torch.randint(len(pool), (n - 1,), generator=gen).tolist()
        targets.append([sp["bos"]] + [pool[i] for i in idx])

    copy_ids = pad_batch([ids for ids, _ in maps], 0)[0]
    with torch.no_grad():
        out = forward(ref, cfg, src_ids, targets)
        lp = output_log_probs(out, copy_ids, n_extra)
        # Each example alone gives the same numbers (padding changes nothing).
        for b in range(len(sources)):
            one = forward(ref, cfg, [src_ids[b]], [targets[b]])
            one_lp = output_log_probs(one, torch.tensor([maps[b][0]]), len(maps[b][1]))
            W = Vt + len(maps[b][1])
            d = (one_lp[0] - lp[b, :len(targets[b]), :W]).abs().max().item()
            assert d < 1e-9, f"{name}: padded vs unpadded log-probabilities differ by {d}"
    sl, tl = [len(s) for s in src_ids], [len(t) for t in targets]
    B = len(sources)
    widths = [Vt + len(extra) for _, extra in maps]
    fx = {"model": name + ".safetensors", "tolerance": 1e-4, "sources": sources, "source_ids": src_ids,
          "copy_ids": [ids for ids, _ in maps], "copy_texts": [extra for _, extra in maps], "targets": targets,
          "logits": [r(out["logits"][b, :tl[b]].tolist()) for b in range(B)],
          "copy_attn": [r(out["copy_attn"][b, :tl[b], :sl[b]].tolist()) for b in range(B)],
          "p_gen": [r(torch.sigmoid(out["gate_logits"][b, :tl[b]]).tolist()) for b in range(B)],
          "log_probs": [r(lp[b, :tl[b], :widths[b]].tolist()) for b in range(B)]}

    # Forced scores: each target after its <s>, then </s>; the texts as a user types them.
    vocab_of = [cfg["tgt_vocab"] + extra for _, extra in maps]
    fx["forced"] = {"targets": [" ".join(vocab_of[b][i] for i in t[1:]) for b, t in enumerate(targets)],
                    "token_logprobs": [r([lp[b, i, y].item() for i, y in enumerate(t[1:] + [sp["eos"]])])
                                       for b, t in enumerate(targets)],
                    "p_gen": fx["p_gen"]}

    # Greedy decodes with the engine's rules (src/ar_search.cpp): never pad, unk or bos;
    # no EOS before GREEDY_MIN_LENGTH tokens; EOS forced at the last position.
    fx["greedy"] = {"max_length": GREEDY_MAX_LENGTH, "min_length": GREEDY_MIN_LENGTH, "tokens": [], "texts": []}
    margins = []
    for b in range(B):
        tokens = []
        with torch.no_grad():
            for t in range(GREEDY_MAX_LENGTH):
                o = forward(ref, cfg, [src_ids[b]], [[sp["bos"]] + tokens])
                step = output_log_probs(o, torch.tensor([maps[b][0]]), len(maps[b][1]))[0, -1]
                if t + 1 >= GREEDY_MAX_LENGTH:
                    tok = sp["eos"]
                else:
                    step[[sp["pad"], sp["unk"], sp["bos"]]] = float("-inf")
                    if t < GREEDY_MIN_LENGTH:
                        step[sp["eos"]] = float("-inf")
                    top = step.topk(2)
                    margins.append((top.values[0] - top.values[1]).item())
                    tok = int(top.indices[0])
                tokens.append(tok)
                if tok == sp["eos"]:
                    break
        fx["greedy"]["tokens"].append(tokens)
        fx["greedy"]["texts"].append(" ".join(vocab_of[b][i] for i in tokens[:-1]))
    copied = sum(1 for b in range(B) for i in fx["greedy"]["tokens"][b] if i >= Vt)
    assert copied > 0, f"{name}: no greedy decode copies a token the vocabulary lacks"
    with open(os.path.join(OUT_DIR, name + ".json"), "w") as f:
        json.dump(fx, f, separators=(",", ":"), ensure_ascii=False)
        f.write("\n")

    # The inside of one pass (Model::inspect): the first source and target's copy fields,
    # as the --trace JSON writes StepInside.
    T, S = tl[0], sl[0]
    D = out["logits"].shape[-1]
    with torch.no_grad():
        one = forward(ref, cfg, [src_ids[0]], [targets[0]])
        if cfg["arch"] == "rnn":
            memory, spm, _ = ref.encode(torch.tensor([src_ids[0]]))
            ctx = torch.bmm(one["copy_attn"], memory)
        else:
            memory, _, _ = ref.encode(torch.tensor([src_ids[0]]))
            ctx = torch.matmul(one["copy_attn"], memory)
    inside = {"arch": cfg["arch"], "sourceLength": S, "target": targets[0], "vocabSize": D, "copy": True,
              "logits": r(one["logits"][0].flatten().tolist()),
              "outputVocabSize": widths[0], "copyIds": maps[0][0],
              "copyTexts": [vocab_of[0][i] for i in maps[0][0]],
              "copyAttention": r(one["copy_attn"][0].flatten().tolist()),
              "copyContext": r(ctx[0].flatten().tolist()),
              "pGen": r(torch.sigmoid(one["gate_logits"][0]).tolist()),
              "logProbs": r(lp[0, :T, :widths[0]].flatten().tolist())}
    with open(os.path.join(OUT_DIR, name + ".inside.json"), "w") as f:
        json.dump({"model": name + ".safetensors", "tolerance": 1e-4, "source": sources[0], "tokens": targets[0][1:],
                   "inside": inside}, f, separators=(",", ":"), ensure_ascii=False)
        f.write("\n")

    pg = torch.sigmoid(torch.cat([out["gate_logits"][b, :tl[b]] for b in range(B)]))
    maxp = torch.cat([out["copy_attn"][b, :tl[b], :sl[b]].max(-1).values for b in range(B)])
    print(f"{name:34s} p_gen {pg.min():.2f}..{pg.max():.2f}  copy attention max-prob mean {maxp.mean():.3f}"
          f"  greedy: {fx['greedy']['texts']} ({copied} copy-only tokens; smallest top-2 margin {min(margins):.4f})"
          f"  file {os.path.getsize(path)} B")


def main():
    torch.set_num_threads(2)
    for name, (cfg, sources, gate_bias, seed) in FIXTURES.items():
        build(name, cfg, sources, gate_bias, seed)


if __name__ == "__main__":
    main()
