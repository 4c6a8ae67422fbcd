#!/bin/sh
# Rebuilds the bundled model from scratch: corpus -> BPE -> training -> GGUF (F32, Q8_0, Q4_0)
# -> the MTP layer on the Q8_0 trunk -> parity data -> perplexity table -> loss plot.
# See tools/train/README.md.
#   tools/train/reproduce.sh [RUN_DIR] [KAZEIA_BINARY]
set -eu
cd "$(dirname "$0")/../.."
RUN=${1:-/tmp/kazeia-kjv-run}
KZ=${2:-build/kazeia}
PY=/usr/bin/python3   # Debian's python3 with python3-torch

$PY tools/train/train.py --out "$RUN" --threads "${THREADS:-1}"
for t in f32 q8_0 q4_0; do
  $PY tools/train/export_gguf.py --run "$RUN" --type $t --out "$RUN/kazeia-kjv-$t.gguf"
done
OPENBLAS_NUM_THREADS=1 $PY tools/train/train_mtp.py --model "$RUN/kazeia-kjv-q8_0.gguf" \
  --out "$RUN/mtp" --threads 1
$PY tools/train/export_gguf.py --base "$RUN/kazeia-kjv-q8_0.gguf" --mtp "$RUN/mtp/mtp.pt" \
  --out models/kazeia-kjv-q8_0.gguf
$PY tools/train/make_parity_data.py --run "$RUN" --type q8_0 \
  --model-file models/kazeia-kjv-q8_0.gguf --out tests/data/kjv_parity.json
$PY tools/train/make_parity_data.py --mtp --heldout "$RUN/heldout.txt" \
  --model-file models/kazeia-kjv-q8_0.gguf --out tests/data/kjv_parity_mtp.json
$PY tools/train/plot_loss.py "$RUN/loss.csv" docs/loss.png
for t in f32 q8_0 q4_0; do
  echo "== $t"
  "$KZ" perplexity -m "$RUN/kazeia-kjv-$t.gguf" -f "$RUN/heldout.txt" -c 256 | tail -1
done
