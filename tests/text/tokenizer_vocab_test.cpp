// load_vocab on small hand-built GGUF images: the tokenizer.* keys are read strictly, and every
// error names the key at fault.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/error.h"
#include "gguf/gguf.h"
#include "text/tokenizer.h"

namespace kz {
namespace {

// A 7-token vocabulary: a b c ab abc Ġ <|im_end|>; merges "a b", "ab c".
struct TinyVocab {
  std::vector<gguf::KeyValue> kvs;
  TinyVocab() {
    set("tokenizer.ggml.model", gguf::val("gpt2"));
    set("tokenizer.ggml.pre", gguf::val("qwen2"));
    set("tokenizer.ggml.tokens",
        gguf::string_array({"a", "b", "c", "ab", "abc", "\xC4\xA0", "<|im_end|>"}));
    set("tokenizer.ggml.token_type", gguf::i32_array({1, 1, 1, 1, 1, 1, 3}));
    set("tokenizer.ggml.merges", gguf::string_array({"a b", "ab c"}));
    set("tokenizer.ggml.eos_token_id", gguf::val(uint32_t{6}));
  }
  void set(const std::string& key, gguf::Value value) {
    erase(key);
    kvs.push_back({key, std::move(value)});
  }
  void erase(const std::string& key) {
    std::erase_if(kvs, [&](const gguf::KeyValue& kv) { return kv.key == key; });
  }
  Vocab load() const {
    gguf::Writer w;
    for (const gguf::KeyValue& kv : kvs) w.set(kv.key, kv.value);
    const std::vector<uint8_t> bytes = w.to_bytes();
    return load_vocab(gguf::File::parse(bytes, "tiny.gguf"));
  }
  std::string error() const {
    try {
      load();
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
};

TEST(TokenizerVocab, LoadsTinyVocabulary) {
  TinyVocab t;
  const Tokenizer tok(t.load());
  EXPECT_EQ(tok.encode("abc", false), std::vector<int32_t>{4});
  EXPECT_EQ(tok.encode("ab ab", false), (std::vector<int32_t>{3, 5, 3}));  // " ab": no merge Ġa
  EXPECT_EQ(tok.encode("cab<|im_end|>", true), (std::vector<int32_t>{2, 3, 6}));
  EXPECT_TRUE(tok.is_end_of_generation(6));
  EXPECT_EQ(tok.vocab().special.bos, -1);  // llama.cpp's default 11 is outside this vocabulary
  EXPECT_FALSE(tok.vocab().add_bos);
}

TEST(TokenizerVocab, MissingKeys) {
  for (const char* key : {"tokenizer.ggml.model", "tokenizer.ggml.pre", "tokenizer.ggml.tokens",
                          "tokenizer.ggml.merges"}) {
    TinyVocab t;
    t.erase(key);
    const std::string err = t.error();
    EXPECT_NE(err.find(key), std::string::npos) << err;
    EXPECT_NE(err.find("tiny.gguf"), std::string::npos) << err;
  }
}

TEST(TokenizerVocab, WrongTypes) {
  const std::vector<std::pair<std::string, gguf::Value>> cases = {
      {"tokenizer.ggml.model", gguf::val(uint32_t{2})},
      {"tokenizer.ggml.pre", gguf::val(true)},
      {"tokenizer.ggml.tokens", gguf::i32_array({1, 2, 3, 4, 5, 6, 7})},
      {"tokenizer.ggml.token_type", gguf::f32_array({1, 1, 1, 1, 1, 1, 3})},
      {"tokenizer.ggml.merges", gguf::val("a b")},
      {"tokenizer.ggml.eos_token_id", gguf::val(int32_t{6})},
      {"tokenizer.ggml.bos_token_id", gguf::val("1")},
      {"tokenizer.ggml.add_bos_token", gguf::val(uint32_t{1})},
  };
  for (const auto& [key, value] : cases) {
    TinyVocab t;
    t.set(key, value);
    const std::string err = t.error();
    EXPECT_NE(err.find(key), std::string::npos) << key << ": " << err;
  }
}

TEST(TokenizerVocab, BadValues) {
  {
    TinyVocab t;
    t.set("tokenizer.ggml.model", gguf::val("llama"));
    const std::string err = t.error();
    EXPECT_NE(err.find("tokenizer.ggml.model"), std::string::npos) << err;
    EXPECT_NE(err.find("'llama'"), std::string::npos) << err;
  }
  {
    TinyVocab t;
    t.set("tokenizer.ggml.pre", gguf::val("gpt-4o"));
    const std::string err = t.error();
    EXPECT_NE(err.find("tokenizer.ggml.pre"), std::string::npos) << err;
    EXPECT_NE(err.find("unknown pre-tokenizer 'gpt-4o'"), std::string::npos) << err;
  }
  {
    TinyVocab t;
    t.set("tokenizer.ggml.token_type", gguf::i32_array({1, 1, 1}));
    EXPECT_NE(t.error().find("tokenizer.ggml.token_type"), std::string::npos) << t.error();
  }
  {
    TinyVocab t;
    t.set("tokenizer.ggml.tokens", gguf::string_array({}));
    EXPECT_NE(t.error().find("tokenizer.ggml.tokens"), std::string::npos) << t.error();
  }
}

TEST(TokenizerVocab, LenientWhereLlamaCppIs) {
  TinyVocab t;
  t.set("tokenizer.ggml.pre", gguf::val("deepseek-r1-qwen"));     // an alias of qwen2
  t.set("tokenizer.ggml.bos_token_id", gguf::val(uint32_t{99}));  // out of range: ignored
  t.set("tokenizer.ggml.add_bos_token", gguf::val(true));
  const Vocab v = t.load();
  EXPECT_EQ(v.pre, PreTokenizerKind::kQwen2);
  EXPECT_EQ(v.special.bos, -1);
  EXPECT_EQ(v.special.eos, 6);
  EXPECT_TRUE(v.add_bos);
  t.set("tokenizer.ggml.pre", gguf::val("qwen35"));
  EXPECT_EQ(t.load().pre, PreTokenizerKind::kQwen35);
}

TEST(TokenizerVocab, TokenTextsAndMerges) {
  TinyVocab t;
  // An empty text is renamed; a repeated text maps to its last id; "a b c" has no rank effect
  // beyond its first occurrence; a merge without a space is ignored.
  t.set("tokenizer.ggml.tokens",
        gguf::string_array({"a", "b", "c", "abc", "", "\xC4\xA0", "a", "<|im_end|>"}));
  t.set("tokenizer.ggml.token_type", gguf::i32_array({1, 1, 1, 1, 1, 1, 1, 3}));
  t.set("tokenizer.ggml.merges", gguf::string_array({"a b", "ab c", "nospace", "a b"}));
  const Tokenizer tok(t.load());
  EXPECT_EQ(tok.vocab().tokens[4], "[EMPTY_4]");
  EXPECT_EQ(tok.find_token("a"), 6);
  // "ab" is not a token but a merge names it: merging goes through it, as llama.cpp merges text.
  EXPECT_EQ(tok.vocab().extra_symbols, std::vector<std::string>{"ab"});
  EXPECT_EQ(tok.encode("abc", false), std::vector<int32_t>{3});
  // A final symbol that is not a token falls back to its single bytes ("ab" -> a, b).
  EXPECT_EQ(tok.encode("ab", false), (std::vector<int32_t>{6, 1}));
  // <|im_end|> ends generation and is CONTROL even when the file says NORMAL.
  t.set("tokenizer.ggml.token_type", gguf::i32_array({1, 1, 1, 1, 1, 1, 1, 1}));
  const Tokenizer tok2(t.load());
  EXPECT_TRUE(tok2.is_end_of_generation(7));
  EXPECT_EQ(tok2.vocab().types[7], TokenType::kControl);
  EXPECT_EQ(tok2.token_to_piece(7, false), "");
}

}  // namespace
}  // namespace kz
