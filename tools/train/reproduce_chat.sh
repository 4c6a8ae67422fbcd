#!/bin/sh
# Rebuilds the bundled chat model from scratch: generated dialogues -> BPE -> training -> GGUF
# (F32, Q8_0, Q4_0) -> loss plot -> recall table. See tools/train/README.md.
#   tools/train/reproduce_chat.sh [RUN_DIR] [LIBKAZEIA]
set -eu
cd "$(dirname "$0")/../.."
RUN=${1:-/tmp/kazeia-chat-run}
LIB=${2:-build/bindings/libkazeia.so}
PY=/usr/bin/python3   # Debian's python3 with python3-torch and python3-jinja2
TEMPLATE=../shared/fixtures/templates/qwen3.jinja

OPENBLAS_NUM_THREADS=1 $PY tools/train/train.py --corpus chat --template "$TEMPLATE" \
  --out "$RUN" --n-dialogues 24000 --bpe-dialogues 3000 --repeat-rate 0.5 --max-turns 11 \
  --n-vocab 1024 --ctx 512 --batch 8 --lr 5e-3 --curriculum 0.3 --n-embd 128 --n-layer 2 \
  --n-ff 384 --attn-every 2 --time-budget 3000 --max-steps 100000 --eval-every 50 \
  --ckpt-every 240 --threads 1
for t in f32 q8_0 q4_0; do
  $PY tools/train/export_gguf.py --run "$RUN" --type $t --out "$RUN/kazeia-chat-$t.gguf" \
    --name kazeia-chat --template "$TEMPLATE" \
    --license "generated dialogues (tools/train/chat_data.py)"
done
cp "$RUN/kazeia-chat-q8_0.gguf" models/kazeia-chat-q8_0.gguf
$PY tools/train/plot_loss.py "$RUN/loss.csv" docs/chat_loss.png \
  "kazeia-chat (qwen35, 0.64M params) on generated dialogues (assistant tokens)"
for t in f32 q8_0 q4_0; do
  for split in heldout names train; do
    $PY tools/train/eval_recall.py --lib "$LIB" --model "$RUN/kazeia-chat-$t.gguf" \
      --turns 3 5 10 --n 100 --split $split
  done
done
