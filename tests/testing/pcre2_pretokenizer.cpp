#include "testing/pcre2_pretokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "base/error.h"
#include "text/pretokenizer.h"
#include "text/tokenizer_utf8.h"

namespace kz::testing {
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

// Calls on_match(begin, end) for each match, left to right.
template <typename OnMatch>
void each_match(const pcre2_code* code, std::string_view text, OnMatch on_match) {
  // Match data is per call so that one regex can run on several threads at once.
  std::unique_ptr<pcre2_match_data, MatchDataDeleter> md(
      pcre2_match_data_create_from_pattern(code, nullptr));
  if (!md) fail("pcre2: out of memory");
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  for (size_t pos = 0; pos < text.size();) {
    const int rc =
        pcre2_match(code, subject, text.size(), pos, PCRE2_NO_UTF_CHECK, md.get(), nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) return;
    if (rc < 0) fail("pcre2: ", pcre2_message(rc));
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
    if (ov[1] == ov[0]) fail("pcre2: empty match at ", ov[0]);  // none of our patterns can
    on_match(size_t{ov[0]}, size_t{ov[1]});
    pos = ov[1];
  }
}

// Code points that are letters, marks or numbers in Unicode 15.0 (UnicodeData.txt) and new in
// it (DerivedAge.txt: Age=15.0), so unassigned in Unicode 14.0.0 tables: Kawi, Nag Mundari,
// Kaktovik numerals, CJK Extension H, a few marks and letters of older scripts.
constexpr std::pair<char32_t, char32_t> kNewInUnicode15[] = {
    {0xCF3, 0xCF3},     {0xECE, 0xECE},     {0x10EFD, 0x10EFF}, {0x1123F, 0x11241},
    {0x11F00, 0x11F10}, {0x11F12, 0x11F3A}, {0x11F3E, 0x11F42}, {0x11F50, 0x11F59},
    {0x1342F, 0x1342F}, {0x13440, 0x13455}, {0x1B132, 0x1B132}, {0x1B155, 0x1B155},
    {0x1D2C0, 0x1D2D3}, {0x1DF25, 0x1DF2A}, {0x1E030, 0x1E06D}, {0x1E08F, 0x1E08F},
    {0x1E4D0, 0x1E4F9}, {0x2B739, 0x2B739}, {0x31350, 0x323AF},
};

// The pieces, quoted, with bytes outside printable ASCII in hex.
std::string show(std::string_view text, const std::vector<size_t>& ends) {
  std::string out;
  size_t begin = 0;
  for (size_t end : ends) {
    out += '"';
    for (size_t i = begin; i < std::min(end, text.size()); ++i) {
      const auto b = static_cast<uint8_t>(text[i]);
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02X", b);
      out += b >= 0x20 && b < 0x7F && b != '"' && b != '\\' ? std::string(1, char(b)) : hex;
    }
    out += "\" ";
    begin = end;
  }
  return out;
}

// "" if `ends` are contiguous pieces that cover `text`, else what is wrong.
std::string coverage_problem(std::string_view text, const std::vector<size_t>& ends) {
  size_t prev = 0;
  for (size_t end : ends) {
    if (end <= prev) return "empty or backward piece ending at " + std::to_string(end);
    prev = end;
  }
  if (prev != text.size()) {
    return "pieces end at " + std::to_string(prev) + " of " + std::to_string(text.size());
  }
  return "";
}

}  // namespace

void Pcre2Regex::CodeDeleter::operator()(pcre2_real_code_8* code) const {
  pcre2_code_free(code);
}

Pcre2Regex::Pcre2Regex(const std::string& pattern) {
  int err = 0;
  PCRE2_SIZE offset = 0;
  code_.reset(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                            PCRE2_UTF | PCRE2_UCP, &err, &offset, nullptr));
  if (!code_) fail("pcre2: ", pcre2_message(err), " at offset ", offset, " of ", pattern);
  // Without JIT support pcre2_match interprets the pattern: slower, same result.
  pcre2_jit_compile(code_.get(), PCRE2_JIT_COMPLETE);
}

std::vector<std::pair<size_t, size_t>> Pcre2Regex::find_all(std::string_view text) const {
  std::vector<std::pair<size_t, size_t>> matches;
  each_match(code_.get(), text, [&](size_t b, size_t e) { matches.emplace_back(b, e); });
  return matches;
}

std::vector<size_t> Pcre2Regex::split(std::string_view text) const {
  std::vector<size_t> ends;
  ends.reserve(text.size() / 4 + 1);  // as PreTokenizer::split, so that benchmarks compare matching
  each_match(code_.get(), text, [&](size_t b, size_t e) {
    if (b > (ends.empty() ? 0 : ends.back())) ends.push_back(b);
    ends.push_back(e);
  });
  if (!text.empty() && (ends.empty() || ends.back() < text.size())) ends.push_back(text.size());
  return ends;
}

Pcre2Regex pcre2_pretokenizer(PreTokenizerKind kind) {
  return Pcre2Regex(pattern(kind));
}

std::string pcre2_unicode_version() {
  char buf[32] = {};
  pcre2_config(PCRE2_CONFIG_UNICODE_VERSION, buf);
  return buf;
}

bool pcre2_classes_differ(char32_t c) {
  static const bool unicode14 = pcre2_unicode_version() == "14.0.0";
  const auto* it = std::upper_bound(std::begin(kNewInUnicode15), std::end(kNewInUnicode15), c,
                                    [](char32_t x, const auto& r) { return x < r.first; });
  return unicode14 && it != std::begin(kNewInUnicode15) && c <= std::prev(it)->second;
}

std::string pcre2_comparable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const uint32_t c = next_cpt_lenient(text, i);
    append_utf8(out, pcre2_classes_differ(c) ? kReplacementChar : c);
  }
  return out;
}

std::string pretokenizer_mismatch(std::string_view bytes) {
  static const PreTokenizer ours[] = {PreTokenizer(PreTokenizerKind::kQwen2),
                                      PreTokenizer(PreTokenizerKind::kQwen35)};
  static const Pcre2Regex oracle[] = {pcre2_pretokenizer(PreTokenizerKind::kQwen2),
                                      pcre2_pretokenizer(PreTokenizerKind::kQwen35)};
  static const char* const names[] = {"qwen2", "qwen35"};
  const std::string text = pcre2_comparable(to_regex_input(bytes).regex_view());
  for (int k = 0; k < 2; ++k) {
    const std::string name = names[k];
    if (std::string p = coverage_problem(bytes, ours[k].split(bytes)); !p.empty()) {
      return name + " on the raw bytes: " + p;
    }
    const std::vector<size_t> got = ours[k].split(text);
    if (std::string p = coverage_problem(text, got); !p.empty()) return name + ": " + p;
    const std::vector<size_t> want = oracle[k].split(text);
    if (got != want) {
      return name + ":\n  ours:  " + show(text, got) + "\n  pcre2: " + show(text, want);
    }
  }
  return "";
}

}  // namespace kz::testing
