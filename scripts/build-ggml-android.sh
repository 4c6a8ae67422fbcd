#!/usr/bin/env bash
# build-ggml-android.sh [--print] OUT: builds the pinned ggml (0.23.0, the llama.cpp snapshot of
# our reference build) for Android arm64-v8a, each backend a library of its own
# (GGML_BACKEND_DL, loaded by kazeia's ggml driver at run time), and lays the libraries out as
# the app's jniLibs: OUT/jniLibs/arm64-v8a/ (docs/android.md, "ggml devices").
#   libggml-base.so, libggml-cpu.so          always
#   libggml-opencl.so                        Adreno, with OPENCL_SDK_ROOT (headers + loader)
#   libggml-hexagon.so, libggml-htp-v*.so    the Hexagon NPU, with HEXAGON_SDK_ROOT and
#                                            HEXAGON_TOOLS_ROOT (v79: Snapdragon 8 Elite)
#   libggml-vulkan.so                        with GGML_ANDROID_VULKAN=1 (needs glslc)
# Environment: ANDROID_NDK_ROOT (required), GGML_SRC (default ../reference/llama.cpp, as
# ../shared/tools/build-reference.sh clones it), ANDROID_PLATFORM (default android-31).
# --print: print the commands and the layout, run nothing (works without the SDKs).
set -euo pipefail
cd "$(dirname "$0")/.."
print=0
if [ "${1:-}" = --print ]; then print=1; shift; fi
[ $# -eq 1 ] || { echo "usage: $0 [--print] OUT" >&2; exit 2; }
OUT=$1
SRC=${GGML_SRC:-../reference/llama.cpp}
BUILD=build-ggml-android
[ -n "${ANDROID_NDK_ROOT:-}" ] || { echo "build-ggml-android: set ANDROID_NDK_ROOT" >&2; exit 1; }

args=(-S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_TOOLCHAIN_FILE="$ANDROID_NDK_ROOT/build/cmake/android.toolchain.cmake"
  -DANDROID_ABI=arm64-v8a -DANDROID_PLATFORM="${ANDROID_PLATFORM:-android-31}"
  # The Oryon cores: Armv8.7 with dotprod and i8mm, no SVE; no fast-math (the oracle checks).
  -DCMAKE_C_FLAGS="-march=armv8.7a+fp16+dotprod+i8mm" -DCMAKE_CXX_FLAGS="-march=armv8.7a+fp16+dotprod+i8mm"
  -DGGML_BACKEND_DL=ON -DGGML_NATIVE=OFF -DGGML_OPENMP=OFF -DGGML_LLAMAFILE=OFF
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF
  -DLLAMA_BUILD_SERVER=OFF -DLLAMA_OPENSSL=OFF)
libs=(libggml-base.so libggml-cpu.so)
if [ -n "${OPENCL_SDK_ROOT:-}" ]; then
  args+=(-DGGML_OPENCL=ON -DGGML_OPENCL_USE_ADRENO_KERNELS=ON -DCMAKE_PREFIX_PATH="$OPENCL_SDK_ROOT")
  libs+=(libggml-opencl.so)
fi
if [ -n "${HEXAGON_SDK_ROOT:-}" ]; then
  args+=(-DGGML_HEXAGON=ON -DHEXAGON_SDK_ROOT="$HEXAGON_SDK_ROOT"
    -DHEXAGON_TOOLS_ROOT="${HEXAGON_TOOLS_ROOT:?set HEXAGON_TOOLS_ROOT with HEXAGON_SDK_ROOT}"
    -DPREBUILT_LIB_DIR=android_aarch64)
  libs+=(libggml-hexagon.so libggml-htp-v73.so libggml-htp-v75.so libggml-htp-v79.so libggml-htp-v81.so)
fi
if [ "${GGML_ANDROID_VULKAN:-0}" = 1 ]; then
  args+=(-DGGML_VULKAN=ON)
  libs+=(libggml-vulkan.so)
fi

dest=$OUT/jniLibs/arm64-v8a
if [ $print = 1 ]; then
  printf 'cmake'; printf ' %q' "${args[@]}"; printf '\n'
  echo "cmake --build $BUILD --target ggml"
  for l in "${libs[@]}"; do echo "$dest/$l"; done
  exit 0
fi
[ -f "$SRC/ggml/CMakeLists.txt" ] || { echo "build-ggml-android: no ggml in $SRC (run ../shared/tools/build-reference.sh)" >&2; exit 1; }
cmake "${args[@]}"
cmake --build "$BUILD" --target ggml
mkdir -p "$dest"
for l in "${libs[@]}"; do
  f=$(find "$BUILD" -name "$l" -print -quit)
  [ -n "$f" ] || { echo "build-ggml-android: $l was not built" >&2; exit 1; }
  "$ANDROID_NDK_ROOT"/toolchains/llvm/prebuilt/linux-x86_64/bin/llvm-strip -o "$dest/$l" "$f"
done
echo "build-ggml-android: ${#libs[@]} libraries in $dest"
