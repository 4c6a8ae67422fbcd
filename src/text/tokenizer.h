// Byte-level BPE tokenizer (tokenizer.md §3): special-token partition, Qwen pre-tokenizer, BPE
// merges; and the reverse mapping of one token to its bytes (§3.5). Immutable after
// construction; encode may run on several threads at once.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "text/pretokenizer.h"
#include "text/text_span.h"
#include "text/vocab.h"

namespace kz {

class Tokenizer {
 public:
  explicit Tokenizer(Vocab vocab);

  // parse_special: CONTROL/UNKNOWN token texts become their tokens (USER_DEFINED ones always
  // do). add_special: BOS/EOS as the vocabulary asks (never for Qwen). Invalid UTF-8 bytes are
  // tokenized as U+FFFD.
  std::vector<int32_t> encode(std::string_view text, bool parse_special,
                              bool add_special = false) const;
  // CONTROL/UNKNOWN token texts become their tokens only where the whole text lies inside one of
  // `special` (sorted, e.g. RenderedChat::markup): elsewhere they are plain text, so a message
  // cannot forge a turn. Between the special tokens the text is tokenized as one, so where no
  // message holds such a text the result is encode(text, true)'s.
  std::vector<int32_t> encode(std::string_view text, std::span<const TextSpan> special) const;

  // The bytes of one token, possibly a partial UTF-8 sequence. CONTROL/UNKNOWN tokens give ""
  // unless `special`. Throws kz::Error for an id outside the vocabulary.
  std::string token_to_piece(int32_t id, bool special) const;
  // Concatenated pieces; may be invalid UTF-8 (see Detokenizer for streaming output).
  std::string decode(std::span<const int32_t> ids, bool special) const;

  bool is_end_of_generation(int32_t id) const;
  int32_t find_token(std::string_view text) const;  // -1 if no token has exactly this text
  const Vocab& vocab() const { return vocab_; }

 private:
  struct Fragment {
    int32_t token;      // -1 for raw text
    size_t begin, end;  // raw text: bytes of the input
  };
  std::vector<Fragment> partition(std::string_view text, std::span<const TextSpan> special) const;
  void encode_into(std::string_view text, std::span<const TextSpan> special,
                   std::vector<int32_t>& out) const;
  void encode_raw(std::string_view text, std::vector<int32_t>& out) const;

  Vocab vocab_;
  PreTokenizer pre_;
};

}  // namespace kz
