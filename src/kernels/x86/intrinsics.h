// <immintrin.h> for the x86 kernels; include this instead of it.
#pragma once

// GCC 12 warns "'__Y' (may be) used uninitialized" inside its own avx512fintrin.h wherever an
// intrinsic built on _mm512_undefined_* (min, max, shifts, casts, conversions...) is inlined: GCC
// PR 105593, a false positive in the compiler's header, fixed in GCC 13. Too many intrinsics to
// avoid; ignored for the header's own lines only, so that our code keeps both warnings.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif
