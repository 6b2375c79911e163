"""PyTorch eager decoding with a KV cache, timed, for bench/compare-runtimes.mjs.

    /usr/bin/python3 bench/torch_decode.py MODEL.safetensors < request.json > reply.json

request: {"strategy": "greedy" | "beam", "beam": K, "max_len": N, "warmup": W,
          "specials": {"pad", "unk", "bos", "eos", "mask"}, "sources": [[ids], ...]}
reply:   {"ms": total decode time of all sources, "torch": version, "results": [{"tokens": [...], "score": s}, ...]}

The modules are bench/export_onnx.py's (the graphs exported to ONNX, run
eagerly); the search is the one in compare-runtimes.mjs, which follows
src/ar_search.cpp. One thread; the first W sources are decoded once untimed
first (allocator and dispatch warm-up). Only the decode loop is timed, so
interpreter start and model load are not counted.
"""

import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_onnx import empty_cache, load  # noqa: E402


def search(step, greedy, beam, max_len, sp):
    """One source: src/ar_search.cpp's greedy/beam search with length norm
    "average", n-best 1, no prefix, min length 0. step(fed, t, origin) -> logits [k,V].
    Returns (tokens without EOS, score)."""
    k = 1 if greedy else beam
    want = 1 if greedy else 2 * beam  # per row: beam takes 2k so finishing hypotheses do not shrink the beam
    never = [sp["pad"], sp["unk"], sp["bos"], sp["mask"]]
    eos = sp["eos"]
    live = [(0.0, [], 0)]  # (log-probability, tokens, id); the root holds BOS only
    origin, finished, next_id = [0], [], 1
    for t in range(max_len):
        lp = torch.log_softmax(step([h[1][-1] if h[1] else sp["bos"] for h in live], t, origin), -1)
        if t + 1 >= max_len:  # the last position can only end
            lp = torch.full_like(lp, float("-inf")).index_copy(1, torch.tensor([eos]), lp[:, eos:eos + 1])
        else:
            lp[:, never] = float("-inf")
        top, tok = lp.topk(want, -1)
        pool = sorted(((live[r][0] + p, r, v) for r in range(len(live))
                       for p, v in zip(top[r].tolist(), tok[r].tolist()) if p != float("-inf")),
                      key=lambda c: (-c[0], c[1], c[2]))
        next_live, origin, taken = [], [], 0
        for rank, (logprob, r, v) in enumerate(pool):
            if (rank < k) if v == eos else (taken < k):
                tokens = live[r][1] + [v]
                if v == eos:
                    finished.append((logprob / len(tokens), logprob, next_id, tokens))
                else:
                    next_live.append((logprob, tokens, next_id))
                    origin.append(r)
                    taken += 1
                next_id += 1
        live = next_live
        best = max(finished, key=lambda f: (f[0], f[1], -f[2])) if finished else None
        # Done when nothing is live or no live hypothesis can still beat the best finished one.
        if not live or (best and max(min(h[0], 0.0) / max_len for h in live) <= best[0]):
            break
    return best[3][:-1], best[0]


def main():
    enc, dec, cfg = load(sys.argv[1])
    req = json.load(sys.stdin)
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)

    def decode(ids):
        _, ck, cv = enc(torch.tensor([ids]))
        cache = [empty_cache(cfg), empty_cache(cfg)]

        def step(fed, t, origin):
            logits, cache[0], cache[1] = dec(torch.tensor(fed), torch.tensor(t), torch.tensor(origin), *cache, ck, cv)
            return logits

        return search(step, req["strategy"] == "greedy", req["beam"], req["max_len"], req["specials"])

    with torch.inference_mode():
        for ids in req["sources"][:req["warmup"]]:
            decode(ids)
        t0 = time.perf_counter()
        results = [decode(ids) for ids in req["sources"]]
        ms = (time.perf_counter() - t0) * 1000
    json.dump({"ms": ms, "torch": torch.__version__, "results": [{"tokens": t, "score": s} for t, s in results]}, sys.stdout)


if __name__ == "__main__":
    main()
