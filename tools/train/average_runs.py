#!/usr/bin/python3
"""Averages the weights of runs of one model (train.py output folders: same shape, same
tokenizer) into a new run folder that export_gguf.py --run reads: the mean of each parameter.
Runs that continue one another are points on one training path; their mean sits in the middle of
the valley they wander in, which often generalises better than any one of them (weight
averaging, as in stochastic weight averaging).
  tools/train/average_runs.py --runs RUN_A RUN_B [...] --out DIR"""
import argparse
import filecmp
import os
import shutil

import torch


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", nargs="+", required=True, help="train.py output folders")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if len(args.runs) < 2:
        ap.error("--runs needs two runs or more")
    cks = [torch.load(os.path.join(r, "ckpt.pt"), map_location="cpu") for r in args.runs]
    toks = [os.path.join(r, "tokenizer.json") for r in args.runs]
    for r, ck, tok in zip(args.runs[1:], cks[1:], toks[1:]):
        if ck["config"] != cks[0]["config"]:
            raise SystemExit(f"average_runs: {r}: config differs from {args.runs[0]}'s")
        if not filecmp.cmp(tok, toks[0], shallow=False):
            raise SystemExit(f"average_runs: {tok}: tokenizer differs from {toks[0]}")
    model = {k: sum(ck["model"][k] for ck in cks) / len(cks) for k in cks[0]["model"]}
    os.makedirs(args.out, exist_ok=True)
    torch.save({"config": cks[0]["config"], "model": model, "averaged": args.runs},
               os.path.join(args.out, "ckpt.pt"))
    shutil.copy(toks[0], os.path.join(args.out, "tokenizer.json"))
    print(f"average_runs: {len(cks)} runs -> {args.out}")


if __name__ == "__main__":
    main()
