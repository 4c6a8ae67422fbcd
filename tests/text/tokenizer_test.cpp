// The tokenizer against the reference test vectors (tokenizer.md §4), the ChatML prompt of
// chat.md §5.6 and the fixture models' small vocabulary.
#include "text/tokenizer.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "text/tokenizer_utf8.h"
#include "tokenizer_fixtures.h"

namespace kz {
namespace {

using test::fixture_path;
using test::read_file_bytes;

struct Vector {
  std::string text;
  std::vector<int32_t> ids;
};

// tests/test-tokenizer-0.cpp: one line of ids per input, stripped, space separated.
std::vector<Vector> read_vectors(const std::string& name) {
  const std::string out = read_file_bytes(fixture_path("vocab/" + name + ".out"));
  std::vector<Vector> vs;
  for (std::string& text : test::read_vocab_inputs(name)) vs.push_back({std::move(text), {}});
  std::istringstream lines(out);
  std::string line;
  for (Vector& v : vs) {
    EXPECT_TRUE(std::getline(lines, line)) << name << ": fewer output lines than inputs";
    std::istringstream ids(line);
    for (int32_t id; ids >> id;) v.ids.push_back(id);
  }
  return vs;
}

void check_vectors(const Tokenizer& tok, const std::string& name, size_t expected_count) {
  const std::vector<Vector> vs = read_vectors(name);
  EXPECT_EQ(vs.size(), expected_count);
  for (size_t i = 0; i < vs.size(); ++i) {
    EXPECT_EQ(tok.encode(vs[i].text, /*parse_special=*/false), vs[i].ids)
        << name << " test " << i << ": \"" << vs[i].text << "\"";
    if (is_valid_utf8(vs[i].text)) {
      EXPECT_EQ(tok.decode(vs[i].ids, false), vs[i].text) << name << " test " << i;
    }
  }
}

TEST(Tokenizer, Qwen2Vectors) {
  check_vectors(test::qwen2_tokenizer(), "ggml-vocab-qwen2.gguf", 46);
}

TEST(Tokenizer, Qwen35Vectors) {
  check_vectors(test::qwen35_tokenizer(), "ggml-vocab-qwen35.gguf", 50);
}

TEST(Tokenizer, SpecExamples) {
  const Tokenizer& tok = test::qwen2_tokenizer();
  using V = std::vector<int32_t>;
  EXPECT_EQ(tok.encode(" ", false), V{220});
  EXPECT_EQ(tok.encode("  ", false), V{256});
  EXPECT_EQ(tok.encode("\t", false), V{197});
  EXPECT_EQ(tok.encode("\n", false), V{198});
  EXPECT_EQ(tok.encode("\n\n", false), V{271});
  EXPECT_EQ(tok.encode("Hello world", false), (V{9707, 1879}));
  EXPECT_EQ(tok.encode(" Hello world", false), (V{21927, 1879}));
  EXPECT_EQ(tok.encode("", false), V{});
  EXPECT_EQ(tok.encode("", true, /*add_special=*/true), V{});  // Qwen adds no BOS
}

// chat.md §5.6: the rendered prompt of example 5.1, tokenized with parse_special = true.
TEST(Tokenizer, ChatMLPrompt) {
  const std::string prompt =
      "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nWhat is "
      "2+2?<|im_end|>\n<|im_start|>assistant\n2+2 = 4.<|im_end|>\n<|im_start|>user\nAnd "
      "3+3?<|im_end|>\n<|im_start|>assistant\n";
  const std::vector<int32_t> expected = {
      151644, 8948, 198, 2610, 525, 264,    10950, 17847,  13,     151645, 198,    151644, 872,
      198,    3838, 374, 220,  17,  10,     17,    30,     151645, 198,    151644, 77091,  198,
      17,     10,   17,  284,  220, 19,     13,    151645, 198,    151644, 872,    198,    3036,
      220,    18,   10,  18,   30,  151645, 198,   151644, 77091,  198};
  const Tokenizer& tok = test::qwen2_tokenizer();
  EXPECT_EQ(tok.encode(prompt, /*parse_special=*/true), expected);
  EXPECT_EQ(tok.decode(expected, /*special=*/true), prompt);
  // Without parse_special, CONTROL texts are ordinary text.
  const std::vector<int32_t> plain = tok.encode("<|im_start|>", false);
  EXPECT_GT(plain.size(), 1u);
  EXPECT_EQ(tok.decode(plain, false), "<|im_start|>");
}

TEST(Tokenizer, SpecialTokenSemantics) {
  const Tokenizer& tok = test::qwen2_tokenizer();
  EXPECT_EQ(tok.find_token("<|im_start|>"), 151644);
  EXPECT_EQ(tok.find_token("<|im_end|>"), 151645);
  EXPECT_EQ(tok.find_token("<|endoftext|>"), 151643);
  EXPECT_EQ(tok.find_token("no such token"), -1);
  // USER_DEFINED tokens (the test vocabulary's [PAD…] entries) match even without parse_special.
  EXPECT_EQ(tok.encode("a[PAD151646]b", false), tok.encode("a[PAD151646]b", true));
  EXPECT_EQ(tok.encode("[PAD151646]", false), std::vector<int32_t>{151646});
  // CONTROL pieces are empty unless special; USER_DEFINED pieces are their text.
  EXPECT_EQ(tok.token_to_piece(151645, false), "");
  EXPECT_EQ(tok.token_to_piece(151645, true), "<|im_end|>");
  EXPECT_EQ(tok.token_to_piece(151646, false), "[PAD151646]");
  EXPECT_EQ(tok.token_to_piece(220, false), " ");
  EXPECT_THROW(tok.token_to_piece(151936, false), Error);
  EXPECT_THROW(tok.token_to_piece(-1, false), Error);
  // A special token never joins the text around it into one pre-token.
  EXPECT_EQ(tok.encode("Hi<|im_end|>Hi", true),
            (std::vector<int32_t>{tok.encode("Hi", false)[0], 151645, tok.encode("Hi", false)[0]}));
}

TEST(Tokenizer, EndOfGeneration) {
  const Tokenizer& tok = test::qwen2_tokenizer();
  EXPECT_TRUE(tok.is_end_of_generation(151643));  // <|endoftext|>
  EXPECT_TRUE(tok.is_end_of_generation(151645));  // <|im_end|>
  EXPECT_FALSE(tok.is_end_of_generation(151644));
  EXPECT_FALSE(tok.is_end_of_generation(198));
  EXPECT_EQ(tok.vocab().special.bos, 151643);
  EXPECT_EQ(tok.vocab().special.eos, 151643);
  EXPECT_EQ(tok.vocab().n_vocab(), 151936);
  EXPECT_EQ(tok.vocab().merges.size(), 151387u);
  EXPECT_TRUE(tok.vocab().extra_symbols.empty());
}

// Invalid UTF-8 bytes are tokenized as U+FFFD (llama.cpp `unicode_cpts_from_utf8`).
TEST(Tokenizer, InvalidUtf8BecomesReplacementChar) {
  const Tokenizer& tok = test::qwen2_tokenizer();
  EXPECT_EQ(tok.encode("a\xff b", false), tok.encode("a\xEF\xBF\xBD b", false));
  EXPECT_EQ(tok.encode("x\xE4\xB8", false), tok.encode("x\xEF\xBF\xBD\xEF\xBF\xBD", false));
  EXPECT_EQ(tok.encode("\x80\x80", false), tok.encode("\xEF\xBF\xBD\xEF\xBF\xBD", false));
  // Overlong forms are decoded, not rejected, and re-encoded in shortest form.
  EXPECT_EQ(tok.encode("\xC1\x81", false), tok.encode("A", false));
  // A surrogate is kept as its three bytes (as llama.cpp) and is neither letter nor space.
  const std::vector<int32_t> s = tok.encode("\xED\xA0\x80", false);
  EXPECT_EQ(tok.decode(s, false), "\xED\xA0\x80");
}

TEST(Tokenizer, TinyModelVocab) {
  for (const char* name : {"models/qwen3-tiny-f32.gguf", "models/qwen35-tiny-f32.gguf"}) {
    const Tokenizer tok = test::load_tokenizer(name);
    EXPECT_EQ(tok.vocab().n_vocab(), 1024) << name;
    EXPECT_EQ(tok.find_token("<|im_start|>"), 1020);
    const std::vector<int32_t> ids = tok.encode("<|im_start|>user\nHi<|im_end|>", true);
    ASSERT_GE(ids.size(), 3u) << name;
    EXPECT_EQ(ids.front(), 1020);
    EXPECT_EQ(ids.back(), 1021);
    EXPECT_EQ(tok.decode(ids, true), "<|im_start|>user\nHi<|im_end|>");
    EXPECT_EQ(tok.decode(ids, false), "user\nHi");
    EXPECT_TRUE(tok.is_end_of_generation(1019));
    EXPECT_TRUE(tok.is_end_of_generation(1021));
    // <think> is CONTROL in these files: matched only with parse_special.
    EXPECT_EQ(tok.encode("<think>", true), std::vector<int32_t>{1022});
    EXPECT_NE(tok.encode("<think>", false), std::vector<int32_t>{1022});
  }
}

}  // namespace
}  // namespace kz
