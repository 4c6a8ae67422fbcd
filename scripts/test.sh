#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test with CTest, then the
# ARM64 build under qemu emulation.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
# PoCL is installed (setup.sh), so the OpenCL tests must find a device here rather than skip.
KAZEIA_REQUIRE_OPENCL=1 ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 900
if [ -x scripts/test_arm.sh ]; then scripts/test_arm.sh; fi
