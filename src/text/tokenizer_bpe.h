// BPE merge loop for one pre-token (tokenizer.md §3.3-§3.4, llama.cpp
// `llm_tokenizer_bpe_session::tokenize`). Keeps its scratch buffers between pre-tokens.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/vocab.h"

namespace kz {

class BpeEncoder {
 public:
  explicit BpeEncoder(const Vocab& vocab) : vocab_(vocab) {}

  // Appends the ids of `pretoken` (raw UTF-8 bytes) to `out`.
  void encode(std::string_view pretoken, std::vector<int32_t>& out);

 private:
  struct Symbol {
    int32_t id;           // symbol id (Vocab::symbol_id), -1 if the text is unknown
    int32_t prev, next;   // neighbours in the linked list, -1 at the ends
    uint32_t begin, len;  // bytes of mapped_
  };
  struct Pair {
    int32_t rank, left;  // popped by lowest rank, then leftmost (llama.cpp `llm_bigram_bpe`)
    int32_t left_id, right_id, result;
  };
  void push_pair(int32_t left);
  void emit(const Symbol& s, std::vector<int32_t>& out) const;

  const Vocab& vocab_;
  std::string mapped_;  // the pre-token in the byte-level alphabet
  std::vector<Symbol> symbols_;
  std::vector<Pair> heap_;
};

}  // namespace kz
