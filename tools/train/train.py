#!/usr/bin/python3
"""Train the bundled Kazeia models on CPU: a small qwen35 (Gated DeltaNet + gated attention) on
the King James Bible (Debian package bible-kjv-text, public domain; the default), or with
--corpus chat on generated dialogues (chat_data.py, chat_corpus.py) for kazeia-chat.

    nice -n 10 /usr/bin/python3 tools/train/train.py --out /tmp/kjv-train
    nice -n 19 /usr/bin/python3 tools/train/train.py --corpus chat --out /tmp/chat-train ...

KJV steps: dump the corpus with `bible` (package bible-kjv), hold out every 40th chapter, train a
byte-level BPE vocabulary on the training text, then train the model with AdamW on random
256-token windows. Stops after --max-steps or --time-budget seconds, whichever comes first; the
learning-rate schedule follows the larger of the two progress fractions, so it always ends
decayed. Everything is seeded (--seed). Checkpoints (ckpt.pt) are written every few minutes;
--resume goes on from the last one (weights, optimizer, step, clock, sampler).
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
from tokenizer import SPECIAL_TOKENS, Tokenizer, train_bpe  # noqa: E402

HELDOUT_EVERY = 40  # chapter i is held out iff i % 40 == 20 (30 of 1189 chapters)


def open_log(out: str):
    """The run's logger: each message timestamped, to stdout and appended to OUT/train.log."""
    logf = open(os.path.join(out, "train.log"), "a")

    def log(msg):
        line = f"[{time.strftime('%H:%M:%S')}] {msg}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()

    return log


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


def add_chat_args(ap) -> None:
    """The dialogue options (prepare_chat's), shared with train_mtp.py."""
    ap.add_argument("--template", default=None, help="chat: the chat template (Jinja) to render")
    ap.add_argument("--n-dialogues", type=int, default=40000, help="chat: training dialogues")
    ap.add_argument("--max-turns", type=int, default=12, help="chat: user turns per dialogue")
    ap.add_argument("--repeat-rate", type=float, default=0.5,
                    help="chat: share of the in-between turns that are copy exercises")
    ap.add_argument("--never-rate", type=float, default=0.05,
                    help="chat: share of the questions that ask for a fact not given yet")
    ap.add_argument("--hold-rate", type=float, default=0.0,
                    help="chat: share of the dialogues that never give one or two of the facts "
                         "(so that questions about them also come late)")
    ap.add_argument("--composed-talk", type=float, default=0.0,
                    help="chat: share of the small-talk turns drawn from the composed small talk "
                         "(chat_smalltalk.py)")
    ap.add_argument("--name-callers", action="store_true",
                    help="chat: add the composed name statements \"<who> call(s) me {}\"")
    ap.add_argument("--name-nouns", action="store_true",
                    help="chat: add the composed name statements \"my <name noun> is {}\"")
    ap.add_argument("--birthday-ages", action="store_true",
                    help="chat: add age statements beside a birthday word (BIRTHDAY_AGES)")
    ap.add_argument("--unknown-words", type=float, default=0.0,
                    help="chat: share of the statements, questions and composed small talk "
                         "with made-up words (chat_unknown.py)")
    ap.add_argument("--long-names", type=float, default=0.0,
                    help="chat: share of the names made long: a known name run on, or a "
                         "pseudo-name of 3-5 syllables (chat_names.long_name)")
    ap.add_argument("--run-on", type=float, default=0.0,
                    help="chat: share of the statements of two facts or more whose clauses run "
                         "on: closed mid-message, capitalized after any joiner "
                         "(chat_data.RUN_ON_JOINERS)")


def chat_dialogues(args, seed: int, heldout: bool, n: int, rng_turns) -> list:
    """n dialogues' messages from the generator with add_chat_args' options; each one's number
    of turns is drawn from rng_turns (prepare_chat draws the training set, then the held-out)."""
    from chat_data import Generator
    g = Generator(seed, heldout, args.repeat_rate, args.never_rate, args.hold_rate,
                  args.composed_talk, args.name_callers, args.name_nouns, args.unknown_words,
                  args.birthday_ages, args.long_names, args.run_on)
    return [g.dialogue(int(rng_turns.integers(2, args.max_turns + 1)))["messages"]
            for _ in range(n)]


