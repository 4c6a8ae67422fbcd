#!/usr/bin/env bash
# The main job: installs what is missing, builds, and generates text with the bundled model.
# Extra arguments go to `kazeia run` (e.g. -p "Your prompt" -n 64).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh --target kazeia
model=$(ls models/*.gguf 2>/dev/null | head -n 1 || true)
if [ -z "$model" ]; then
  model=build/demo-qwen35-tiny.gguf
  [ -f "$model" ] || build/kazeia mkmodel --preset qwen35-tiny --type q8_0 -o "$model"
fi
if [ $# -eq 0 ]; then set -- -p "In the beginning" -n 80; fi
exec build/kazeia run -m "$model" "$@"
