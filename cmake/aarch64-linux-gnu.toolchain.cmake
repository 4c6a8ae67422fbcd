# Cross-compiling for 64-bit ARM Linux with Debian's GNU cross toolchain (apt: g++-aarch64-linux-gnu
# qemu-user). Test binaries run under qemu-aarch64 user emulation through
# CMAKE_CROSSCOMPILING_EMULATOR, so gtest_discover_tests and ctest work unchanged; QEMU_CPU picks
# the emulated core (scripts/test_arm.sh).
#
# The tests' own libraries (GoogleTest, PCRE2) come from Debian's arm64 packages unpacked into
# KAZEIA_AARCH64_DEPS by cmake/fetch-aarch64-deps.sh: a plain folder searched as an extra root,
# so nothing is installed into the host system and dpkg's architecture list is left alone.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# -L: where qemu finds the target's dynamic loader and libc.
set(KAZEIA_AARCH64_LIBC_ROOT /usr/aarch64-linux-gnu)
set(CMAKE_CROSSCOMPILING_EMULATOR "qemu-aarch64;-L;${KAZEIA_AARCH64_LIBC_ROOT}")

# The dependency root: a cache variable (the aarch64-linux preset sets it), else the environment.
if(NOT KAZEIA_AARCH64_DEPS AND DEFINED ENV{KAZEIA_AARCH64_DEPS})
  set(KAZEIA_AARCH64_DEPS "$ENV{KAZEIA_AARCH64_DEPS}")
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES KAZEIA_AARCH64_DEPS)

set(CMAKE_FIND_ROOT_PATH ${KAZEIA_AARCH64_LIBC_ROOT})
if(KAZEIA_AARCH64_DEPS)
  list(APPEND CMAKE_FIND_ROOT_PATH "${KAZEIA_AARCH64_DEPS}")
  # pkg-config (PCRE2) must read the target's .pc files only, and prefix their paths with the root.
  set(ENV{PKG_CONFIG_LIBDIR}
      "${KAZEIA_AARCH64_DEPS}/usr/lib/aarch64-linux-gnu/pkgconfig:${KAZEIA_AARCH64_DEPS}/usr/share/pkgconfig")
  set(ENV{PKG_CONFIG_SYSROOT_DIR} "${KAZEIA_AARCH64_DEPS}")
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
