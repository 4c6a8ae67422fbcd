// UTF-8 helpers for the tokenizer: the reference implementation's lenient decoder (each invalid
// byte becomes U+FFFD) and a strict validator used by the streaming detokenizer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kz {

inline constexpr uint32_t kReplacementChar = 0xFFFD;

void append_utf8(std::string& out, uint32_t cpt);  // cpt must be <= 0x10FFFF

inline bool is_utf8_continuation(uint8_t b) {
  return (b & 0xC0) == 0x80;
}

// Decodes the code point at s[i] and advances i, like llama.cpp `unicode_cpts_from_utf8`: a byte
// that does not start a sequence of the length its lead announces (with 10xxxxxx continuation
// bytes) is one U+FFFD. Nothing else is checked: overlong forms and surrogates are returned as
// decoded. A 4-byte form above U+10FFFF (llama.cpp then throws) gives U+FFFD. Inline: the
// pre-tokenizer decodes every code point with it.
inline uint32_t next_cpt_lenient(std::string_view s, size_t& i) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(s[i + k]); };
  const size_t left = s.size() - i;
  const uint8_t b0 = b(0);
  uint32_t cpt = kReplacementChar;
  size_t len = 1;
  if (b0 < 0x80) {
    cpt = b0;
  } else if ((b0 & 0xE0) == 0xC0) {
    if (left >= 2 && is_utf8_continuation(b(1))) {
      cpt = ((b0 & 0x1Fu) << 6) | (b(1) & 0x3Fu), len = 2;
    }
  } else if ((b0 & 0xF0) == 0xE0) {
    if (left >= 3 && is_utf8_continuation(b(1)) && is_utf8_continuation(b(2))) {
      cpt = ((b0 & 0x0Fu) << 12) | ((b(1) & 0x3Fu) << 6) | (b(2) & 0x3Fu), len = 3;
    }
  } else if ((b0 & 0xF8) == 0xF0) {
    if (left >= 4 && is_utf8_continuation(b(1)) && is_utf8_continuation(b(2)) &&
        is_utf8_continuation(b(3))) {
      cpt = ((b0 & 0x07u) << 18) | ((b(1) & 0x3Fu) << 12) | ((b(2) & 0x3Fu) << 6) | (b(3) & 0x3Fu);
      len = 4;
      if (cpt > 0x10FFFF) cpt = kReplacementChar;
    }
  }
  i += len;
  return cpt;
}

// Text ready for the pre-tokenizer: decoded with next_cpt_lenient and re-encoded, as llama.cpp
// does before splitting (`unicode_cpt_to_utf8`), so invalid bytes become U+FFFD and overlong
// forms their shortest form. A surrogate is kept in `bpe` (the bytes BPE encodes, as llama.cpp)
// but shown to the splitter as U+FFFD (same length and the same class: neither letter, mark,
// number nor space), so that the view is valid UTF-8, which a regex engine in UTF mode (PCRE2,
// the tests' oracle) requires.
struct RegexInput {
  std::string bpe;
  std::string match;  // empty when identical to `bpe` (no surrogate), the common case
  std::string_view regex_view() const { return match.empty() ? bpe : match; }
};
RegexInput to_regex_input(std::string_view text);

// Strict UTF-8 (RFC 3629: no overlongs, surrogates or values above U+10FFFF).
enum class Utf8Status { kComplete, kIncomplete, kInvalid };
// Examines the sequence starting at s[0] (s non-empty). kComplete / kInvalid set `len` to the
// bytes of the character / of the maximal ill-formed subpart (Unicode §3.9, "U+FFFD substitution
// of maximal subparts"); kIncomplete means `s` ends inside a sequence that could still complete.
Utf8Status next_utf8(std::string_view s, size_t& len);
bool is_valid_utf8(std::string_view s);

}  // namespace kz
