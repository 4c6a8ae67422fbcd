// The hand-written pre-tokenizer (text/pretokenizer.h) against PCRE2 running the same regexes
// (testing/pcre2_pretokenizer.h): the character tables code point by code point, then the
// pieces of pseudo-random text from every class, of all pairs of representative code points,
// of the tokenizer fixtures' inputs and of the fuzz seed corpus, for qwen2 and qwen35.
//
// Where PCRE2's Unicode tables (14.0.0 in PCRE2 10.42) are older than ours (15.0.0), the code
// points that changed class are replaced by U+FFFD before comparing (pcre2_comparable): there
// PCRE2 is the one that is wrong, the reference's tables being 15.x.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "testing/pcre2_pretokenizer.h"
#include "text/tokenizer_utf8.h"
#include "text/unicode_tables.h"
#include "tokenizer_fixtures.h"

namespace kz {
namespace {

using testing::pretokenizer_mismatch;

constexpr char32_t kSpaces[] = {0x09,   0x0A,   0x0B,   0x0C,   0x0D,   0x20,   0x85,
                                0xA0,   0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004,
                                0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200A, 0x2028,
                                0x2029, 0x202F, 0x205F, 0x3000};

std::string utf8(std::initializer_list<char32_t> cpts) {
  std::string s;
  for (char32_t c : cpts) append_utf8(s, c);
  return s;
}

// Checks every input, reporting the first few mismatches in full.
void expect_agree(const std::vector<std::string>& inputs, const std::string& what) {
  int failures = 0;
  for (size_t i = 0; i < inputs.size() && failures < 5; ++i) {
    const std::string problem = pretokenizer_mismatch(inputs[i]);
    if (!problem.empty()) {
      ++failures;
      ADD_FAILURE() << what << " input " << i << ": " << problem;
    }
  }
}

TEST(UnicodeTables, RunsAreWellFormed) {
  ASSERT_GT(kUnicodeRunCount, 2u);
  EXPECT_EQ(kUnicodeRuns[0] >> 8, 0u);
  EXPECT_EQ(kUnicodeRuns[kUnicodeRunCount - 1], 0x110000u << 8);
  for (size_t i = 1; i < kUnicodeRunCount; ++i) {
    ASSERT_LT(kUnicodeRuns[i - 1] >> 8, kUnicodeRuns[i] >> 8) << i;
    // Maximal runs, up to the one above U+10FFFF.
    if (i + 1 < kUnicodeRunCount) {
      ASSERT_NE(kUnicodeRuns[i - 1] & 0xFF, kUnicodeRuns[i] & 0xFF) << i;
    }
  }
  for (char32_t c = 0; c < 0x80; ++c) EXPECT_EQ(kUnicodeAsciiFlags[c], unicode_run(c).flags);
  for (char32_t c : {0u, 0x7Fu, 0x4E00u, 0x10FFFFu, 0x110000u, 0xFFFFFFFFu}) {
    const UnicodeRun r = unicode_run(c);
    EXPECT_LE(r.first, c);
    EXPECT_GE(r.last, c);
  }
}

TEST(UnicodeTables, SpacesAreLlamaCppSet) {
  std::vector<char32_t> spaces;
  for (char32_t c = 0; c < 0x110000; ++c) {
    if (unicode_flags(c) & kUnicodeSpace) spaces.push_back(c);
  }
  EXPECT_EQ(spaces, std::vector<char32_t>(std::begin(kSpaces), std::end(kSpaces)));
}

TEST(UnicodeTables, Examples) {
  EXPECT_EQ(unicode_flags('a'), kUnicodeLetter);
  EXPECT_EQ(unicode_flags(0x4E00), kUnicodeLetter);   // CJK, a <First>/<Last> range
  EXPECT_EQ(unicode_flags(0xAC01), kUnicodeLetter);   // Hangul syllable, another range
  EXPECT_EQ(unicode_flags(0x323AF), kUnicodeLetter);  // last of CJK Extension H (15.0)
  EXPECT_EQ(unicode_flags(0x0301), kUnicodeMark);
  EXPECT_EQ(unicode_flags(0xFE0F), kUnicodeMark);  // variation selector (emoji presentation)
  EXPECT_EQ(unicode_flags(0x0663), kUnicodeNumber);
  EXPECT_EQ(unicode_flags(0x2167), kUnicodeNumber);  // Roman numeral eight (Nl)
  EXPECT_EQ(unicode_flags(0x00B2), kUnicodeNumber);  // superscript two (No)
  EXPECT_EQ(unicode_flags(0x3000), kUnicodeSpace);
  for (uint32_t c : {0x21u, 0x180Eu, 0x200Bu, 0xD800u, 0xE000u, 0xFFFDu, 0x1F600u}) {
    EXPECT_EQ(unicode_flags(c), 0) << std::hex << c;
  }
}

// Every code point's letter / mark / number class against PCRE2's \p{L}, \p{M}, \p{N}; the only
// differences allowed are the code points new in PCRE2's newer Unicode (pcre2_classes_differ).
TEST(UnicodeTables, ClassesMatchPcre2) {
  std::string all;
  for (char32_t c = 0; c < 0x110000; ++c) {
    if (c < 0xD800 || c > 0xDFFF) append_utf8(all, c);
  }
  std::vector<uint8_t> pcre2(0x110000, 0);
  const std::pair<const char*, uint8_t> classes[] = {
      {"\\p{L}+", kUnicodeLetter}, {"\\p{M}+", kUnicodeMark}, {"\\p{N}+", kUnicodeNumber}};
  for (const auto& [pattern, flag] : classes) {
    for (auto [begin, end] : testing::Pcre2Regex(pattern).find_all(all)) {
      for (size_t i = begin; i < end;) pcre2[next_cpt_lenient(all, i)] |= flag;
    }
  }
  const uint8_t lmn = kUnicodeLetter | kUnicodeMark | kUnicodeNumber;
  int differences = 0, reported = 0;
  for (char32_t c = 0; c < 0x110000; ++c) {
    const bool differ = (unicode_flags(c) & lmn) != pcre2[c];
    differences += differ;
    if (differ != testing::pcre2_classes_differ(c) && reported++ < 10) {
      ADD_FAILURE() << "U+" << std::hex << uint32_t{c} << ": ours " << int{unicode_flags(c)}
                    << ", PCRE2 (Unicode " << testing::pcre2_unicode_version() << ") "
                    << int{pcre2[c]};
    }
  }
  RecordProperty("differences", differences);
}

// Pseudo-random text (a fixed seed, the same on every run) built from tokens of every class.
class TextGen {
 public:
  explicit TextGen(uint32_t seed) : state_(seed) {
    for (size_t i = 0; i + 1 < kUnicodeRunCount; ++i) {
      const uint8_t f = kUnicodeRuns[i] & 0xFF;
      const Run r{kUnicodeRuns[i] >> 8, kUnicodeRuns[i + 1] >> 8};
      if (f == kUnicodeLetter) letters_.push_back(r);
      if (f == kUnicodeMark) marks_.push_back(r);
      if (f == kUnicodeNumber) numbers_.push_back(r);
      if (f == 0) others_.push_back(r);
    }
  }

