#!/usr/bin/env bash
# fetch-ggml.sh [DIR]: the pinned prebuilt ggml 0.23.0 for ggml:NAME devices on x86-64 Linux, and
# Mesa's software Vulkan driver (lavapipe), so that the ggml driver's tests run a real GPU-class
# device here. The libraries come from the npm package @node-llama-cpp/linux-x64-vulkan@3.21.1
# (libggml-base.so, libggml-vulkan.so, libggml-cpu-*.so: the llama.cpp snapshot of our reference
# build), checked against a pinned SHA-256; they are never committed. Prints the library folder
# (DIR, default build-ggml/ in the repository, ignored by git), to use as KAZEIA_GGML_DIR.
# Vulkan: ggml-vulkan hides CPU-type devices such as lavapipe unless GGML_VK_VISIBLE_DEVICES=0.
set -euo pipefail
cd "$(dirname "$0")/.."
PACKAGE=@node-llama-cpp/linux-x64-vulkan@3.21.1
TARBALL=node-llama-cpp-linux-x64-vulkan-3.21.1.tgz
SHA256=4877be47f01586481615aec277c23c7f660592ce66eec2753ff1dcc967a9a0d2
DIR=${1:-build-ggml}
LIB=$DIR/package/bins/linux-x64-vulkan

need=()
command -v npm >/dev/null || need+=(npm)
ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 || need+=(mesa-vulkan-drivers libvulkan1)
if [ ${#need[@]} -gt 0 ]; then
  echo "fetch-ggml: installing ${need[*]}" >&2
  scripts/apt_install.sh "${need[@]}" >&2
fi

if [ ! -f "$LIB/libggml-base.so" ]; then
  mkdir -p "$DIR"
  [ -f "$DIR/$TARBALL" ] || (cd "$DIR" && npm pack --silent "$PACKAGE" >/dev/null)
  if ! echo "$SHA256  $DIR/$TARBALL" | sha256sum -c --quiet - >&2; then
    echo "fetch-ggml: $DIR/$TARBALL does not have the pinned checksum $SHA256" >&2
    rm -f "$DIR/$TARBALL"
    exit 1
  fi
  tar -xzf "$DIR/$TARBALL" -C "$DIR"
fi
cd "$LIB" && pwd
