// The fixtures' real Qwen tokenizers (../shared/fixtures/vocab), loaded once per fuzz process, for
// the tokenizer and chat renderer fuzzers.
#pragma once

#include <cstdint>

#include "gguf/gguf.h"
#include "text/tokenizer.h"
#include "text/vocab.h"

namespace kz::fuzz {

// Qwen2/Qwen3's vocabulary and pre-tokenizer (pre-tokenizer `qwen2`).
inline const Tokenizer& qwen3_tokenizer() {
  static const Tokenizer t(
      load_vocab(gguf::File::open(KAZEIA_FIXTURES_DIR "/vocab/ggml-vocab-qwen2.gguf")));
  return t;
}

// The same vocabulary with Qwen3.5's pre-tokenizer.
inline const Tokenizer& qwen35_tokenizer() {
  static const Tokenizer t(
      load_vocab(gguf::File::open(KAZEIA_FIXTURES_DIR "/vocab/ggml-vocab-qwen35.gguf")));
  return t;
}

// Tokens that only the template's markup may produce (Tokenizer::encode).
inline bool is_control(const Tokenizer& t, int32_t id) {
  const TokenType type = t.vocab().types[id];
  return type == TokenType::kControl || type == TokenType::kUnknown;
}

}  // namespace kz::fuzz
