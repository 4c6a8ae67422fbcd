// Vocabulary of a byte-level BPE tokenizer as stored in GGUF (tokenizer.md §1-§2): token texts
// and types, merge ranks, the pre-tokenizer kind and the special ids. Plain data, built once by
// load_vocab; tokenization itself lives in tokenizer.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/vocab_index.h"

namespace kz {

namespace gguf {
class File;
}

// `tokenizer.ggml.token_type` values (llama.h `llama_token_type`).
enum class TokenType : uint8_t {
  kUndefined = 0,
  kNormal = 1,
  kUnknown = 2,
  kControl = 3,
  kUserDefined = 4,
  kUnused = 5,
  kByte = 6,
};

// The pre-tokenizer regexes we implement (tokenizer.md §3.2).
enum class PreTokenizerKind { kQwen2, kQwen35 };

struct SpecialIds {  // -1 = none
  int32_t bos = -1, eos = -1, eot = -1, eom = -1, unk = -1, sep = -1, pad = -1, cls = -1, mask = -1;
  int32_t fim_pre = -1, fim_suf = -1, fim_mid = -1, fim_pad = -1, fim_rep = -1, fim_sep = -1;
};

struct Vocab {
  PreTokenizerKind pre = PreTokenizerKind::kQwen2;
  std::vector<std::string> tokens;  // id -> text
  std::vector<TokenType> types;     // id -> type (after the end-of-generation overrides)
  TextIndex token_index;            // over `tokens`; for a repeated text the last id, as llama.cpp

  // Merges work on symbol ids: token ids, plus n_vocab + i for extra_symbols[i], the texts a
  // merge names that are not tokens (none in a consistent vocabulary). With those, merging by id
  // is exactly llama.cpp's merging by text.
  MergeTable merges;
  std::vector<std::string> extra_symbols;
  TextIndex extra_index;  // over `extra_symbols`

  SpecialIds special;
  bool add_bos = false, add_eos = false;   // applied by encode when add_special
  std::vector<int32_t> end_of_generation;  // sorted ids
  std::vector<int32_t> special_tokens;     // CONTROL/USER_DEFINED/UNKNOWN ids, longest text first

  int32_t n_vocab() const { return static_cast<int32_t>(tokens.size()); }
  int32_t token_id(std::string_view text) const { return token_index.find(text, tokens); }
  int32_t symbol_id(std::string_view text) const;  // token or extra symbol id; -1 if neither
};

// Reads the tokenizer.* keys strictly (types as in gguf.md §3); throws kz::Error naming the file
// and the key at fault. Only byte-level BPE ("gpt2") with a Qwen pre-tokenizer is supported.
Vocab load_vocab(const gguf::File& file);

}  // namespace kz
