#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test with CTest, then the
# ARM64 build under qemu emulation.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 900
if [ -x scripts/test_arm.sh ]; then scripts/test_arm.sh; fi
