// The tokenizer's parts on their edges: UTF-8 handling, the byte alphabet, the pre-tokenizer's
// rules and character classes (llama.cpp's, not a regex engine's defaults) and long inputs.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "text/pretokenizer.h"
#include "text/tokenizer_bytes.h"
#include "text/tokenizer_utf8.h"

namespace kz {
namespace {

using Ends = std::vector<size_t>;

TEST(TokenizerUtf8, StrictValidation) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("a\xC3\xA9\xE4\xB8\x96\xF0\x9F\xA6\x99"));
  EXPECT_FALSE(is_valid_utf8("\xC0\x80"));          // overlong
  EXPECT_FALSE(is_valid_utf8("\xE0\x80\x80"));      // overlong
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xE4\xB8"));          // truncated
  EXPECT_FALSE(is_valid_utf8("\x80"));
  size_t len = 0;
  EXPECT_EQ(next_utf8("\xE4\xB8", len), Utf8Status::kIncomplete);
  EXPECT_EQ(next_utf8("\xF0\x9F", len), Utf8Status::kIncomplete);
  EXPECT_EQ(next_utf8("\xE4\xB8x", len), Utf8Status::kInvalid);
  EXPECT_EQ(len, 2u);  // maximal subpart: E4 B8
  EXPECT_EQ(next_utf8("\xE0\x80", len), Utf8Status::kInvalid);
  EXPECT_EQ(len, 1u);  // E0 80 can never start a valid sequence
  EXPECT_EQ(next_utf8("\xFF", len), Utf8Status::kInvalid);
}

TEST(TokenizerUtf8, RegexInputLikeLlamaCpp) {
  EXPECT_EQ(to_regex_input("abc").bpe, "abc");
  EXPECT_EQ(to_regex_input("\xFF").bpe, "\xEF\xBF\xBD");
  EXPECT_EQ(to_regex_input("\xE4\xB8").bpe, "\xEF\xBF\xBD\xEF\xBF\xBD");  // one per byte
  EXPECT_EQ(to_regex_input("\xC1\x81").bpe, "A");                         // overlong, decoded
  EXPECT_EQ(to_regex_input("\xF7\xBF\xBF\xBF").bpe, "\xEF\xBF\xBD");      // above U+10FFFF
  const RegexInput s = to_regex_input("x\xED\xA0\x80y");
  EXPECT_EQ(s.bpe, "x\xED\xA0\x80y");
  EXPECT_EQ(s.regex_view(), "x\xEF\xBF\xBDy");
}

TEST(TokenizerBytes, Alphabet) {
  EXPECT_EQ(byte_to_cpt(' '), 0x120u);
  EXPECT_EQ(byte_to_cpt('\n'), 0x10Au);
  EXPECT_EQ(byte_to_cpt('\t'), 0x109u);
  EXPECT_EQ(byte_to_cpt(0x7F), 0x121u);
  EXPECT_EQ(byte_to_cpt(0xAD), 0x143u);
  EXPECT_EQ(byte_to_cpt('A'), uint32_t{'A'});
  for (int b = 0; b < 256; ++b) EXPECT_EQ(cpt_to_byte(byte_to_cpt(static_cast<uint8_t>(b))), b);
  EXPECT_EQ(cpt_to_byte(0x144), -1);
  std::string s;
  append_byte_encoded(s, " \n");
  EXPECT_EQ(s, "\xC4\xA0\xC4\x8A");  // "ĠĊ"
}

TEST(PreTokenizer, Qwen2Pieces) {
  const PreTokenizer pre(PreTokenizerKind::kQwen2);
  EXPECT_EQ(pre.split("Hello world"), (Ends{5, 11}));
  EXPECT_EQ(pre.split("I'll WE'VE"), (Ends{1, 4, 7, 10}));
  EXPECT_EQ(pre.split("123"), (Ends{1, 2, 3}));       // digits one by one
  EXPECT_EQ(pre.split("a   b"), (Ends{1, 3, 5}));     // \s+(?!\S) leaves one space
  EXPECT_EQ(pre.split("a \n\n b"), (Ends{1, 4, 6}));  // \s*[\r\n]+
  EXPECT_EQ(pre.split("a  "), (Ends{1, 3}));          // trailing run whole
  EXPECT_EQ(pre.split(" 1"), (Ends{1, 2}));
  EXPECT_EQ(pre.split(" !!\n\nx"), (Ends{5, 6}));  // punctuation takes the newlines
  EXPECT_EQ(pre.split("\tab"), (Ends{3}));         // any non-letter prefix
  EXPECT_EQ(pre.split(""), Ends{});
}

// tokenizer.md §3.2 item 5: whitespace is llama.cpp's set; PCRE2's \s, for one, adds U+180E.
TEST(PreTokenizer, WhitespaceIsLlamaCppSet) {
  const PreTokenizer pre(PreTokenizerKind::kQwen2);
  EXPECT_EQ(pre.split(".\xE1\xA0\x8E"), (Ends{4}));     // U+180E: punctuation, joins '.'
  EXPECT_EQ(pre.split(".\xE2\x80\x80"), (Ends{1, 4}));  // U+2000: whitespace
  EXPECT_EQ(pre.split(".\xC2\x85"), (Ends{1, 3}));      // U+0085: whitespace
  EXPECT_EQ(pre.split(".\xE3\x80\x80"), (Ends{1, 4}));  // U+3000: whitespace
  EXPECT_EQ(pre.split(".\xE2\x80\x8B"), (Ends{4}));     // U+200B is not White_Space
}

