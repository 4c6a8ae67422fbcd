// The pre-tokenizer's character classes (tokenizer.md §3.2): General_Category L*, M* and N* of
// UnicodeData.txt, as llama.cpp's unicode-data.cpp, and llama.cpp's whitespace set. The data
// (unicode_tables.cpp) is written by scripts/gen_unicode_tables.py.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace kz {

enum UnicodeFlag : uint8_t {
  kUnicodeLetter = 1,  // \p{L}
  kUnicodeMark = 2,    // \p{M}
  kUnicodeNumber = 4,  // \p{N}
  kUnicodeSpace = 8,   // U+0009-U+000D, U+0020, U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028,
                       // U+2029, U+202F, U+205F, U+3000
};

extern const uint8_t kUnicodeAsciiFlags[128];
// (first code point << 8) | flags, sorted; from U+0000 to a last run starting at U+110000.
extern const uint32_t kUnicodeRuns[];
extern const size_t kUnicodeRunCount;

// The maximal run of code points [first, last] with the flags of `c`. Surrogates, unassigned
// code points and values above U+10FFFF have no flags.
struct UnicodeRun {
  char32_t first;
  char32_t last;
  uint8_t flags;
};

inline UnicodeRun unicode_run(char32_t c) {
  if (c >= 0x110000) return {0x110000, 0xFFFFFFFF, 0};
  const uint32_t* end = kUnicodeRuns + kUnicodeRunCount;
  // The first run starting after c; the run before it holds c.
  const uint32_t* next = std::upper_bound(kUnicodeRuns, end, (uint32_t{c} << 8) | 0xFF);
  return {next[-1] >> 8, (next[0] >> 8) - 1, static_cast<uint8_t>(next[-1] & 0xFF)};
}

inline uint8_t unicode_flags(char32_t c) {
  return c < 0x80 ? kUnicodeAsciiFlags[c] : unicode_run(c).flags;
}

}  // namespace kz