def prepare_chat(out: str, args, log, tok: Tokenizer | None = None):
    """Training and held-out dialogues, rendered and tokenized with loss weights: with `tok`
    (a trained model's), or with OUT/tokenizer.json, or with a BPE trained here. Returns
    (tokenizer, train [(ids, weights)], held-out [(ids, weights)])."""
    from chat_corpus import Renderer, encode_weighted, load_template
    os.makedirs(out, exist_ok=True)
    render = Renderer(load_template(args.template))
    rng_turns = np.random.default_rng(args.seed)

    def texts(seed, heldout, n):
        return [render(m) for m in chat_dialogues(args, seed, heldout, n, rng_turns)]
    t0 = time.time()
    train_texts = texts(args.seed, False, args.n_dialogues)
    held_texts = texts(args.seed + 1, True, 256)
    log(f"dialogues: {len(train_texts)} training ({sum(map(len, train_texts))} chars), "
        f"{len(held_texts)} held-out, rendered in {time.time() - t0:.0f}s")
    with open(os.path.join(out, "train_sample.txt"), "w") as f:
        f.write("\n\n".join(train_texts[:20]))
    with open(os.path.join(out, "heldout.txt"), "w") as f:  # e.g. for make_parity_data.py
        f.write("".join(held_texts))
    tok_path = os.path.join(out, "tokenizer.json")
    if tok is None and os.path.exists(tok_path):
        tok = Tokenizer.load(tok_path)
    if tok is None:  # BPE on the text without its special tokens (they are tokens of their own)
        plain = "".join(train_texts[:args.bpe_dialogues])
        for sp, _ in SPECIAL_TOKENS:
            plain = plain.replace(sp, "\n")
        tokens, merges = train_bpe(plain, args.n_vocab, log)
        tok = Tokenizer(tokens, merges)
        tok.save(tok_path)
    enc = [encode_weighted(tok, t) for t in train_texts]
    held = [encode_weighted(tok, t) for t in held_texts]
    long = [e for e in enc if len(e[0]) > args.ctx + 1]
    enc = [e for e in enc if len(e[0]) <= args.ctx + 1]
    n_tok = sum(len(e[0]) for e in enc)
    n_w = sum(sum(e[1]) for e in enc)
    log(f"tokens: train {n_tok} ({n_w:.0f} weighted, assistant), dropped {len(long)} dialogues "
        f"longer than {args.ctx + 1}; held-out {sum(len(e[0]) for e in held)}")
    return tok, enc, [e for e in held if len(e[0]) <= args.ctx + 1]


def stack_dialogues(seqs, pad: int):
    """(x, y, weights) of tokenized dialogues [(ids, weights)]: inputs, next tokens and the next
    tokens' loss weights, padded with `pad` to the longest dialogue (weight 0)."""
    n = max(len(ids) for ids, _ in seqs)
    xb = torch.full((len(seqs), n), pad, dtype=torch.long)
    wb = torch.zeros(len(seqs), n - 1)
    for i, (ids, w) in enumerate(seqs):
        xb[i, :len(ids)] = torch.tensor(ids)
        wb[i, :len(ids) - 1] = torch.tensor(w[1:])
    return xb[:, :-1], xb[:, 1:], wb


def dialogue_batches(seqs, batch: int, gen: torch.Generator, pad: int):
    """A sampler of batches of dialogues of similar length (little padding): draw(share) stacks a
    random run of `batch` dialogues of the length-sorted list, within its shortest `share`."""
    by_len = sorted(range(len(seqs)), key=lambda i: len(seqs[i][0]))

    def draw(share: float = 1.0):
        n = max(batch, int(share * len(by_len)))
        s0 = int(torch.randint(0, n - batch + 1, (1,), generator=gen))
        return stack_dialogues([seqs[i] for i in by_len[s0:s0 + batch]], pad)
    return draw


def heldout_batches(held_seqs, pad: int):
    """The held-out evaluation: the first 32 held-out dialogues, by length, in 4 batches of 8."""
    held32 = sorted(held_seqs[:32], key=lambda e: len(e[0]))
    return [stack_dialogues(held32[i:i + 8], pad) for i in range(0, 32, 8)]


def init_state(path: str) -> dict:
    """--init: the weights of a run's ckpt.pt, or a GGUF file's trunk (dequantized, as the engine
    reads it)."""
    if path.endswith(".gguf"):
        from export_gguf import load_gguf
        return load_gguf(path)[0].state_dict()
    return torch.load(path)["model"]