TEST(PreTokenizer, Qwen35LettersTakeMarks) {
  const std::string text = "e\xCC\x81x";  // e, U+0301 (Mn), x
  EXPECT_EQ(PreTokenizer(PreTokenizerKind::kQwen2).split(text), (Ends{1, 4}));
  EXPECT_EQ(PreTokenizer(PreTokenizerKind::kQwen35).split(text), (Ends{4}));
  // A lone mark after punctuation: qwen2 counts it as punctuation, qwen35 as a letter.
  EXPECT_EQ(PreTokenizer(PreTokenizerKind::kQwen2).split("!\xCC\x81"), (Ends{3}));
  EXPECT_EQ(PreTokenizer(PreTokenizerKind::kQwen35).split("!\xCC\x81"), (Ends{3}));
  EXPECT_EQ(PreTokenizer(PreTokenizerKind::kQwen2).split("!!\xCC\x81"), (Ends{4}));
  EXPECT_EQ(PreTokenizer(PreTokenizerKind::kQwen35).split("!!\xCC\x81"), (Ends{2, 4}));
}

std::vector<std::string> pieces(PreTokenizerKind kind, std::string_view text) {
  std::vector<std::string> out;
  size_t begin = 0;
  for (size_t end : PreTokenizer(kind).split(text)) {
    out.emplace_back(text.substr(begin, end - begin));
    begin = end;
  }
  return out;
}

// tokenizer.md §3.2, rule by rule, as pieces.
TEST(PreTokenizer, SpecRules) {
  using P = std::vector<std::string>;
  const auto q2 = PreTokenizerKind::kQwen2;
  const auto q35 = PreTokenizerKind::kQwen35;
  // 1. Contractions, any case; a lone or unknown one is punctuation or a word prefix.
  EXPECT_EQ(pieces(q2, "don't WE'LL they'Re I'd"),
            (P{"don", "'t", " WE", "'LL", " they", "'Re", " I", "'d"}));
  EXPECT_EQ(pieces(q2, "'ve'll''s"), (P{"'ve", "'ll", "''", "s"}));
  EXPECT_EQ(pieces(q2, "'x 'l"), (P{"'x", " '", "l"}));
  // 2. A word takes one code point before it, anything but CR, LF or a number.
  EXPECT_EQ(pieces(q2, "(hello)\tworld\nfoo9bar"),
            (P{"(hello", ")", "\tworld", "\n", "foo", "9", "bar"}));
  // 3. Numbers one by one, of any script and kind (Nd, No, Nl).
  EXPECT_EQ(pieces(q2, "2024年 ١٢ x²Ⅻ"),
            (P{"2", "0", "2", "4", "年", " ", "١", "٢", " x", "²", "Ⅻ"}));
  // 4. Punctuation runs: one space before, CR / LF after.
  EXPECT_EQ(pieces(q2, "x ...\r\n\ny"), (P{"x", " ...\r\n\n", "y"}));
  // 5. Spaces: up to the last CR / LF; before a non-space all but the last; at the end all.
  EXPECT_EQ(pieces(q2, "a \t\n \n  b"), (P{"a", " \t\n \n", " ", " b"}));
  EXPECT_EQ(pieces(q2, "a\u3000\u3000b  "), (P{"a", "\u3000", "\u3000b", "  "}));
  EXPECT_EQ(pieces(q2, "1  2"), (P{"1", " ", " ", "2"}));  // the last space alone before a number
  // Marks: qwen2 words stop at them, qwen35 words take them.
  EXPECT_EQ(pieces(q2, "नमस्ते"), (P{"नमस", "्त", "े"}));
  EXPECT_EQ(pieces(q35, "नमस्ते"), (P{"नमस्ते"}));
  EXPECT_EQ(pieces(q2, "cafe\u0301!"), (P{"cafe", "\u0301!"}));
  EXPECT_EQ(pieces(q35, "cafe\u0301!"), (P{"cafe\u0301", "!"}));
  EXPECT_EQ(pieces(q35, "1\uFE0F\u20E3"), (P{"1", "\uFE0F\u20E3"}));  // keycap: number, marks
}

TEST(PreTokenizer, LongRuns) {
  const PreTokenizer pre(PreTokenizerKind::kQwen2);
  for (char c : {'a', ' ', '!', '\n'}) {
    const std::string run(1 << 20, c);
    const Ends ends = pre.split(run);
    ASSERT_FALSE(ends.empty()) << int{c};
    EXPECT_EQ(ends.back(), run.size());
    EXPECT_LE(ends.size(), 2u) << int{c};
  }
  const std::string spaces_then_word = std::string(1 << 20, ' ') + "x";  // \s+(?!\S) backtracks
  EXPECT_EQ(pre.split(spaces_then_word), (Ends{(1 << 20) - 1, (1 << 20) + 1}));
  std::string mixed;
  for (int i = 0; i < 100000; ++i) mixed += "ab 12 !? \n";
  EXPECT_EQ(pre.split(mixed).back(), mixed.size());
}

}  // namespace
}  // namespace kz
