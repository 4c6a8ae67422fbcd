#!/usr/bin/env bash
# Configures the clang build whose every object is instrumented for libFuzzer and compiled with
# ASan + UBSan, every report fatal (KAZEIA_FUZZ). scripts/fuzz.sh builds the fuzz targets there
# and scripts/sanitize.sh the test suite, so the library is compiled once for both. Warnings are
# errors (KAZEIA_WERROR), as in scripts/build.sh.
# Usage: scripts/configure_fuzz.sh [BUILD_DIR]   (default build-fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B "${1:-build-fuzz}" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKAZEIA_FUZZ=ON \
  -DKAZEIA_BUILD_BENCH=OFF -DKAZEIA_WERROR=ON -DKAZEIA_UNITY_LIBRARY=ON \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ > /dev/null
