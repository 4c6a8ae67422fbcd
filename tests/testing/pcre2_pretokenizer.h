// PCRE2 as the pre-tokenizer's test oracle: the qwen2 / qwen35 regexes of tokenizer.md §3.2 run
// by a regex engine, against which the hand-written matcher (text/pretokenizer.h) is checked by
// the differential test, the fuzz target and the benchmark. The library itself has no PCRE2.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text/vocab.h"

struct pcre2_real_code_8;

namespace kz::testing {

// A pattern compiled with UTF + UCP (Unicode properties for \p{..}), JIT when available. Texts
// must be valid UTF-8 without surrogates (PCRE2 refuses them; they are not checked).
class Pcre2Regex {
 public:
  explicit Pcre2Regex(const std::string& pattern);

  // The matches [begin, end) in bytes, left to right, as a global search finds them.
  std::vector<std::pair<size_t, size_t>> find_all(std::string_view text) const;
  // As PreTokenizer::split: the end of each match and of each gap between matches (a gap is a
  // piece of its own, as in llama.cpp `unicode_regex_split_stl`).
  std::vector<size_t> split(std::string_view text) const;

 private:
  struct CodeDeleter {
    void operator()(pcre2_real_code_8* code) const;
  };
  std::unique_ptr<pcre2_real_code_8, CodeDeleter> code_;
};

// The kind's regex of tokenizer.md §3.2, with \s and \S spelled out as llama.cpp's whitespace
// set (PCRE2's \s under UCP also matches U+180E).
Pcre2Regex pcre2_pretokenizer(PreTokenizerKind kind);

// The Unicode version of PCRE2's character tables, e.g. "14.0.0" for PCRE2 10.42.
std::string pcre2_unicode_version();

// Whether PCRE2's tables may class `c` (letter, mark, number or none) other than
// text/unicode_tables.h: the code points that became letters, marks or numbers in Unicode 15.0
// when PCRE2's tables are 14.0.0.
bool pcre2_classes_differ(char32_t c);

// `text` (valid UTF-8) with each code point of pcre2_classes_differ replaced by U+FFFD (a
// symbol for both), so that the two splitters can be compared on it.
std::string pcre2_comparable(std::string_view text);

// Splits `bytes` as the tokenizer does (to_regex_input), then through pcre2_comparable, with
// PreTokenizer and with the oracle, for both kinds, and checks that the pieces are the same,
// contiguous and cover the text; the raw bytes too must split into covering pieces. Returns ""
// or a description of the first problem.
std::string pretokenizer_mismatch(std::string_view bytes);

}  // namespace kz::testing
