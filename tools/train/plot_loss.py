#!/usr/bin/python3
"""Plot train.py's loss.csv (training loss, smoothed, and held-out loss) to a PNG, with the
held-out recall probe (recall.csv beside it, train.py --recall-every) on a second axis if there
is one.

    /usr/bin/python3 tools/train/plot_loss.py RUN/loss.csv docs/loss.png [TITLE]
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def plot_recall(ax, rows):
    """The teacher-forced held-out recall probe at turns 3 and 10, in %."""
    tok = [int(r["tokens"]) / 1e6 for r in rows]
    for col, color, label in (("recall_turn3", "#31a354", "held-out recall, turn 3"),
                              ("recall_turn10", "#756bb1", "held-out recall, turn 10")):
        ax.plot(tok, [100 * float(r[col]) for r in rows], "s--", color=color, ms=2.5, lw=1,
                label=label)
    ax.set_ylabel("recall probe (%, teacher-forced)")
    ax.set_ylim(0, 100)
    ax.legend(loc="upper right")


def main():
    src, dst = sys.argv[1], sys.argv[2]
    title = sys.argv[3] if len(sys.argv) > 3 else \
        "kazeia-kjv (qwen35, 3.2M params) on the King James Bible"
    rows = list(csv.DictReader(open(src)))[:-1]  # the last row repeats the final evaluation
    tok = [int(r["tokens"]) / 1e6 for r in rows]
    tr = [float(r["train_loss"]) for r in rows]
    ema, sm = None, []
    for v in tr:
        ema = v if ema is None else 0.95 * ema + 0.05 * v
        sm.append(ema)
    ho = [(int(r["tokens"]) / 1e6, float(r["heldout_loss"])) for r in rows if r["heldout_loss"]]
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    ax.plot(tok, tr, color="#9ecae1", lw=0.6, label="train (per step)")
    ax.plot(tok, sm, color="#08519c", lw=1.5, label="train (EMA 0.95)")
    ax.plot([t for t, _ in ho], [v for _, v in ho], "o-", color="#d94801", ms=2.5, lw=1,
            label="held-out")
    ax.set_xlabel("training tokens (millions)")
    ax.set_ylabel("cross-entropy (nats / token)")
    ax.set_title(title)
    ax.set_ylim(min(min(sm), min(v for _, v in ho)) - 0.2, 8)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left")
    recall = os.path.join(os.path.dirname(src), "recall.csv")
    if os.path.exists(recall):
        plot_recall(ax.twinx(), list(csv.DictReader(open(recall))))
    fig.tight_layout()
    fig.savefig(dst)
    print(f"wrote {dst}")


if __name__ == "__main__":
    main()
