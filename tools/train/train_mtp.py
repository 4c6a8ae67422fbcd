#!/usr/bin/python3
"""Train the multi-token-prediction (MTP, NextN) layer of a bundled model on its frozen trunk,
for speculative decoding (`kazeia run --spec mtp`): the KJV model (default) or, with
--corpus chat, the chat model.

    nice -n 19 env OPENBLAS_NUM_THREADS=1 /usr/bin/python3 tools/train/train_mtp.py \
        --model models/kazeia-kjv-q8_0.gguf --out /tmp/kazeia-kjv-mtp

The trunk is read from the GGUF file, i.e. the weights the engine runs (Q8_0 dequantized), and
never changes, so adding the layer (export_gguf.py --base FILE --mtp OUT/mtp.pt) leaves the
trunk's bytes and everything measured on them as they were. In a sequence x_0..x_T, MTP row i
sees x_i and the trunk's final-normed hidden state at i-1 and learns x_{i+1}: token t+2 from
(h_t, embed(x_{t+1})). The loss is the cross-entropy of rows 1..T-1 (row 0 has no hidden state;
it still serves as attention context, as in the engine's prompt).

Data, tokenized with the file's own tokenizer:
* kjv: train.py's corpus and held-out split, random --ctx-token windows.
* chat: train.py's generated dialogues (prepare_chat; pass the --n-dialogues, --max-turns,
  --repeat-rate of the trunk's run to get its very dialogues), rendered with the chat template
  and split at special tokens as the engine does; batches of whole dialogues of similar length,
  padded. The loss counts only the rows whose target is an assistant token (encode_weighted's
  weights): drafting happens while the assistant writes.

Held-out figures: the loss, top-1 accuracy on token t+2, and how often the layer's arg-max
equals the trunk's own next-token arg-max there (what greedy drafting needs; a proxy for
acceptance). Stops after --max-steps or --time-budget CPU seconds, whichever comes first.
Writes mtp.pt, loss.csv, train.log, summary.json, heldout.txt (chat: the held-out dialogues
rendered, for make_parity_data.py --mtp; also train_sample.txt).
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
from train import (add_chat_args, dialogue_batches, heldout_batches, load_corpus,  # noqa: E402
                   open_log, prepare_chat, widen_kv)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="models/kazeia-kjv-q8_0.gguf", help="the trunk (GGUF)")
    ap.add_argument("--corpus", choices=["kjv", "chat"], default="kjv")
    add_chat_args(ap)
    ap.add_argument("--out", required=True)
    ap.add_argument("--init", default=None,
                    help="start from the MTP layer of this GGUF file (the model whose trunk was "
                         "continued into --model's), its KV heads widened to the trunk's")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--ctx", type=int, default=None,
                    help="kjv: window length; chat: longer dialogues are left out "
                         "(default: the trunk's training context)")
    ap.add_argument("--batch", type=int, default=4, help="windows or dialogues per step")
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
    args.ctx = args.ctx or cfg.n_ctx_train
    gen = torch.Generator().manual_seed(args.seed)
    next_batch, held = (chat_data if args.corpus == "chat" else kjv_data)(args, tok, gen, log)

    nextn = NextN(cfg)
    if args.init:
        nextn.load_state_dict(widen_kv(load_gguf(args.init)[1].state_dict(), cfg))
    log(f"mtp layer: {sum(p.numel() for p in nextn.parameters())} parameters")
    decay = [p for p in nextn.parameters() if p.dim() == 2]
    no_decay = [p for p in nextn.parameters() if p.dim() != 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95), eps=1e-8)

    def mtp_logits(x):  # rows 1.. (row i predicts x[i+1]; row 0 has no hidden state)
        with torch.no_grad():  # the frozen trunk
            h = trunk.hidden(x)
        return nextn(trunk.embed, x, previous_hidden(h))[0][:, 1:]

    def row_losses(x, y):  # rows 1..T-1 of inputs x predict y[:, 1:] = x[2..T]
        lg = mtp_logits(x)
        return lg, F.cross_entropy(lg.reshape(-1, cfg.n_vocab), y[:, 1:].reshape(-1),
                                   reduction="none")

    def loss_of(x, y, w):
        ce = row_losses(x, y)[1]
        return ce.mean() if w is None else (ce * w[:, 1:].reshape(-1)).sum() / w[:, 1:].sum()

    # The held-out batches with the trunk's own next-token choice at each row: the MTP row's
    # arg-max agreeing with it is what greedy drafting needs (a proxy for acceptance).
    with torch.no_grad():
        held = [(x, y, torch.ones_like(y, dtype=torch.float) if w is None else w,
               trunk(x).argmax(-1)[:, 1:]) for x, y, w in held]

    def evaluate():  # weighted means over the held-out rows: loss, top-1, trunk agreement
        nextn.eval()
        tot = torch.zeros(4, dtype=torch.float64)
        with torch.no_grad():
            for x, y, w, trunk_next in held:
                lg, ce = row_losses(x, y)
                top, w1 = lg.argmax(-1), w[:, 1:]
                tot += torch.tensor([(ce * w1.reshape(-1)).sum(), ((top == y[:, 1:]) * w1).sum(),
                                     ((top == trunk_next) * w1).sum(), w1.sum()])
        nextn.train()
        return (tot[:3] / tot[3]).tolist()

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
        x, y, w = next_batch()
        loss = loss_of(x, y, w)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(nextn.parameters(), 1.0)
        opt.step()
        step += 1
        seen += x.numel()  # padded positions included
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


def kjv_data(args, tok, gen, log):
    """(next_batch, held-out batches) of the KJV corpus: random windows of --ctx + 1 tokens,
    and the first 8 held-out windows. A batch is (inputs, next tokens, None: all rows count)."""
    train_text, held_text = load_corpus()
    with open(os.path.join(args.out, "heldout.txt"), "w") as f:
        f.write(held_text)
    train_t = torch.tensor(tok.encode(train_text), dtype=torch.long)
    held_t = torch.tensor(tok.encode(held_text), dtype=torch.long)
    log(f"tokens: train {len(train_t)}, held-out {len(held_t)}")

    def next_batch():
        starts = torch.randint(0, len(train_t) - args.ctx - 1, (args.batch,), generator=gen)
        xb = torch.stack([train_t[s:s + args.ctx + 1] for s in starts.tolist()])
        return xb[:, :-1], xb[:, 1:], None
    n_eval = min(8, (len(held_t) - 1) // args.ctx)
    evw = torch.stack([held_t[i * args.ctx:(i + 1) * args.ctx + 1] for i in range(n_eval)])
    return next_batch, [(evw[:, :-1], evw[:, 1:], None)]


def chat_data(args, tok, gen, log):
    """(next_batch, held-out batches) of the generated dialogues, as train.py --corpus chat
    builds them; a batch's weights are those of its next tokens (1 on assistant tokens)."""
    from chat_corpus import DEFAULT_TEMPLATE
    args.template = args.template or DEFAULT_TEMPLATE
    _, train_seqs, held_seqs = prepare_chat(args.out, args, log, tok)
    pad = tok.id["<|endoftext|>"]
    return dialogue_batches(train_seqs, args.batch, gen, pad), heldout_batches(held_seqs, pad)


if __name__ == "__main__":
    main()
