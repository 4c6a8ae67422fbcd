#include "text/pretokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <string>

#include "base/error.h"

namespace kz {
namespace {

// llama.cpp's whitespace set (`unicode_set_whitespace`, tokenizer.md §3.2 item 5) is the Unicode
// White_Space property. PCRE2 10.42's \s under UCP also matches U+180E (it is in \h), so \s and
// \S are spelled out as this class.
constexpr std::string_view kSpace =
    "\\t-\\r "
    "\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}";

// Adapted regexes from llama.cpp `llm_tokenizer_bpe::llm_tokenizer_bpe`, with \s written as
// [kSpace]. Original (tokenizer.json): (?i:'s|'t|'re|'ve|'m|'ll|'d) as the first alternative.
// qwen2:
//   (?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|
//   ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// qwen35: letter runs also take marks: [^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+ and
//   ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*
std::string pattern(PreTokenizerKind kind) {
  const std::string s(kSpace);
  const bool marks = kind == PreTokenizerKind::kQwen35;
  const std::string letters = marks ? "[\\p{L}\\p{M}]+" : "\\p{L}+";
  const std::string punct = marks ? "\\p{L}\\p{M}\\p{N}" : "\\p{L}\\p{N}";
  return "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"
         "|[^\\r\\n\\p{L}\\p{N}]?" +
         letters +
         "|\\p{N}"
         "| ?[^" +
         s + punct +
         "]+[\\r\\n]*"
         "|[" +
         s +
         "]*[\\r\\n]+"
         "|[" +
         s + "]+(?![^" + s +
         "])"
         "|[" +
         s + "]+";
}

std::string pcre2_message(int code) {
  PCRE2_UCHAR buf[256];
  pcre2_get_error_message(code, buf, sizeof(buf));
  return reinterpret_cast<const char*>(buf);
}

struct MatchDataDeleter {
  void operator()(pcre2_match_data* md) const { pcre2_match_data_free(md); }
};

}  // namespace

void PreTokenizer::CodeDeleter::operator()(pcre2_real_code_8* code) const {
  pcre2_code_free(code);
}

PreTokenizer::PreTokenizer(PreTokenizerKind kind) {
  const std::string re = pattern(kind);
  int err = 0;
  PCRE2_SIZE offset = 0;
  code_.reset(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(re.data()), re.size(),
                            PCRE2_UTF | PCRE2_UCP, &err, &offset, nullptr));
  if (!code_) fail("pre-tokenizer regex: ", pcre2_message(err), " at offset ", offset);
  // Without JIT support pcre2_match interprets the pattern: slower, same result.
  pcre2_jit_compile(code_.get(), PCRE2_JIT_COMPLETE);
}

std::vector<size_t> PreTokenizer::split(std::string_view text) const {
  std::vector<size_t> ends;
  // Match data is per call so that one Tokenizer can encode on several threads at once.
  std::unique_ptr<pcre2_match_data, MatchDataDeleter> md(
      pcre2_match_data_create_from_pattern(code_.get(), nullptr));
  if (!md) fail("pre-tokenizer: out of memory");
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t pos = 0;
  while (pos < text.size()) {
    const int rc =
        pcre2_match(code_.get(), subject, text.size(), pos, PCRE2_NO_UTF_CHECK, md.get(), nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) fail("pre-tokenizer: ", pcre2_message(rc));
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
    // Every code point matches some alternative, so there are no gaps; an unmatched stretch
    // would become a piece of its own, as in llama.cpp `unicode_regex_split_stl`.
    if (ov[0] > pos) ends.push_back(ov[0]);
    if (ov[1] == ov[0]) break;  // cannot happen: every alternative consumes a code point
    ends.push_back(ov[1]);
    pos = ov[1];
  }
  if (pos < text.size()) ends.push_back(text.size());
  return ends;
}

}  // namespace kz
