// Whether this test program is built with AddressSanitizer (clang or GCC): what such a build
// cannot check the same way (its allocator keeps freed memory in a quarantine, so RSS grows by
// design; its leak checker covers leaks instead).
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define KZ_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KZ_TEST_ASAN 1
#endif
#endif

namespace kz::testing {
#ifdef KZ_TEST_ASAN
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
}  // namespace kz::testing
