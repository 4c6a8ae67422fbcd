#!/usr/bin/env bash
# Installs the Debian packages Kazeia-Engine needs to build and test, if any is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev   # tests and micro-benchmarks
  libpcre2-dev                                  # regex oracle of the pre-tokenizer's tests
  clang libclang-rt-14-dev                      # libFuzzer targets (scripts/fuzz.sh)
  unicode-data                                  # scripts/gen_unicode_tables.py's input
  nlohmann-json3-dev                            # fixtures in tests
  libcpp-httplib-dev                            # kazeia serve (HTTP server)
  python3 python3-jinja2                        # chat templates rendered by real Jinja in tests
  openjdk-17-jdk-headless                       # JNI bindings and their Java test
  g++-aarch64-linux-gnu qemu-user               # ARM64 cross build, tests under emulation
  opencl-headers                                # OpenCL backend (the library is loaded at run time)
  ocl-icd-libopencl1 pocl-opencl-icd clinfo     # OpenCL on the CPU (PoCL): the backend's tests
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  "$(dirname "$0")/apt_install.sh" "${missing[@]}"
fi
