#!/bin/sh
# Rebuilds the bundled chat model from scratch: generated dialogues -> BPE -> training -> GGUF
# (F32, Q8_0, Q4_0) -> the MTP layer on the Q8_0 trunk -> its parity data -> loss plots ->
# recall table. See tools/train/README.md.
#   tools/train/reproduce_chat.sh [RUN_DIR] [LIBKAZEIA]
set -eu
cd "$(dirname "$0")/../.."
RUN=${1:-/tmp/kazeia-chat-run}
LIB=${2:-build/bindings/libkazeia.so}
PY=/usr/bin/python3   # Debian's python3 with python3-torch and python3-jinja2
TEMPLATE=../shared/fixtures/templates/qwen3.jinja
# the dialogues: the trunk's and the MTP layer's training see the same ones
DIALOGUES="--template $TEMPLATE --n-dialogues 24000 --max-turns 11 --repeat-rate 0.5"

OPENBLAS_NUM_THREADS=1 $PY tools/train/train.py --corpus chat $DIALOGUES \
  --out "$RUN" --bpe-dialogues 3000 --n-vocab 1024 --ctx 512 --batch 8 --lr 5e-3 \
  --curriculum 0.3 --n-embd 128 --n-layer 2 --n-ff 384 --attn-every 2 --time-budget 3000 \
  --max-steps 100000 --eval-every 50 --ckpt-every 240 --threads 1
for t in f32 q8_0 q4_0; do
  $PY tools/train/export_gguf.py --run "$RUN" --type $t --out "$RUN/kazeia-chat-$t.gguf" \
    --name kazeia-chat --template "$TEMPLATE" \
    --license "generated dialogues (tools/train/chat_data.py)"
done
OPENBLAS_NUM_THREADS=1 $PY tools/train/train_mtp.py --corpus chat $DIALOGUES \
  --model "$RUN/kazeia-chat-q8_0.gguf" --out "$RUN/mtp" --batch 8 --max-steps 100000 \
  --time-budget 450 --eval-every 50 --threads 1
$PY tools/train/export_gguf.py --base "$RUN/kazeia-chat-q8_0.gguf" --mtp "$RUN/mtp/mtp.pt" \
  --out models/kazeia-chat-q8_0.gguf
$PY tools/train/make_parity_data.py --mtp --heldout "$RUN/mtp/heldout.txt" \
  --model-file models/kazeia-chat-q8_0.gguf --out tests/data/chat_parity_mtp.json
$PY tools/train/plot_loss.py "$RUN/loss.csv" docs/chat_loss.png \
  "kazeia-chat (qwen35, 0.64M params) on generated dialogues (assistant tokens)"
$PY tools/train/plot_loss.py "$RUN/mtp/loss.csv" docs/chat_mtp_loss.png \
  "kazeia-chat MTP layer (0.27M params), frozen trunk: token t+2"
for t in f32 q8_0 q4_0; do
  for split in heldout names train; do
    $PY tools/train/eval_recall.py --lib "$LIB" --model "$RUN/kazeia-chat-$t.gguf" \
      --turns 3 5 10 --n 100 --split $split
  done
done
