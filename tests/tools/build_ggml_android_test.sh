#!/usr/bin/env bash
# scripts/build-ggml-android.sh without the NDK or the SDKs (--print): the cmake command it
# composes for each set of SDKs, and the jniLibs layout it writes; no NDK is a one-line error.
set -euo pipefail
script=$(dirname "$0")/../../scripts/build-ggml-android.sh
fail() { echo "FAIL: $*" >&2; exit 1; }
has() { grep -qF -- "$2" <<< "$1" || fail "missing '$2' in: $1"; }
hasnt() { ! grep -qF -- "$2" <<< "$1" || fail "unexpected '$2' in: $1"; }

plain=$(ANDROID_NDK_ROOT=/ndk "$script" --print /out)
has "$plain" "-DCMAKE_TOOLCHAIN_FILE=/ndk/build/cmake/android.toolchain.cmake"
has "$plain" "-DANDROID_ABI=arm64-v8a"
has "$plain" "-DGGML_BACKEND_DL=ON"
has "$plain" "+dotprod+i8mm"
hasnt "$plain" "GGML_HEXAGON"
hasnt "$plain" "fast"
[ "$(grep -c '^/out/jniLibs/arm64-v8a/' <<< "$plain")" = 2 ] || fail "plain layout: $plain"

full=$(ANDROID_NDK_ROOT=/ndk HEXAGON_SDK_ROOT=/hex HEXAGON_TOOLS_ROOT=/tools OPENCL_SDK_ROOT=/ocl \
  "$script" --print /out)
has "$full" "-DGGML_HEXAGON=ON -DHEXAGON_SDK_ROOT=/hex -DHEXAGON_TOOLS_ROOT=/tools"
has "$full" "-DGGML_OPENCL=ON -DGGML_OPENCL_USE_ADRENO_KERNELS=ON"
has "$full" "/out/jniLibs/arm64-v8a/libggml-htp-v79.so"
has "$full" "/out/jniLibs/arm64-v8a/libggml-hexagon.so"
has "$full" "/out/jniLibs/arm64-v8a/libggml-opencl.so"

err=$(env -u ANDROID_NDK_ROOT "$script" --print /out 2>&1 >/dev/null) && fail "no NDK: exit 0"
[ "$err" = "build-ggml-android: set ANDROID_NDK_ROOT" ] || fail "no NDK: '$err'"
echo "build_ggml_android_test: ok"
