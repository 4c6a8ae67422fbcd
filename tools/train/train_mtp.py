#!/usr/bin/python3
"""Train the multi-token-prediction (MTP, NextN) layer of the bundled KJV model on its frozen
trunk, for speculative decoding (`kazeia run --spec mtp`).

    nice -n 19 env OPENBLAS_NUM_THREADS=1 /usr/bin/python3 tools/train/train_mtp.py \
        --model models/kazeia-kjv-q8_0.gguf --out /tmp/kazeia-kjv-mtp

The trunk is read from the GGUF file, i.e. the weights the engine runs (Q8_0 dequantized), and
never changes, so adding the layer (export_gguf.py --base FILE --mtp OUT/mtp.pt) leaves the
trunk's bytes and everything measured on them as they were. Data: train.py's KJV corpus and
held-out split, tokenized with the file's own tokenizer. In a window x_0..x_T, MTP row i sees
x_i and the trunk's final-normed hidden state at i-1 and learns x_{i+1}: token t+2 from
(h_t, embed(x_{t+1})). The loss is the cross-entropy of rows 1..T-1 (row 0 has no hidden state;
it still serves as attention context, as in the engine's prompt). Stops after --max-steps or
--time-budget CPU seconds, whichever comes first. Writes mtp.pt, loss.csv, train.log,
summary.json, heldout.txt.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_gguf import load_gguf  # noqa: E402
from model import NextN, previous_hidden  # noqa: E402
from train import load_corpus, open_log  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="models/kazeia-kjv-q8_0.gguf", help="the trunk (GGUF)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--ctx", type=int, default=256)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--min-lr-frac", type=float, default=0.1)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--weight-decay", type=float, default=0.1)
    ap.add_argument("--max-steps", type=int, default=1500)
    # CPU seconds of this process, not wall time: on a shared machine the run then does the same
    # work however busy the machine is (one thread: CPU time ~ work done).
    ap.add_argument("--time-budget", type=float, default=600, help="CPU seconds of training")
    ap.add_argument("--eval-every", type=int, default=25)
    ap.add_argument("--save-every", type=int, default=100, help="steps between mtp.pt writes")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    log = open_log(args.out)

    log(f"args: {vars(args)}")
    trunk, existing, tok = load_gguf(args.model)
    if existing is not None:
        raise SystemExit(f"{args.model} already has an MTP layer; train on the file without it")
    for p in trunk.parameters():
        p.requires_grad_(False)
    cfg = trunk.c
    train_text, held_text = load_corpus()
    with open(os.path.join(args.out, "heldout.txt"), "w") as f:
        f.write(held_text)
    train_t = torch.tensor(tok.encode(train_text), dtype=torch.long)
    held_t = torch.tensor(tok.encode(held_text), dtype=torch.long)
    log(f"tokens: train {len(train_t)}, held-out {len(held_t)}")

    nextn = NextN(cfg)
    log(f"mtp layer: {sum(p.numel() for p in nextn.parameters())} parameters")
    decay = [p for p in nextn.parameters() if p.dim() == 2]
    no_decay = [p for p in nextn.parameters() if p.dim() != 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95), eps=1e-8)
    gen = torch.Generator().manual_seed(args.seed)

    def mtp_logits(x):
        with torch.no_grad():  # the frozen trunk
            h = trunk.hidden(x)
        return nextn(trunk.embed, x, previous_hidden(h))[0]

    def loss_of(x):  # rows 1..T-1 predict x[2..T]
        lg = mtp_logits(x[:, :-1])[:, 1:]
        return F.cross_entropy(lg.reshape(-1, cfg.n_vocab), x[:, 2:].reshape(-1))

    # Fixed held-out windows, with the trunk's own next-token choice at each position: the MTP
    # row's arg-max agreeing with it is what greedy drafting needs (a proxy for acceptance).
    n_eval = min(8, (len(held_t) - 1) // args.ctx)
    evw = torch.stack([held_t[i * args.ctx:(i + 1) * args.ctx + 1] for i in range(n_eval)])
    with torch.no_grad():
        trunk_next = trunk(evw[:, :-1]).argmax(-1)[:, 1:]

    def evaluate():
        nextn.eval()
        with torch.no_grad():
            lg = mtp_logits(evw[:, :-1])[:, 1:]
            loss = F.cross_entropy(lg.reshape(-1, cfg.n_vocab), evw[:, 2:].reshape(-1)).item()
            top = lg.argmax(-1)
            acc = (top == evw[:, 2:]).float().mean().item()
            agree = (top == trunk_next).float().mean().item()
        nextn.train()
        return loss, acc, agree

    def save():  # also during the run, so an interrupted one still exports
        torch.save({"config": cfg.to_dict(), "nextn": nextn.state_dict(), "trunk": args.model,
                    "step": step, "tokens": seen, "cpu_seconds": time.process_time() - cpu0,
                    "seed": args.seed}, os.path.join(args.out, "mtp.pt"))

    curve = open(os.path.join(args.out, "loss.csv"), "w")
    curve.write("step,tokens,cpu_seconds,lr,train_loss,heldout_loss,heldout_top1,"
                "trunk_agreement\n")
    t0, cpu0 = time.time(), time.process_time()
    step, ema, seen = 0, None, 0
    while True:
        elapsed = time.process_time() - cpu0
        progress = max(step / args.max_steps, elapsed / args.time_budget)
        if progress >= 1.0:
            break
        if step < args.warmup:
            lr = args.lr * (step + 1) / args.warmup
        else:
            lr = args.lr * (args.min_lr_frac + (1 - args.min_lr_frac) * 0.5 *
                            (1 + math.cos(math.pi * min(1.0, progress))))
        for gr in opt.param_groups:
            gr["lr"] = lr
        starts = torch.randint(0, len(train_t) - args.ctx - 1, (args.batch,), generator=gen)
        x = torch.stack([train_t[s:s + args.ctx + 1] for s in starts.tolist()])
        loss = loss_of(x)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(nextn.parameters(), 1.0)
        opt.step()
        step += 1
        seen += args.batch * args.ctx
        ema = loss.item() if ema is None else 0.9 * ema + 0.1 * loss.item()
        ev = ""
        if step % args.eval_every == 0 or step == 1:
            hl, acc, agree = evaluate()
            log(f"step {step} loss {loss.item():.4f} ema {ema:.4f} held-out {hl:.4f} "
                f"top-1 {acc:.3f} agrees with trunk {agree:.3f} lr {lr:.2e} "
                f"{time.process_time() - cpu0:.0f} CPU s")
            ev = f"{hl:.5f},{acc:.4f},{agree:.4f}"
        curve.write(f"{step},{seen},{time.process_time() - cpu0:.1f},{lr:.6g},{loss.item():.5f},"
                    f"{ev or ',,'}\n")
        curve.flush()
        if step % args.save_every == 0:
            save()
    hl, acc, agree = evaluate()
    el, wall = time.process_time() - cpu0, time.time() - t0
    log(f"done: {step} steps, {seen} tokens, {el:.0f} CPU s ({wall:.0f} s wall), "
        f"final train ema {ema:.4f}, "
        f"held-out {hl:.4f}, top-1 {acc:.3f}, agrees with trunk {agree:.3f}")
    curve.write(f"{step},{seen},{el:.1f},0,{ema:.5f},{hl:.5f},{acc:.4f},{agree:.4f}\n")
    curve.close()
    save()
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump({"steps": step, "tokens": seen, "cpu_seconds": el, "wall_seconds": wall,
                   "train_loss_ema": ema,
                   "heldout_loss": hl, "heldout_top1": acc, "trunk_agreement": agree,
                   "params": sum(p.numel() for p in nextn.parameters()), "args": vars(args)},
                  f, indent=1)


if __name__ == "__main__":
    main()
