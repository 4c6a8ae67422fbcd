#!/usr/bin/env bash
# ARM64 under emulation: cross-builds the aarch64-linux preset (CMakePresets.json,
# cmake/aarch64-linux-gnu.toolchain.cmake) into build-aarch64, then runs the tests with
# qemu-aarch64 user emulation once per CPU feature level. qemu's CPU model (QEMU_CPU) sets the
# features the kernels see through getauxval, and an instruction the model lacks faults, so a
# level cannot silently run a kernel it should not:
#
#   level    QEMU_CPU      features seen                         tests
#   i8mm     max           neon dotprod i8mm fp16 (and SVE)      the suite, less the slowest
#                                                                reference-backend model runs
#   dotprod  cortex-a76    neon dotprod fp16                     kernels + 2 fixture models
#   neon     cortex-a53    neon (ARMv8.0)                        kernels + 2 fixture models
#   scalar   max, KAZEIA_CPU_FEATURES=scalar (reference kernels) kernels + 2 fixture models
#
# The two fixture models, one per architecture, on the cpu backend: qwen3-tiny-q8_0 (Q8_0 x Q8_0)
# and qwen35-tiny-q4_0 (Q4_0, Q8_0 and F32 weights); the i8mm level runs every fixture model on
# the cpu backend (K-quants included). Everything here is emulated: correctness, not speed.
#
# Needs g++-aarch64-linux-gnu and qemu-user (scripts/setup.sh installs them) and Debian's arm64
# PCRE2 and GoogleTest packages, unpacked into build-aarch64-deps by cmake/fetch-aarch64-deps.sh.
# KAZEIA_ARM_LEVELS (e.g. "neon dotprod") runs a subset of the levels.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
levels=${KAZEIA_ARM_LEVELS:-i8mm dotprod neon scalar}
models='FixtureModel\..*/(qwen3_tiny_q8_0|qwen35_tiny_q4_0)_cpu$'
# Reference-backend (scalar f32) runs of the larger models and state-reuse scenarios: minutes
# each under emulation and no ARM-specific code; the host run covers them.
slow='FixtureModel\..*small.*_ref$|PrefixReuse\.|SessionApi\.|Synthetic'

for tool in aarch64-linux-gnu-g++ qemu-aarch64; do
  command -v "$tool" > /dev/null || {
    echo "test_arm: $tool missing (apt-get install g++-aarch64-linux-gnu qemu-user)" >&2
    exit 1
  }
done

start=$SECONDS
cmake/fetch-aarch64-deps.sh build-aarch64-deps
cmake --preset aarch64-linux > /dev/null
cmake --build --preset aarch64-linux -j "$jobs"
echo "test_arm: build $((SECONDS - start)) s"

summary=()
ctest_arm() {
  ctest --test-dir build-aarch64 --output-on-failure -j "$jobs" --timeout 600 "$@"
}
for level in $levels; do
  t0=$SECONDS
  case $level in
    i8mm)
      QEMU_CPU=max ctest_arm -E "$slow"
      ;;
    dotprod | neon | scalar)
      cpu=max features=
      [ "$level" = dotprod ] && cpu=cortex-a76
      [ "$level" = neon ] && cpu=cortex-a53
      [ "$level" = scalar ] && features=scalar
      export QEMU_CPU=$cpu
      if [ -n "$features" ]; then export KAZEIA_CPU_FEATURES=$features; fi
      ctest_arm -L kernels
      ctest_arm -R "$models"
      unset QEMU_CPU KAZEIA_CPU_FEATURES
      ;;
    *)
      echo "test_arm: unknown level '$level' (i8mm, dotprod, neon, scalar)" >&2
      exit 1
      ;;
  esac
  summary+=("$level $((SECONDS - t0)) s")
done
echo "test_arm: ${summary[*]}; total $((SECONDS - start)) s"