  std::string text() {
    std::string s;
    for (int n = 1 + pick(24); n > 0; --n) s += token();
    return s;
  }

 private:
  struct Run {
    char32_t first, end;
  };

  uint32_t pick(uint32_t n) {  // xorshift32: the same sequence with every standard library
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return state_ % n;
  }
  template <typename T, size_t N>
  const T& one_of(const T (&items)[N]) {
    return items[pick(N)];
  }
  char32_t from(const std::vector<Run>& runs) {
    const Run& r = runs[pick(runs.size())];
    return r.first + pick(r.end - r.first);
  }

  std::string token() {
    static const char* const words[] = {
        "hello",           "World",    "THE",     "naïve",    "cœur",   "garçon",   "Straße",
        "e\u0301te\u0301", "ελληνικά", "русский", "مرحبا",    "بِسْمِ",    "שָׁלוֹם",     "नमस्ते",
        "हिन्दी",           "ภาษาไทย",  "中文",    "你好世界", "日本語", "ひらがな", "カタカナ",
        "한국어",          "ǅemal",    "x",       "I"};
    static const char* const numbers[] = {"0", "7", "42", "2024", "٣", "١٢",   "०९",   "１２",
                                          "²", "¼", "Ⅻ",  "①",    "𝟗", "3.14", "1,000"};
    static const char* const puncts[] = {
        ".", ",", "!", "?", "...", "\"", "(", ")", "[", "]", "{", "}",  "-",  "_",  "/", "\\",
        "@", "#", "$", "%", "&",   "*",  "+", "=", "<", ">", "~", "`",  "|",  ";",  ":", "«",
        "»", "“", "”", "—", "…",   "€",  "©", "°", "×", "§", "•", "、", "。", "！", "؟", "।"};
    static const char* const contractions[] = {"'s",  "'S", "'t", "'T",  "'re", "'RE", "'rE", "'ve",
                                               "'Ve", "'m", "'M", "'ll", "'LL", "'lL", "'d",  "'D",
                                               "'",   "''", "'x", "'r",  "'l",  "'v"};
    static const char* const emoji[] = {"😀",
                                        "👍🏽",
                                        "👨‍👩‍👧",
                                        "❤️",
                                        "🇫🇷",
                                        "1️⃣",
                                        "🧑🏿‍💻",
                                        "\uFFFD",
                                        "\xFF",
                                        "\xC3",
                                        "\xE4\xB8",
                                        "\xED\xA0\x80",
                                        "\xF4\x90\x80\x80",
                                        "\xC0\xAF"};
    static const char* const newlines[] = {"\n", "\r", "\r\n", "\n\n", "\r\n\r\n", " \n", "\n "};
    switch (pick(12)) {
      case 0:
      case 1:
        return one_of(words);
      case 2: {  // letters of any script, some with marks
        std::string s;
        for (int n = 1 + pick(4); n > 0; --n) {
          append_utf8(s, from(letters_));
          if (pick(3) == 0) append_utf8(s, from(marks_));
        }
        return s;
      }
      case 3:
        return pick(2) ? one_of(numbers) : utf8({from(numbers_)});
      case 4:
        return pick(3) ? one_of(puncts) : utf8({from(others_)});
      case 5: {  // spaces of every kind, runs of them
        std::string s;
        for (int n = 1 + pick(3); n > 0; --n) append_utf8(s, pick(2) ? ' ' : one_of(kSpaces));
        return s;
      }
      case 6:
        return one_of(newlines);
      case 7:
        return one_of(contractions);
      case 8:
        return one_of(emoji);
      case 9:
        return utf8({from(marks_)});
      default:
        return " ";
    }
  }