def widen_kv(state: dict, cfg: Config) -> dict:
    """Spreads each attention layer's KV heads over more of them when --n-head-kv is above the
    initial model's: new KV head j is a copy of the head its query heads used, so the function
    is unchanged, and training can then tell the copies apart (more room for what attention
    carries: the copied names and numbers)."""
    out = dict(state)
    for name, w in state.items():
        n_old = w.shape[0] // cfg.head_dim
        if name.endswith(("mixer.wk.weight", "mixer.wv.weight")) and n_old != cfg.n_head_kv:
            heads = w.reshape(n_old, cfg.head_dim, -1)
            per_new, per_old = cfg.n_head // cfg.n_head_kv, cfg.n_head // n_old
            out[name] = torch.cat([heads[j * per_new // per_old]
                                   for j in range(cfg.n_head_kv)]).reshape(-1, w.shape[1])
    return out


# A block's output projections: at zero the block adds nothing to the residual stream.
BLOCK_OUTPUTS = ("ffn_down.weight", "mixer.out.weight", "mixer.wo.weight")


def deepen(state: dict, model: torch.nn.Module) -> dict:
    """--n-layer above the initial model's: the layers it lacks are appended, initialised as
    `model` initialises them but with their output projections at zero, so that each adds nothing
    at first and the function is unchanged; training then grows them (e.g. a second attention
    layer after the first: room to find a fact, then to copy it token by token). The initial
    layers must keep their kinds (the same --attn-every)."""
    out = dict(state)
    for name, w in model.state_dict().items():
        if name not in out:
            out[name] = torch.zeros_like(w) if name.endswith(BLOCK_OUTPUTS) else w.clone()
    return out


def truncate_csv(path: str, step: int) -> None:
    """Drops the rows after `step` (written after the checkpoint a resumed run goes on from)."""
    with open(path) as f:
        rows = f.readlines()
    with open(path, "w") as f:
        f.writelines(rows[:1] + [r for r in rows[1:] if int(r.split(",")[0]) <= step])


def recall_probe(tok, template: str, seed: int, turns: int, n: int, pad: int):
    """A cheap held-out recall check during training: n held-out dialogues played as
    eval_recall.py plays them (name and age at turn 1, the question for both at turn `turns`),
    with the generator's replies as history (teacher forcing). Returns (batches, checks): checks
    holds, per dialogue, the positions of the value tokens in the assistant's replies (and the
    token after each value); the dialogue counts as recalled when the model's arg-max is right
    at all of them. Optimistic next to the engine's greedy play (the history holds the right
    acknowledgement), but one forward pass per dialogue."""
    import re
    from chat_corpus import Renderer, encode_weighted, load_template
    from chat_data import Generator
    from eval_recall import plan_for, values, whole_word
    render = Renderer(load_template(template))
    g = Generator(seed, True)
    seqs, checks = [], []
    for _ in range(n):
        d = g.dialogue(turns, plan=plan_for(g, turns, "name-age"))
        text = render([m for m in d["messages"] if m["role"] != "system"])
        ids, w = encode_weighted(tok, text)
        # byte span of each token (a byte-level token has one character per byte)
        lens = np.array([len(tok.tokens[i].encode()) if tok.tokens[i] in tok.special
                         else len(tok.tokens[i]) for i in ids])
        ends = np.cumsum(lens)
        starts = ends - lens
        pos = set()
        for seg in re.finditer(r"<\|im_start\|>assistant\n(.*?)<\|im_end\|>", text, re.S):
            for v in values(d["facts"], ["name", "age"]):
                for m in whole_word(v).finditer(seg.group(1)):
                    b0 = len(text[:seg.start(1) + m.start()].encode())
                    b1 = len(text[:seg.start(1) + m.end()].encode())
                    hit = [p for p in range(len(ids)) if starts[p] < b1 and ends[p] > b0]
                    pos.update(hit + [hit[-1] + 1])
        seqs.append((ids, w))
        checks.append(sorted(p for p in pos if 0 < p < len(ids)))
    return [stack_dialogues(seqs[i:i + 8], pad) for i in range(0, n, 8)], checks


def recall_of(model, batches, checks) -> float:
    """The share of probe dialogues whose every checked token is the model's arg-max."""
    ok, k = 0, 0
    with torch.no_grad():
        for x, y, _ in batches:
            pred = model(x).argmax(-1)
            for row in range(x.shape[0]):
                # position p of the dialogue is predicted at row p - 1
                ok += all(pred[row, p - 1] == y[row, p - 1] for p in checks[k])
                k += 1
    return ok / k


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", choices=["kjv", "chat"], default="kjv")
    add_chat_args(ap)
    ap.add_argument("--bpe-dialogues", type=int, default=8000, help="chat: dialogues for BPE")
    ap.add_argument("--curriculum", type=float, default=0.0,
                    help="chat: share of the run over which batches grow from the shortest "
                         "quarter of the dialogues to all of them (0: all from the start)")
    ap.add_argument("--n-embd", type=int, default=Config.n_embd)
    ap.add_argument("--n-layer", type=int, default=Config.n_layer)
    ap.add_argument("--n-ff", type=int, default=Config.n_ff)
    ap.add_argument("--attn-every", type=int, default=Config.full_attention_interval,
                    help="full_attention_interval: layer il is attention iff (il+1) %% N == 0")
    ap.add_argument("--n-head", type=int, default=Config.n_head, help="attention query heads")
    ap.add_argument("--n-head-kv", type=int, default=Config.n_head_kv, help="attention KV heads")
    ap.add_argument("--head-dim", type=int, default=Config.head_dim)
    ap.add_argument("--out", required=True)
    ap.add_argument("--init", default=None,
                    help="start from a run's ckpt.pt (put its tokenizer.json in --out first) or "
                         "a GGUF file's trunk (its tokenizer is used); the same configuration, "
                         "but --n-head-kv (widen_kv) and --n-layer (deepen) may be larger")
    ap.add_argument("--resume", action="store_true",
                    help="continue this run from OUT/ckpt.pt (weights, optimizer, step, clock, "
                         "sampler): same arguments, the schedule goes on where it stopped")
    ap.add_argument("--recall-every", type=int, default=0,
                    help="chat: every N steps, the teacher-forced held-out recall probe at turns "
                         "3 and 10 (recall_probe; 0: never)")
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
    log = open_log(args.out)

    log(f"args: {vars(args)}")
    tok_path = os.path.join(args.out, "tokenizer.json")
    if args.init and args.init.endswith(".gguf") and not os.path.exists(tok_path):
        from export_gguf import load_gguf
        load_gguf(args.init)[2].save(tok_path)
    if args.corpus == "chat":
        from chat_corpus import DEFAULT_TEMPLATE
        args.template = args.template or DEFAULT_TEMPLATE
        tok, train_seqs, held_seqs = prepare_chat(args.out, args, log)
    else:
        tok, train_ids, held_ids = prepare(args.out, args.n_vocab, log)
    cfg = Config(n_vocab=len(tok.tokens), n_ctx_train=args.ctx, n_embd=args.n_embd,
                 n_layer=args.n_layer, n_ff=args.n_ff, full_attention_interval=args.attn_every,
                 n_head=args.n_head, n_head_kv=args.n_head_kv, head_dim=args.head_dim)
    model = Qwen35(cfg)
    ckpt_path = os.path.join(args.out, "ckpt.pt")
    resumed = torch.load(ckpt_path) if args.resume else None
    if args.init:
        model.load_state_dict(deepen(widen_kv(init_state(args.init), cfg), model))
    log(f"model: {cfg.to_dict()}, {model.n_params()} parameters")

    decay, no_decay = [], []
    for n, p in model.named_parameters():
        (decay if p.dim() == 2 and "conv" not in n else no_decay).append(p)
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95), eps=1e-8)
    gen = torch.Generator().manual_seed(args.seed)
    if resumed:
        model.load_state_dict(resumed["model"])
        opt.load_state_dict(resumed["opt"])
        gen.set_state(resumed["gen"])
    probes = {}
    if args.corpus == "chat" and args.recall_every:
        probes = {t: recall_probe(tok, args.template, args.seed + 2, t, 32,
                                  tok.id["<|endoftext|>"]) for t in (3, 10)}
    if args.corpus == "chat":
        pad = tok.id["<|endoftext|>"]
        draw = dialogue_batches(train_seqs, args.batch, gen, pad)

        def next_batch():  # with --curriculum, the shorter dialogues early in the run (short
            # dialogues are mostly statements, answers and copies: copying is learnt sooner)
            share = 1.0 if args.curriculum <= 0 else min(1.0, 0.25 + 0.75 * progress /
                                                         args.curriculum)
            return draw(share)
        ev = heldout_batches(held_seqs, pad)
    else:
        train_t = torch.from_numpy(train_ids).long()
        held_t = torch.from_numpy(held_ids).long()

        def next_batch():
            starts = torch.randint(0, len(train_t) - args.ctx - 1, (args.batch,), generator=gen)
            xb = torch.stack([train_t[s:s + args.ctx + 1] for s in starts.tolist()])
            return xb[:, :-1], xb[:, 1:], None
        # fixed held-out evaluation windows
        n_eval = min(8, (len(held_t) - 1) // args.ctx)
        evw = torch.stack([held_t[i * args.ctx:(i + 1) * args.ctx + 1] for i in range(n_eval)])
        ev = [(evw[:, :-1], evw[:, 1:], None)]

    def loss_of(x, y, w):
        if w is None:
            return F.cross_entropy(model(x).reshape(-1, cfg.n_vocab), y.reshape(-1))
        # logits only where the loss counts (assistant tokens): the head is a large share of
        # this small model's work, and the other positions' logits would be weighted 0
        keep = w.reshape(-1) > 0
        h = model.hidden(x).reshape(-1, cfg.n_embd)[keep]
        ce = F.cross_entropy(h @ model.embed.weight.t(), y.reshape(-1)[keep], reduction="none")
        return (ce * w.reshape(-1)[keep]).sum() / w.sum()

    def evaluate():
        model.eval()
        with torch.no_grad():
            l = sum(loss_of(*b).item() for b in ev) / len(ev)
        model.train()
        return l

    csvs = [os.path.join(args.out, f) for f in ("loss.csv", "recall.csv")]
    if resumed:
        for path in csvs:
            truncate_csv(path, resumed["step"])
    curve, recall_csv = (open(path, "a" if resumed else "w") for path in csvs)
    if not resumed:
        curve.write("step,tokens,seconds,lr,train_loss,heldout_loss\n")
        recall_csv.write("step,tokens,seconds,recall_turn3,recall_turn10\n")
    t0 = time.time()
    step, ema, seen = 0, None, 0
    if resumed:  # the clock goes on from the checkpoint's elapsed time
        t0 -= resumed["seconds"]
        step, ema, seen = resumed["step"], resumed["ema"], resumed["tokens"]
        log(f"resumed at step {step}, {resumed['seconds']:.0f}s")
    last_ckpt = time.time()

    def save():
        torch.save({"config": cfg.to_dict(), "model": model.state_dict(), "step": step,
                    "tokens": seen, "seconds": time.time() - t0, "seed": args.seed,
                    "opt": opt.state_dict(), "gen": gen.get_state(), "ema": ema}, ckpt_path)

    def probe():
        model.eval()
        r = {t: recall_of(model, *probes[t]) for t in sorted(probes)}
        model.train()
        log(f"step {step} held-out recall probe (teacher-forced, 32 dialogues): " +
            ", ".join(f"turn {t} {100 * v:.0f} %" for t, v in r.items()))
        recall_csv.write(f"{step},{seen},{time.time() - t0:.1f}," +
                         ",".join(f"{v:.4f}" for v in r.values()) + "\n")
        recall_csv.flush()

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
        x, y, w = next_batch()
        seen += x.numel()  # padded positions included
        loss = loss_of(x, y, w)
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
                f"{seen / el:.0f} tok/s {el:.0f}s")
        curve.write(f"{step},{seen},{time.time() - t0:.1f},{lr:.6g},"
                    f"{loss.item():.5f},{hl if hl == '' else f'{hl:.5f}'}\n")
        curve.flush()
        if probes and step % args.recall_every == 0:
            probe()
        if time.time() - last_ckpt > args.ckpt_every:
            save()
            last_ckpt = time.time()
    hl = evaluate()
    el = time.time() - t0
    log(f"done: {step} steps, {seen} tokens, {el:.0f}s, "
        f"final train ema {ema:.4f}, held-out {hl:.4f}")
    curve.write(f"{step},{seen},{el:.1f},0,{ema:.5f},{hl:.5f}\n")
    curve.close()
    if probes:
        probe()
    save()
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump({"steps": step, "tokens": seen, "seconds": el,
                   "train_loss_ema": ema, "heldout_loss": hl, "params": model.n_params(),
                   "config": cfg.to_dict(), "args": vars(args)}, f, indent=1)


if __name__ == "__main__":
    main()
