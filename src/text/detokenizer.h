// Streaming detokenizer: turns generated token ids into text that is always valid UTF-8, even
// when a character's bytes are spread over several tokens (byte-level BPE splits rare
// characters into single-byte tokens).
#pragma once

#include <cstdint>
#include <string>

#include "text/tokenizer.h"

namespace kz {

class Detokenizer {
 public:
  // `special`: CONTROL tokens are written as their text (see Tokenizer::token_to_piece).
  explicit Detokenizer(const Tokenizer& tokenizer, bool special = false)
      : tokenizer_(&tokenizer), special_(special) {}

  // Returns the complete characters now available; an incomplete trailing sequence is held back.
  // Bytes proven ill-formed are written as U+FFFD (one per maximal ill-formed subpart).
  std::string push(int32_t id);
  // Returns what is held back (an incomplete sequence as U+FFFD) and resets the stream.
  std::string flush();

 private:
  std::string drain(bool final);

  const Tokenizer* tokenizer_;
  bool special_;
  std::string pending_;  // bytes not yet returned; at most an incomplete sequence between calls
};

}  // namespace kz
