#!/bin/sh
# Rebuilds the bundled chat model: the stage-5 file of 2026-12-06 (commit a59f165, itself rebuilt
# by that commit's reproduce_chat.sh: the 2026-12-02 model continued in five stages on generated
# dialogues) continued on fresh dialogues of stage 5's kind with made-up words in 30 % of their
# statements, questions and small talk (stage 6: 10 800 steps, seed 1239; stage 7: 5653 more
# steps, seed 1240), then four runs of 5653 steps from stage 7 (S11: seed 1241; N1, N2, N3:
# seeds 1242, 1243, 1244, with 30 % long names) and stage 9 = the mean of stage 7's, S11's, N1's,
# N2's and N3's weights (peak rate 5e-4 for all; step budgets, so that the schedule does not
# depend on the machine's speed)
# -> GGUF (F32, Q8_0, Q4_0) -> the MTP layer on the Q8_0 trunk, from the 2026-12-02 model's ->
# its parity data -> loss plots -> recall table.
# See tools/train/README.md and docs/training.md.
#   tools/train/reproduce_chat.sh [RUN_DIR] [LIBKAZEIA]
# An interrupted training run goes on with the same train.py command plus --resume.
set -eu
cd "$(dirname "$0")/../.."
RUN=${1:-/tmp/kazeia-chat-run}
LIB=${2:-build/bindings/libkazeia.so}
PY=/usr/bin/python3   # Debian's python3 with python3-torch, python3-jinja2, libopenblas0-pthread
TEMPLATE=../shared/fixtures/templates/qwen3.jinja
STAGE5=a59f165f7bb70a808c24663e51d3c94b4f075d8d  # stage 5 (its own script rebuilds it)
BASE=2000ec81c68c7a37b3922431159e6e2b73000d46  # the 2026-12-02 model: its MTP layer starts ours
# stage 5's dialogues, with made-up words (chat_unknown.py); the MTP layer's training sees them
DIALOGUES="--template $TEMPLATE --n-dialogues 40000 --max-turns 11 --repeat-rate 0.25
  --never-rate 0.25 --composed-talk 0.7 --name-callers --unknown-words 0.3"
SHAPE="--ctx 512 --batch 8 --curriculum 0 --n-embd 128 --n-layer 2 --n-ff 384 --attn-every 2
  --n-head 3 --n-head-kv 1 --lr 5e-4 --time-budget 100000 --eval-every 50 --ckpt-every 240
  --recall-every 800 --threads 1"

mkdir -p "$RUN"
git show "$STAGE5:models/kazeia-chat-q8_0.gguf" > "$RUN/stage5.gguf"
git show "$BASE:models/kazeia-chat-q8_0.gguf" > "$RUN/base.gguf"
# stage 6: the stage-5 file's trunk (dequantized) on made-up-word dialogues
OPENBLAS_NUM_THREADS=1 $PY tools/train/train.py --corpus chat $DIALOGUES \
  --init "$RUN/stage5.gguf" --out "$RUN" $SHAPE --seed 1239 --max-steps 10800
# stage 7: stage 6 + the same kind of dialogues at seed 1240 (S8b's recipe, chosen by
# docs/training.md's "stage 9" experiment, not the bundled stage 9), run without the
# in-training recall probe, as it was
mkdir -p "$RUN/stage7" && cp "$RUN/tokenizer.json" "$RUN/stage7/"
OPENBLAS_NUM_THREADS=1 $PY tools/train/train.py --corpus chat $DIALOGUES \
  --init "$RUN/ckpt.pt" --out "$RUN/stage7" $SHAPE --recall-every 0 --seed 1240 --max-steps 5653
# stage 9 (stage 12's choice): four more runs from stage 7, then the five averaged (stage 8, the
# file before, was the mean of stage 7, S11 and N1)
for run in "S11 --seed 1241" "N1 --seed 1242 --long-names 0.3" "N2 --seed 1243 --long-names 0.3" \
  "N3 --seed 1244 --long-names 0.3"; do
  set -- $run
  dir=$1; shift
  mkdir -p "$RUN/$dir" && cp "$RUN/tokenizer.json" "$RUN/$dir/"
  OPENBLAS_NUM_THREADS=1 $PY tools/train/train.py --corpus chat $DIALOGUES "$@" \
    --init "$RUN/stage7/ckpt.pt" --out "$RUN/$dir" $SHAPE --recall-every 0 --max-steps 5653
done
$PY tools/train/average_runs.py --runs "$RUN/stage7" "$RUN/S11" "$RUN/N1" "$RUN/N2" "$RUN/N3" \
  --out "$RUN/stage9"
for t in f32 q8_0 q4_0; do
  $PY tools/train/export_gguf.py --run "$RUN/stage9" --type $t --out "$RUN/kazeia-chat-$t.gguf" \
    --name kazeia-chat --template "$TEMPLATE" \
    --license "generated dialogues (tools/train/chat_data.py)"
done
OPENBLAS_NUM_THREADS=1 $PY tools/train/train_mtp.py --corpus chat $DIALOGUES \
  --seed 1242 --model "$RUN/kazeia-chat-q8_0.gguf" --init "$RUN/base.gguf" --out "$RUN/mtp" \
  --batch 8 --max-steps 100000 --time-budget 240 --eval-every 50 --threads 1
$PY tools/train/export_gguf.py --base "$RUN/kazeia-chat-q8_0.gguf" --mtp "$RUN/mtp/mtp.pt" \
  --out models/kazeia-chat-q8_0.gguf
$PY tools/train/make_parity_data.py --mtp --heldout "$RUN/mtp/heldout.txt" \
  --model-file models/kazeia-chat-q8_0.gguf --out tests/data/chat_parity_mtp.json
$PY tools/train/plot_loss.py "$RUN/loss.csv" docs/chat_loss_stage6.png \
  "kazeia-chat (qwen35, 0.64M params), stage 6: made-up words, peak rate 5e-4"
$PY tools/train/plot_loss.py "$RUN/stage7/loss.csv" docs/chat_loss_stage7.png \
  "kazeia-chat (qwen35, 0.64M params), stage 7: stage 6 + 5653 steps"
for n in 1 2 3; do
  $PY tools/train/plot_loss.py "$RUN/N$n/loss.csv" docs/chat_loss_n$n.png \
    "kazeia-chat (qwen35, 0.64M params), N$n: stage 7 + 5653 steps with long names"
done
$PY tools/train/plot_loss.py "$RUN/mtp/loss.csv" docs/chat_mtp_loss.png \
  "kazeia-chat MTP layer, frozen trunk: token t+2"
for t in f32 q8_0 q4_0; do
  for split in heldout fresh third fourth fifth sixth seventh eighth; do  # the played held-out splits
    $PY tools/train/eval_recall.py --lib "$LIB" --model "$RUN/kazeia-chat-$t.gguf" \
      --turns 3 5 10 --n 100 --split $split
    $PY tools/train/eval_recall.py --lib "$LIB" --model "$RUN/kazeia-chat-$t.gguf" \
      --turns 3 10 --n 100 --split $split --ask never
  done
  for split in names train; do  # the training side as stages 4 to 9 saw it
    $PY tools/train/eval_recall.py --lib "$LIB" --model "$RUN/kazeia-chat-$t.gguf" \
      --turns 3 5 10 --n 100 --split $split --composed-talk 0.7 --name-callers
  done
done
