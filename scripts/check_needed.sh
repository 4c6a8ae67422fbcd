#!/usr/bin/env bash
# The engine's shared libraries may need only the C and C++ run-times: an Android app ships
# exactly what its APK holds, so any other run-time dependency (a regex library, the JVM, a GPU
# driver) is a load failure on the device. This reads the NEEDED entries (`readelf -d`) of
# libkazeia.so and of the JNI library, prints them, and fails on anything outside:
#
#   glibc builds   libc.so.*, libm.so.*, libdl.so.*, libpthread.so.*, ld-linux*,
#                  libstdc++.so.*, libgcc_s.so.*
#   Android        libc.so, libm.so, libdl.so, libc++_shared.so, liblog.so
#   the engine's   libkazeia.so[.N] (what the JNI library is built on)
#
# OpenCL is opened with dlopen at run time and the JVM provides the JNI functions at load time,
# so neither libOpenCL nor libjvm/libjava may ever be NEEDED.
#
# Usage: scripts/check_needed.sh BUILD_DIR|LIB.so...
#   BUILD_DIR: a CMake build (its bindings/ folder is read) or a folder holding the libraries.
#   LIB.so:    a library checked as given.
# A build without libkazeia.so fails; one without the JNI library passes with a note when it was
# configured with KAZEIA_BUILD_JNI=OFF (the aarch64-linux preset), and fails when it was not.
set -euo pipefail

readelf=
for tool in readelf llvm-readelf aarch64-linux-gnu-readelf; do
  if command -v "$tool" > /dev/null; then
    readelf=$tool
    break
  fi
done
if [ -z "$readelf" ]; then
  echo "check_needed: no readelf (apt-get install binutils)" >&2
  exit 2
fi
if [ $# -eq 0 ]; then
  echo "usage: scripts/check_needed.sh BUILD_DIR|LIB.so..." >&2
  exit 2
fi

allowed() {  # $1: a NEEDED entry
  case $1 in
    libc.so | libc.so.* | libm.so | libm.so.* | libdl.so | libdl.so.*) return 0 ;;
    libpthread.so.* | ld-linux* | libstdc++.so.* | libgcc_s.so.*) return 0 ;;
    libc++_shared.so | liblog.so) return 0 ;;
    libkazeia.so | libkazeia.so.[0-9]*) return 0 ;;
  esac
  return 1
}

why() {  # $1: a NEEDED entry that is not allowed
  case $1 in
    libjvm.so* | libjava.so* | libjsig.so*)
      echo "the JVM provides the JNI functions at load time; never link the JVM" ;;
    libOpenCL.so*)
      echo "OpenCL is opened with dlopen at run time (src/backend/opencl), never linked" ;;
    libc++.so*)
      echo "the system's libc++ is not the NDK's; use ANDROID_STL=c++_static or c++_shared" ;;
    *)
      echo "a third-party run-time dependency; allowed are libc, libm, libdl, libpthread," \
        "ld-linux, the C++ run-time (libstdc++/libgcc_s, Android: libc++_shared) and liblog" ;;
  esac
}

checked=0
failures=0
check_lib() {  # $1: a shared library
  local lib=$1 header dyn machine needed entry
  if ! header=$("$readelf" -h "$lib" 2> /dev/null); then
    echo "check_needed: FAIL $lib: not an ELF file"
    failures=$((failures + 1))
    return
  fi
  machine=$(sed -n 's/^ *Machine: *//p' <<< "$header")
  dyn=$("$readelf" -d "$lib")
  needed=$(sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' <<< "$dyn" | paste -sd ' ' -)
  echo "check_needed: $lib ($machine) needs: ${needed:-nothing}"
  checked=$((checked + 1))
  for entry in $needed; do
    if ! allowed "$entry"; then
      echo "check_needed: FAIL $lib needs $entry: $(why "$entry")"
      failures=$((failures + 1))
    fi
  done
}

check_dir() {  # $1: a build folder or a folder holding the libraries
  local dir=$1 libdir=$1 jni_option
  [ -d "$dir/bindings" ] && libdir=$dir/bindings
  if [ -e "$libdir/libkazeia.so" ]; then
    check_lib "$(readlink -f "$libdir/libkazeia.so")"
  else
    echo "check_needed: FAIL $dir: no libkazeia.so in $libdir (target kazeia_shared not built)"
    failures=$((failures + 1))
  fi
  if [ -e "$libdir/libkazeia_jni.so" ]; then
    check_lib "$(readlink -f "$libdir/libkazeia_jni.so")"
    return
  fi
  jni_option=
  if [ -f "$dir/CMakeCache.txt" ]; then
    jni_option=$(sed -n 's/^KAZEIA_BUILD_JNI:BOOL=//p' "$dir/CMakeCache.txt")
  fi
  case $jni_option in
    OFF | off | 0 | FALSE | false | NO | no)
      echo "check_needed: note: $dir has no libkazeia_jni.so (KAZEIA_BUILD_JNI=OFF): not checked" ;;
    *)
      echo "check_needed: FAIL $dir: no libkazeia_jni.so in $libdir (target kazeia_jni not built)"
      failures=$((failures + 1)) ;;
  esac
}

for arg in "$@"; do
  if [ -d "$arg" ]; then
    check_dir "${arg%/}"
  elif [ -f "$arg" ]; then
    check_lib "$arg"
  else
    echo "check_needed: FAIL $arg: no such build folder or library"
    failures=$((failures + 1))
  fi
done

if [ "$failures" -gt 0 ]; then
  echo "check_needed: $failures failure(s) in $checked librar$([ "$checked" = 1 ] && echo y || echo ies)"
  exit 1
fi
echo "check_needed: OK, $checked librar$([ "$checked" = 1 ] && echo y || echo ies) need only the C/C++ run-time"
