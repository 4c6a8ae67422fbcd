#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test with CTest, checks the
# libraries' run-time dependencies, runs the fuzzers briefly, the suite under ASan + UBSan and the
# concurrency tests under TSan, then the ARM64 build under qemu
# emulation (which also lays out the Android package).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's wall time, so that a CI log says where its minutes went (docs/reliability.md).
timed() {
  local t0=$SECONDS
  "$@"
  echo "test.sh: $1 $((SECONDS - t0)) s" >&2
}
timed scripts/setup.sh
timed scripts/build.sh
# PoCL is installed (setup.sh), so the OpenCL tests must find a device here rather than skip;
# the pinned prebuilt ggml and Mesa's software Vulkan (fetch-ggml.sh) likewise for the ggml
# devices' tests (ggml:CPU and ggml:Vulkan0). On Vulkan the op tests, the two-turn conversation
# and --device-layers run; the fixture models end to end (14 min on lavapipe) and the
# flash-attention test over every cache type (over 15 min) are left out (docs/ggml.md, "Known
# problems").
GGML_DIR=$(scripts/fetch-ggml.sh)
KAZEIA_REQUIRE_OPENCL=1 KAZEIA_REQUIRE_GGML=1 KAZEIA_GGML_DIR="$GGML_DIR" GGML_VK_VISIBLE_DEVICES=0 \
  timed ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 900 \
  -E 'GgmlFixture.*/Vulkan0_|GgmlVsRef\.Attention/Vulkan0'
# libkazeia.so and the JNI library may need only the C/C++ run-time (docs/android.md).
scripts/check_needed.sh build
# The fuzz targets, built with clang + ASan/UBSan, 30 s each (docs/reliability.md).
timed scripts/fuzz.sh 30
# The suite under ASan + UBSan (in the fuzz build) and the concurrency tests (thread pool,
# sessions sharing an engine on threads) under TSan.
timed scripts/sanitize.sh
if [ -x scripts/test_arm.sh ]; then timed scripts/test_arm.sh; fi
