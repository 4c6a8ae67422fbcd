#!/usr/bin/python3
"""Write the PyTorch side of the parity test (tests/data/kjv_parity.json).

Takes the first --n tokens of the held-out text and computes, in float64, the per-token
log-probabilities log p(x[t+1] | x[0..t]) of the PyTorch model whose weights are exactly those
the engine reads from the --type file (quantized matrices dequantized, see
export_gguf.engine_view). tests/model/parity_test.cpp runs the engine on the same ids and
compares.

    /usr/bin/python3 tools/train/make_parity_data.py --run RUN --type q8_0 \
        --model-file models/kazeia-kjv-q8_0.gguf --out tests/data/kjv_parity.json
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_gguf import engine_view, load_run  # noqa: E402


def logprobs(model, ids: list[int], recurrent: bool = False) -> list[float]:
    m = model.double()
    x = torch.tensor([ids])
    with torch.no_grad():
        lp = torch.log_softmax(m(x, recurrent=recurrent)[0], -1)
    return [lp[t, ids[t + 1]].item() for t in range(len(ids) - 1)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True)
    ap.add_argument("--type", default="q8_0")
    ap.add_argument("--random", type=int, default=None)
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--model-file", default="models/kazeia-kjv-q8_0.gguf",
                    help="path recorded in the JSON (relative to the repository root)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    model, tok = load_run(args.run, args.random)
    with open(os.path.join(args.run, "heldout.txt")) as f:
        text = f.read()
    ids = tok.encode(text)[:args.n]
    m = engine_view(model, args.type)
    lp = logprobs(m, ids)
    lp_rec = logprobs(m, ids, recurrent=True)
    diff = max(abs(a - b) for a, b in zip(lp, lp_rec))
    print(f"{len(ids)} tokens; chunked vs recurrent DeltaNet: max |diff| {diff:.3g}; "
          f"mean log-prob {sum(lp) / len(lp):.4f}")
    with open(args.out, "w") as f:
        json.dump({"model": args.model_file, "weights": args.type,
                   "note": "PyTorch (tools/train/model.py, float64) on the weights the engine "
                           "reads from the model file; logprobs[t] = log p(ids[t+1] | ids[0..t])",
                   "ids": ids, "logprobs": [round(v, 7) for v in lp]}, f)
        f.write("\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
