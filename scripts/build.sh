#!/usr/bin/env bash
# Configures and builds Kazeia-Engine (Release) into build/, warnings as errors (KAZEIA_WERROR):
# CI (scripts/test.sh) builds here, so that a new warning fails it.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DKAZEIA_WERROR=ON > /dev/null
cmake --build build -j "$(nproc)" "$@"
