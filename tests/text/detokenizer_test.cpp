// Streaming detokenizer: every returned piece is valid UTF-8, whatever the token stream, and the
// stream equals the plain decode whenever that decode is valid.
#include "text/detokenizer.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "text/tokenizer_bytes.h"
#include "text/tokenizer_utf8.h"
#include "tokenizer_fixtures.h"

namespace kz {
namespace {

// The id of the single-byte token for byte b (every byte has one in a byte-level vocabulary).
int32_t byte_token(const Tokenizer& tok, uint8_t b) {
  std::string text;
  append_utf8(text, byte_to_cpt(b));
  return tok.find_token(text);
}

TEST(Detokenizer, HoldsBackSplitCharacters) {
  const Tokenizer& tok = test::qwen2_tokenizer();
  Detokenizer d(tok);
  // U+4E16 "世" = E4 B8 96, fed one byte token at a time.
  EXPECT_EQ(d.push(byte_token(tok, 0xE4)), "");
  EXPECT_EQ(d.push(byte_token(tok, 0xB8)), "");
  EXPECT_EQ(d.push(byte_token(tok, 0x96)), "\xE4\xB8\x96");
  EXPECT_EQ(d.flush(), "");
  // Proven invalid as soon as a non-continuation byte arrives.
  EXPECT_EQ(d.push(byte_token(tok, 0xE4)), "");
  EXPECT_EQ(d.push(tok.find_token("a")),
            "\xEF\xBF\xBD"
            "a");
  // A stray continuation byte is replaced at once.
  EXPECT_EQ(d.push(byte_token(tok, 0x96)), "\xEF\xBF\xBD");
  // An incomplete sequence at the end becomes one U+FFFD at flush.
  EXPECT_EQ(d.push(byte_token(tok, 0xF0)), "");
  EXPECT_EQ(d.push(byte_token(tok, 0x9F)), "");
  EXPECT_EQ(d.flush(), "\xEF\xBF\xBD");
  EXPECT_EQ(d.flush(), "");
}

TEST(Detokenizer, SpecialTokens) {
  const Tokenizer& tok = test::qwen2_tokenizer();
  Detokenizer plain(tok), special(tok, /*special=*/true);
  EXPECT_EQ(plain.push(151645), "");
  EXPECT_EQ(special.push(151645), "<|im_end|>");
}

TEST(Detokenizer, EncodedTextStreamsBack) {
  const Tokenizer& tok = test::qwen2_tokenizer();
  const std::string text =
      "Hello 世界 🦙🦙 Cửa Việt — ∑∫ ꦲꦏ𝔘𝔫𝔦𝔠𝔬𝔡𝔢 "
      "😶‍🌫️ "
      "ខ្ញុំ\n\tend";
  Detokenizer d(tok);
  std::string out;
  for (int32_t id : tok.encode(text, false)) {
    const std::string piece = d.push(id);
    EXPECT_TRUE(is_valid_utf8(piece));
    out += piece;
  }
  out += d.flush();
  EXPECT_EQ(out, text);
}

TEST(Detokenizer, RandomStreamsNeverBreakUtf8) {
  const Tokenizer& tok = test::qwen2_tokenizer();
  std::mt19937 rng(1234);
  const int32_t n_vocab = tok.vocab().n_vocab();
  std::vector<int32_t> high_bytes;  // tokens of bytes >= 0x80: partial characters
  for (int b = 0x80; b < 0x100; ++b) high_bytes.push_back(byte_token(tok, static_cast<uint8_t>(b)));
  int valid_streams = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const bool special = trial % 2 == 1;
    std::vector<int32_t> ids(1 + rng() % 12);
    for (int32_t& id : ids) {
      const uint32_t kind = rng() % 8;
      if (kind < 5) {  // mostly partial characters, to provoke every hold-back case
        id = high_bytes[rng() % high_bytes.size()];
      } else if (kind < 7) {
        id = static_cast<int32_t>(rng() % n_vocab);
      } else {
        id = 151643 + static_cast<int32_t>(rng() % 3);
      }
    }
    // Sometimes feed a real character's bytes in order, so that valid streams occur often.
    if (trial % 3 == 0) ids = tok.encode("\xF0\x9F\xA6\x99 x \xE4\xB8\x96", false);
    Detokenizer d(tok, special);
    std::string out;
    for (int32_t id : ids) {
      const std::string piece = d.push(id);
      ASSERT_TRUE(is_valid_utf8(piece)) << "trial " << trial;
      out += piece;
    }
    const std::string tail = d.flush();
    ASSERT_TRUE(is_valid_utf8(tail)) << "trial " << trial;
    out += tail;
    const std::string full = tok.decode(ids, special);
    if (is_valid_utf8(full)) {
      ++valid_streams;
      EXPECT_EQ(out, full) << "trial " << trial;
    }
  }
  EXPECT_GT(valid_streams, 1000);
}

}  // namespace
}  // namespace kz
