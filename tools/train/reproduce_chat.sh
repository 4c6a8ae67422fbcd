#!/bin/sh
# Rebuilds the bundled chat model: the 2026-12-02 model's trunk (commit 2000ec8) continued in five
# stages on the 2026-12-06 generated dialogues (stage 2: a quarter of the questions ask for a
# fact not given yet; stage 3: fresh dialogues at half the learning rate; stage 4: fresh
# dialogues with composed small talk and more name forms; stage 5: fresh dialogues of stage 4's
# kind at half stage 4's learning rate) -> GGUF (F32, Q8_0, Q4_0) -> the MTP
# layer on the Q8_0 trunk, from the 2026-12-02 model's -> its parity data -> loss plots -> recall
# table.
# See tools/train/README.md and docs/training.md.
#   tools/train/reproduce_chat.sh [RUN_DIR] [LIBKAZEIA]
# An interrupted training run goes on with the same train.py command plus --resume.
set -eu
cd "$(dirname "$0")/../.."
RUN=${1:-/tmp/kazeia-chat-run}
LIB=${2:-build/bindings/libkazeia.so}
PY=/usr/bin/python3   # Debian's python3 with python3-torch and python3-jinja2
TEMPLATE=../shared/fixtures/templates/qwen3.jinja
BASE=2000ec81c68c7a37b3922431159e6e2b73000d46  # the 2026-12-02 model (its reproduce_chat.sh)
# the dialogues of stages 1-3, and those of stages 4 and 5 (the MTP layer's training sees
# stage 5's)
DIALOGUES="--template $TEMPLATE --n-dialogues 40000 --max-turns 11 --repeat-rate 0.5"
DIALOGUES4="--template $TEMPLATE --n-dialogues 40000 --max-turns 11 --repeat-rate 0.25
  --never-rate 0.25 --composed-talk 0.7 --name-callers"

SHAPE="--ctx 512 --batch 8 --curriculum 0 --n-embd 128 --n-layer 2 --n-ff 384 --attn-every 2
  --n-head 3 --n-head-kv 1 --max-steps 100000 --eval-every 50 --ckpt-every 240 --threads 1"

mkdir -p "$RUN/stage1" "$RUN/stage2" "$RUN/stage3" "$RUN/stage4"
git show "$BASE:models/kazeia-chat-q8_0.gguf" > "$RUN/base.gguf"
# stage 1: the 2026-12-02 trunk on the new dialogues (never-given questions: 5 %)
OPENBLAS_NUM_THREADS=1 $PY tools/train/train.py --corpus chat $DIALOGUES \
  --init "$RUN/base.gguf" --out "$RUN/stage1" $SHAPE --lr 2e-3 --recall-every 100 \
  --time-budget 3200
# stage 2: a quarter of the questions ask for a fact not given yet
cp "$RUN/stage1/tokenizer.json" "$RUN/stage2/"
OPENBLAS_NUM_THREADS=1 $PY tools/train/train.py --corpus chat $DIALOGUES --never-rate 0.25 \
  --init "$RUN/stage1/ckpt.pt" --out "$RUN/stage2" $SHAPE --lr 2e-3 --recall-every 100 \
  --time-budget 4800
# stage 3: stage 2's weights on fresh dialogues of the same kind (seed 1235), peak rate 1e-3
cp "$RUN/stage1/tokenizer.json" "$RUN/stage3/"
OPENBLAS_NUM_THREADS=1 $PY tools/train/train.py --corpus chat $DIALOGUES --never-rate 0.25 \
  --init "$RUN/stage2/ckpt.pt" --out "$RUN/stage3" $SHAPE --lr 1e-3 --recall-every 200 \
  --seed 1235 --time-budget 4800
# stage 4: stage 3's weights on fresh dialogues (seed 1236) with composed small talk, the
# "<who> call(s) me" name forms and half as many copy exercises
cp "$RUN/stage1/tokenizer.json" "$RUN/stage4/"
OPENBLAS_NUM_THREADS=1 $PY tools/train/train.py --corpus chat $DIALOGUES4 \
  --init "$RUN/stage3/ckpt.pt" --out "$RUN/stage4" $SHAPE --lr 1e-3 --recall-every 200 \
  --seed 1236 --time-budget 4800
