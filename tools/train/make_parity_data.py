#!/usr/bin/python3
"""Write the PyTorch side of the parity test (tests/data/kjv_parity.json).

Takes the first --n tokens of the held-out text and computes, in float64, the per-token
log-probabilities log p(x[t+1] | x[0..t]) of the PyTorch model whose weights are exactly those
the engine reads from the --type file (quantized matrices dequantized, see
export_gguf.engine_view). tests/model/parity_test.cpp runs the engine on the same ids and
compares.

    /usr/bin/python3 tools/train/make_parity_data.py --run RUN --type q8_0 \
        --model-file models/kazeia-kjv-q8_0.gguf --out tests/data/kjv_parity.json

With --mtp it writes the MTP layer's side (tests/data/kjv_parity_mtp.json), reading the weights
from the model file itself (export_gguf.load_gguf): the layer over the held-out ids, row i fed
ids[i] and the trunk's hidden state of i-1 (zeros at 0), log p(ids[i+1]); then --draft steps
fed the following tokens of the text, step 0 with the trunk's last hidden state and each later
step with the layer's own hidden state of the step before, log p(next token of the text).

    /usr/bin/python3 tools/train/make_parity_data.py --mtp --heldout RUN/heldout.txt \
        --model-file models/kazeia-kjv-q8_0.gguf --out tests/data/kjv_parity_mtp.json

The chat model's (tests/data/chat_parity_mtp.json) is the same on its held-out dialogues
(train_mtp.py --corpus chat writes them to OUT/heldout.txt), split at special tokens as the
engine's tokenizer does; `assistant_rows` lists the rows whose target is an assistant token, the
only ones the layer was trained on.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chat_corpus import encode_weighted  # noqa: E402
from export_gguf import engine_view, load_gguf, load_run  # noqa: E402
from model import previous_hidden  # noqa: E402


def logprobs(model, ids: list[int], recurrent: bool = False) -> list[float]:
    m = model.double()
    x = torch.tensor([ids])
    with torch.no_grad():
        lp = torch.log_softmax(m(x, recurrent=recurrent)[0], -1)
    return [lp[t, ids[t + 1]].item() for t in range(len(ids) - 1)]


def mtp_logprobs(trunk, nextn, ids: list[int], draft: list[int]) -> tuple[list[float], list[float]]:
    """(prefill, draft) log-probabilities of the MTP layer, float64 (the module docstring)."""
    x = torch.tensor([ids])
    with torch.no_grad():
        h = trunk.hidden(x)
        logits, _ = nextn(trunk.embed, x, previous_hidden(h))
        lp = torch.log_softmax(logits[0], -1)
        prefill = [lp[i, ids[i + 1]].item() for i in range(len(ids) - 1)]
        # No K/V cache here: each step reruns the layer on everything so far (causal, so the
        # earlier rows are unchanged), its own hidden state appended to the paired states.
        paired, steps = previous_hidden(h), []
        last = h[:, -1:]
        for j in range(len(draft) - 1):
            seq = torch.tensor([ids + draft[:j + 1]])
            paired = torch.cat([paired, last], 1)
            logits, own = nextn(trunk.embed, seq, paired)
            steps.append(torch.log_softmax(logits[0, -1], -1)[draft[j + 1]].item())
            last = own[:, -1:]
    return prefill, steps


def write_mtp(args) -> None:
    trunk, nextn, tok = load_gguf(args.model_file, torch.float64)
    if nextn is None:
        raise SystemExit(f"{args.model_file} has no MTP layer")
    with open(args.heldout) as f:
        text_ids, weights = encode_weighted(tok, f.read())  # chat text: split at special tokens
    ids, draft = text_ids[:args.n], text_ids[args.n:args.n + args.draft + 1]
    prefill, steps = mtp_logprobs(trunk, nextn, ids, draft)
    print(f"{len(ids)} tokens; mean MTP log-prob {sum(prefill) / len(prefill):.4f}; "
          f"draft {[round(v, 3) for v in steps]}")
    extra = {}
    if any(weights):  # chat: the rows whose target is an assistant token, those it learnt
        extra["assistant_rows"] = [i for i in range(len(ids) - 1) if weights[i + 1]]
    with open(args.out, "w") as f:
        json.dump({"model": args.model_file,
                   "note": "PyTorch (tools/train/model.py NextN, float64) on the weights the "
                           "engine reads from the model file; logprobs[i] = log p(ids[i+1]) of "
                           "the MTP row fed ids[i] and the trunk's hidden state of i-1 (zeros at "
                           "0); "
                           "draft_logprobs[j] = log p(draft_ids[j+1]) at draft step j, fed "
                           "draft_ids[j] and the trunk's last hidden state (j = 0) or the MTP "
                           "layer's own of step j-1",
                   "ids": ids, "logprobs": [round(v, 7) for v in prefill],
                   "draft_ids": draft, "draft_logprobs": [round(v, 7) for v in steps], **extra},
                  f)
        f.write("\n")
    print(f"wrote {args.out}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run")
    ap.add_argument("--type", default="q8_0")
    ap.add_argument("--random", type=int, default=None)
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--model-file", default="models/kazeia-kjv-q8_0.gguf",
                    help="path recorded in the JSON (relative to the repository root); with "
                         "--mtp also the weights read")
    ap.add_argument("--mtp", action="store_true", help="the MTP layer's parity data")
    ap.add_argument("--heldout", help="with --mtp: the held-out text (heldout.txt)")
    ap.add_argument("--draft", type=int, default=4, help="with --mtp: draft steps")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if args.mtp:
        if not args.heldout:
            ap.error("--mtp needs --heldout")
        write_mtp(args)
        return
    if not args.run:
        ap.error("--run is required (or --mtp)")
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