  uint32_t state_;
  std::vector<Run> letters_, marks_, numbers_, others_;
};

TEST(PreTokenizerDiff, RandomText) {
  TextGen gen(20240611);
  std::vector<std::string> inputs;
  for (int i = 0; i < 20000; ++i) inputs.push_back(gen.text());
  expect_agree(inputs, "random");
}

// Every ordered pair of representative code points, alone and between letters: the decisions
// that look one code point ahead.
TEST(PreTokenizerDiff, AllPairs) {
  std::vector<char32_t> cpts(std::begin(kSpaces), std::end(kSpaces));
  for (char32_t c :
       {U'a',      U'Z',          U's',      U't',      U'l',      U'e',          U'\'',
        U'1',      U'.',          U'!',      U'_',      U'\0',     U'é',          U'ß',
        U'中',     U'한',         U'ا',      U'\u064E', U'\u0301', U'\u0947',     U'\u20E3',
        U'\uFE0F', U'\u200D',     U'٣',      U'²',      U'Ⅻ',      U'\uFFFD',     U'€',
        U'😀',      U'\U0001F3FD', U'\u180E', U'\u200B', U'\u00AD', U'\U00011F04', U'\U00031350'}) {
    cpts.push_back(c);
  }
  std::vector<std::string> inputs;
  for (char32_t a : cpts) {
    for (char32_t b : cpts) {
      inputs.push_back(utf8({a, b}));
      inputs.push_back(utf8({'x', a, b, 'y'}));
      inputs.push_back(utf8({a, a, b, b}));
    }
  }
  expect_agree(inputs, "pair");
}

TEST(PreTokenizerDiff, FixtureInputs) {
  for (const char* name : {"ggml-vocab-qwen2.gguf", "ggml-vocab-qwen35.gguf"}) {
    const std::vector<std::string> inputs = test::read_vocab_inputs(name);
    EXPECT_GT(inputs.size(), 40u) << name;
    expect_agree(inputs, name);
  }
}

TEST(PreTokenizerDiff, FuzzSeedCorpus) {
  const std::filesystem::path dir =
      std::filesystem::path(KAZEIA_SOURCE_DIR) / "tests/fuzz/corpus/pretokenizer";
  std::vector<std::string> inputs;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    inputs.push_back(test::read_file_bytes(entry.path().string()));
  }
  EXPECT_GE(inputs.size(), 5u);
  expect_agree(inputs, "seed");
}

}  // namespace
}  // namespace kz
