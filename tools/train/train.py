#!/usr/bin/python3
"""Train the bundled Kazeia default model: a small qwen35 (Gated DeltaNet + gated attention) on
the King James Bible (Debian package bible-kjv-text, public domain), on CPU.

    nice -n 10 /usr/bin/python3 tools/train/train.py --out /tmp/kjv-train

Steps: dump the corpus with `bible` (package bible-kjv), hold out every 40th chapter, train a
byte-level BPE vocabulary on the training text, then train the model with AdamW on random
256-token windows. Stops after --max-steps or --time-budget seconds, whichever comes first; the
learning-rate schedule follows the larger of the two progress fractions, so it always ends
decayed. Everything is seeded (--seed). Checkpoints (ckpt.pt) are written every few minutes.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import Config, Qwen35  # noqa: E402
from tokenizer import Tokenizer, train_bpe  # noqa: E402

HELDOUT_EVERY = 40  # chapter i is held out iff i % 40 == 20 (30 of 1189 chapters)


def load_corpus() -> tuple[str, str]:
    """Returns (train_text, heldout_text). One chapter = 'Book N' line, blank line, one verse per
    line ('V text'), blank line."""
    raw = subprocess.run(["bible", "-l100000", "Gen1:1-Rev22:21"], check=True,
                         capture_output=True, text=True).stdout
    chapters: list[list[str]] = []
    for line in raw.splitlines():
        s = line.strip()
        if not s:
            continue
        if line.startswith(" "):  # verse: '  12 text'
            chapters[-1].append(s)
        else:  # chapter header: 'Genesis 1'
            chapters.append([s, ""])
    train, held = [], []
    for i, ch in enumerate(chapters):
        (held if i % HELDOUT_EVERY == 20 else train).append("\n".join(ch) + "\n\n")
    return "".join(train), "".join(held)


def prepare(out: str, n_vocab: int, log) -> tuple[Tokenizer, np.ndarray, np.ndarray]:
    os.makedirs(out, exist_ok=True)
    tok_path = os.path.join(out, "tokenizer.json")
    train_text, held_text = load_corpus()
    with open(os.path.join(out, "train.txt"), "w") as f:
        f.write(train_text)
    with open(os.path.join(out, "heldout.txt"), "w") as f:
        f.write(held_text)
    log(f"corpus: train {len(train_text)} chars, held-out {len(held_text)} chars")
    if os.path.exists(tok_path):
        tok = Tokenizer.load(tok_path)
    else:
        t0 = time.time()
        tokens, merges = train_bpe(train_text, n_vocab, log)
        tok = Tokenizer(tokens, merges)
        tok.save(tok_path)
        log(f"bpe: trained {len(merges)} merges in {time.time() - t0:.0f}s")
    tr = np.array(tok.encode(train_text), dtype=np.int32)
    he = np.array(tok.encode(held_text), dtype=np.int32)
    log(f"tokens: train {len(tr)}, held-out {len(he)} ({len(train_text) / len(tr):.2f} chars/token)")
    return tok, tr, he


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--n-vocab", type=int, default=2048)
    ap.add_argument("--ctx", type=int, default=256)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--min-lr-frac", type=float, default=0.1)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--weight-decay", type=float, default=0.1)
    ap.add_argument("--max-steps", type=int, default=3000)
    ap.add_argument("--time-budget", type=float, default=2400, help="seconds of training")
    ap.add_argument("--eval-every", type=int, default=25)
    ap.add_argument("--ckpt-every", type=float, default=180, help="seconds")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    logf = open(os.path.join(args.out, "train.log"), "a")

    def log(msg):
        line = f"[{time.strftime('%H:%M:%S')}] {msg}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()

    log(f"args: {vars(args)}")
    tok, train_ids, held_ids = prepare(args.out, args.n_vocab, log)
    cfg = Config(n_vocab=len(tok.tokens), n_ctx_train=args.ctx)
    model = Qwen35(cfg)
    log(f"model: {cfg.to_dict()}, {model.n_params()} parameters")

    decay, no_decay = [], []
    for n, p in model.named_parameters():
        (decay if p.dim() == 2 and "conv" not in n else no_decay).append(p)
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95), eps=1e-8)
    gen = torch.Generator().manual_seed(args.seed)
    train_t = torch.from_numpy(train_ids).long()
    held_t = torch.from_numpy(held_ids).long()
    # fixed held-out evaluation windows
    n_eval = min(8, (len(held_t) - 1) // args.ctx)
    ev = torch.stack([held_t[i * args.ctx:(i + 1) * args.ctx + 1] for i in range(n_eval)])

    def evaluate():
        model.eval()
        with torch.no_grad():
            lg = model(ev[:, :-1])
            l = F.cross_entropy(lg.reshape(-1, cfg.n_vocab), ev[:, 1:].reshape(-1)).item()
        model.train()
        return l

    curve = open(os.path.join(args.out, "loss.csv"), "w")
    curve.write("step,tokens,seconds,lr,train_loss,heldout_loss\n")
    t0 = time.time()
    last_ckpt = t0
    step, ema = 0, None

    def save(tag="ckpt.pt"):
        torch.save({"config": cfg.to_dict(), "model": model.state_dict(), "step": step,
                    "tokens": step * args.batch * args.ctx, "seconds": time.time() - t0,
                    "seed": args.seed}, os.path.join(args.out, tag))

    while True:
        elapsed = time.time() - t0
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
        xb = torch.stack([train_t[s:s + args.ctx + 1] for s in starts.tolist()])
        logits = model(xb[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, cfg.n_vocab), xb[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        ema = loss.item() if ema is None else 0.9 * ema + 0.1 * loss.item()
        hl = ""
        if step % args.eval_every == 0 or step == 1:
            hl = evaluate()
            el = time.time() - t0
            log(f"step {step} loss {loss.item():.4f} ema {ema:.4f} held-out {hl:.4f} lr {lr:.2e} "
                f"{step * args.batch * args.ctx / el:.0f} tok/s {el:.0f}s")
        curve.write(f"{step},{step * args.batch * args.ctx},{time.time() - t0:.1f},{lr:.6g},"
                    f"{loss.item():.5f},{hl if hl == '' else f'{hl:.5f}'}\n")
        curve.flush()
        if time.time() - last_ckpt > args.ckpt_every:
            save()
            last_ckpt = time.time()
    hl = evaluate()
    el = time.time() - t0
    log(f"done: {step} steps, {step * args.batch * args.ctx} tokens, {el:.0f}s, "
        f"final train ema {ema:.4f}, held-out {hl:.4f}")
    curve.write(f"{step},{step * args.batch * args.ctx},{el:.1f},0,{ema:.5f},{hl:.5f}\n")
    curve.close()
    save()
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump({"steps": step, "tokens": step * args.batch * args.ctx, "seconds": el,
                   "train_loss_ema": ema, "heldout_loss": hl, "params": model.n_params(),
                   "config": cfg.to_dict(), "args": vars(args)}, f, indent=1)


if __name__ == "__main__":
    main()