# stage 5: stage 4's weights on fresh dialogues of the same kind (seed 1238), peak rate 5e-4
cp "$RUN/stage1/tokenizer.json" "$RUN/"
OPENBLAS_NUM_THREADS=1 $PY tools/train/train.py --corpus chat $DIALOGUES4 \
  --init "$RUN/stage4/ckpt.pt" --out "$RUN" $SHAPE --lr 5e-4 --recall-every 400 --seed 1238 \
  --time-budget 4200
for t in f32 q8_0 q4_0; do
  $PY tools/train/export_gguf.py --run "$RUN" --type $t --out "$RUN/kazeia-chat-$t.gguf" \
    --name kazeia-chat --template "$TEMPLATE" \
    --license "generated dialogues (tools/train/chat_data.py)"
done
OPENBLAS_NUM_THREADS=1 $PY tools/train/train_mtp.py --corpus chat $DIALOGUES4 \
  --seed 1238 --model "$RUN/kazeia-chat-q8_0.gguf" --init "$RUN/base.gguf" --out "$RUN/mtp" \
  --batch 8 --max-steps 100000 --time-budget 240 --eval-every 50 --threads 1
$PY tools/train/export_gguf.py --base "$RUN/kazeia-chat-q8_0.gguf" --mtp "$RUN/mtp/mtp.pt" \
  --out models/kazeia-chat-q8_0.gguf
$PY tools/train/make_parity_data.py --mtp --heldout "$RUN/mtp/heldout.txt" \
  --model-file models/kazeia-chat-q8_0.gguf --out tests/data/chat_parity_mtp.json
$PY tools/train/plot_loss.py "$RUN/stage1/loss.csv" docs/chat_loss.png \
  "kazeia-chat (qwen35, 0.64M params), continued on generated dialogues"
$PY tools/train/plot_loss.py "$RUN/stage2/loss.csv" docs/chat_loss_stage2.png \
  "kazeia-chat (qwen35, 0.64M params), stage 2: never-given questions 25 %"
$PY tools/train/plot_loss.py "$RUN/stage3/loss.csv" docs/chat_loss_stage3.png \
  "kazeia-chat (qwen35, 0.64M params), stage 3: fresh dialogues, peak rate 1e-3"
$PY tools/train/plot_loss.py "$RUN/stage4/loss.csv" docs/chat_loss_stage4.png \
  "kazeia-chat (qwen35, 0.64M params), stage 4: composed small talk, peak rate 1e-3"
$PY tools/train/plot_loss.py "$RUN/loss.csv" docs/chat_loss_stage5.png \
  "kazeia-chat (qwen35, 0.64M params), stage 5: fresh dialogues, peak rate 5e-4"
$PY tools/train/plot_loss.py "$RUN/mtp/loss.csv" docs/chat_mtp_loss.png \
  "kazeia-chat MTP layer, frozen trunk: token t+2"
for t in f32 q8_0 q4_0; do
  $PY tools/train/eval_recall.py --lib "$LIB" --model "$RUN/kazeia-chat-$t.gguf" \
    --turns 3 5 10 --n 100 --split heldout
  for split in fresh third fourth; do  # the later, blind held-out splits (chat_fresh.py, ...)
    $PY tools/train/eval_recall.py --lib "$LIB" --model "$RUN/kazeia-chat-$t.gguf" \
      --turns 3 5 10 --n 100 --split $split
  done
  for split in names train; do  # the training side as stages 4 and 5 saw it
    $PY tools/train/eval_recall.py --lib "$LIB" --model "$RUN/kazeia-chat-$t.gguf" \
      --turns 3 5 10 --n 100 --split $split --composed-talk 0.7 --name-callers
  done
  $PY tools/train/eval_recall.py --lib "$LIB" --model "$RUN/kazeia-chat-$t.gguf" \
    --turns 3 10 --n 100 --ask never
done
