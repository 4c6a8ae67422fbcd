#!/usr/bin/env bash
# ARM64 under emulation: cross-builds the aarch64-linux preset (CMakePresets.json,
# cmake/aarch64-linux-gnu.toolchain.cmake) into build-aarch64, then runs the tests with
# qemu-aarch64 user emulation once per CPU feature level. qemu's CPU model (QEMU_CPU) sets the
# features the kernels see through getauxval, and an instruction the model lacks faults, so a
# level cannot silently run a kernel it should not:
#
#   level    QEMU_CPU      features seen                     tests
#   max      max           neon dotprod i8mm fp16 (+ SVE)    the suite, less what cannot run or
#                                                            is too slow under emulation (below);
#                                                            the only level running the i8mm
#                                                            (block-sum order) Q4_0/Q8_0 kernels
#   dotprod  cortex-a76    neon dotprod fp16                 kernels + 2 fixture models; Q4_0/Q8_0
#                                                            by the dotprod (AVX2-order) kernels
#   neon     cortex-a53    neon (ARMv8.0)                    kernels + 2 fixture models
#   scalar   max, KAZEIA_CPU_FEATURES=scalar                 kernels + 2 fixture models
#
# The two fixture models, one per architecture, on the cpu backend: qwen3-tiny-q8_0 and
# qwen35-tiny-q4_0; the max level adds qwen3-small-q8_0, qwen3-small-q4_k_m and
# qwen35-small-q4_k_m (K-quants, Q6_K, Q8_0, larger heads) on the cpu backend.
# Left out at the max level (minutes each under emulation, and nothing ARM-specific that the
# kept tests do not run):
# - the reference-backend (scalar f32) runs of the larger fixture models, and the other two
#   qwen35-small cpu runs in both kernel orders (the kernels they use are covered above);
# - the Q8_0-cache model comparisons other than the tiny models on cpu (the NEON Q8_0 attention
#   is checked op by op in test_kernels);
# - the state-reuse scenarios (PrefixReuse, SessionApi) and the speculative sessions with an MTP
#   head (the n-gram ones stay: they run the verify batches): the host run covers them;
# - the oracle's no-false-alarm runs on qwen35_small_q4_0 and _q8_0 (their kernels run in the
#   kept oracle runs: qwen35 tiny Q4_0, qwen3 small Q8_0, the K-quant models), and the reference
#   backend's PyTorch parity on the kjv model (scalar f32 code, no ARM kernel; the cpu backend's
#   parity stays);
# - the injected-fault bisections on the larger models (the tiny one stays) and the every-mix
#   quantizer check (QuantizeModel.EveryTensorHoldsTheQuantizersBytes: scalar file quantizers;
#   QuantFixture checks every block quantizer bit for bit), and the synthetic-model writer's
#   tests (Synthetic: portable code);
# - the tests that start the aarch64 `kazeia` binary as a child process (that needs qemu
#   registered with binfmt_misc): every suite of a test file that includes testing/cli_runner.h,
#   found in the sources so that a new one is left out too; ModelFile* (a death test that
#   re-executes the binary, and an address-space limit that applies to qemu itself), soak_short
#   (the host's code, ~20x slower emulated) and valgrind (a host tool).
# Everything here is emulated: correctness, not speed.
#
# After the build it checks the libraries' run-time dependencies (scripts/check_needed.sh) and
# lays out the Android package from this build (scripts/package_android.sh, into out/android).
# Needs g++-aarch64-linux-gnu and qemu-user (scripts/setup.sh installs them) and Debian's arm64
# PCRE2 (the tests' pre-tokenizer oracle) and GoogleTest packages, unpacked into
# build-aarch64-deps by cmake/fetch-aarch64-deps.sh.
# KAZEIA_ARM_LEVELS (e.g. "neon dotprod") runs a subset of the levels.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
levels=${KAZEIA_ARM_LEVELS:-max dotprod neon scalar}
# CTest names of parameterized tests end in " # GetParam() = ...".
models='FixtureModel\..*/(qwen3_tiny_q8_0|qwen35_tiny_q4_0)_cpu( |$)'
cli_suites=$(grep -rl --include='*.cpp' 'testing/cli_runner.h' tests |
  xargs sed -n 's/^TEST\(_F\|_P\)\?(\([A-Za-z0-9_]*\),.*/\2/p' | sort -u | paste -sd '|')
left_out='FixtureModel\..*(small.*_ref|qwen35_small_q[48]_0_cpu(_reference_order)?)( |$)|KvCacheQ8_0\..*(_ref|small_[a-z0-9_]*)( |$)|PrefixReuse\.|SessionApi\.|SpeculativeSession\..*_mtp_|InjectedFault\..*_small_|^QuantizeModel\.EveryTensor|Synthetic|^ModelFile|^soak_short$'
left_out+='|HealthyOracle\..*qwen35_small_q(4|8)_0( |$)|^PyTorchParity\.RefBackend|MtpParity\.RefBackend.*/kjv( |$)'
left_out+="|^($cli_suites)\\."


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
t0=$SECONDS
scripts/check_needed.sh build-aarch64
scripts/package_android.sh build-aarch64 out/android  # stripped, checked: the app's package
echo "test_arm: package $((SECONDS - t0)) s"

summary=()
ctest_arm() {
  ctest --test-dir build-aarch64 --output-on-failure -j "$jobs" --timeout 600 "$@"
}
for level in $levels; do
  t0=$SECONDS
  case $level in
    max)
      QEMU_CPU=max ctest_arm -LE valgrind -E "$left_out"
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
      echo "test_arm: unknown level '$level' (max, dotprod, neon, scalar)" >&2
      exit 1
      ;;
  esac
  summary+=("$level $((SECONDS - t0)) s")
done
echo "test_arm: ${summary[*]}; total $((SECONDS - start)) s"
