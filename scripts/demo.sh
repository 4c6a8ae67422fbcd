#!/usr/bin/env bash
# The main job: installs what is missing, builds, and generates text with the bundled model
# (models/kazeia-kjv-q8_0.gguf, King James prose). Extra arguments go to `kazeia run`
# (e.g. -p "Your prompt" -n 64).
#   scripts/demo.sh --chat [ARGS]   talk with the bundled chat model (models/kazeia-chat-q8_0.gguf)
#                                   in `kazeia chat`, greedy; extra arguments go to `kazeia chat`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh --target kazeia
if [ "${1:-}" = "--chat" ]; then
  shift
  echo "kazeia-chat: a tiny model that remembers what you tell it (first name, age, city, pet,"
  echo "birthday, favourite number) and answers in French or English; it knows nothing else."
  echo "Try: Bonjour, je m'appelle Marie et j'ai 34 ans. / Tu te rappelles mon prénom et mon âge ?"
  exec build/kazeia chat -m models/kazeia-chat-q8_0.gguf --temp 0 "$@"
fi
model=models/kazeia-kjv-q8_0.gguf
if [ ! -f "$model" ]; then
  model=build/demo-qwen35-tiny.gguf
  [ -f "$model" ] || build/kazeia mkmodel --preset qwen35-tiny --type q8_0 -o "$model"
fi
if [ $# -eq 0 ]; then set -- -p "In the beginning" -n 80; fi
exec build/kazeia run -m "$model" "$@"
