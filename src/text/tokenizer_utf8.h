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

// Decodes the code point at s[i] and advances i, like llama.cpp `unicode_cpts_from_utf8`: a byte
// that does not start a sequence of the length its lead announces (with 10xxxxxx continuation
// bytes) is one U+FFFD. Nothing else is checked: overlong forms and surrogates are returned as
// decoded. A 4-byte form above U+10FFFF (llama.cpp then throws) gives U+FFFD.
uint32_t next_cpt_lenient(std::string_view s, size_t& i);

// Text ready for the pre-tokenizer regex: decoded with next_cpt_lenient and re-encoded, as
// llama.cpp does before splitting (`unicode_cpt_to_utf8`), so invalid bytes become U+FFFD and
// overlong forms their shortest form. A surrogate is kept in `bpe` (the bytes BPE encodes, as
// llama.cpp) but shown to the regex as U+FFFD (same length and the same class: neither letter,
// number nor space), because PCRE2 refuses surrogates in UTF mode.
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
