// Vocabulary of a byte-level BPE tokenizer as stored in GGUF (tokenizer.md §1-§2): token texts
// and types, merge ranks, the pre-tokenizer kind and the special ids. Plain data, built once by
// load_vocab; tokenization itself lives in tokenizer.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

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

struct StringHash {
  using is_transparent = void;  // lookups by string_view without building a std::string
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using StringIdMap = std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>>;

struct SpecialIds {  // -1 = none
  int32_t bos = -1, eos = -1, eot = -1, eom = -1, unk = -1, sep = -1, pad = -1, cls = -1, mask = -1;
  int32_t fim_pre = -1, fim_suf = -1, fim_mid = -1, fim_pad = -1, fim_rep = -1, fim_sep = -1;
};

struct BpeMerge {
  int32_t rank;    // index in tokenizer.ggml.merges (lower merges first)
  int32_t result;  // symbol id of left + right
};

struct Vocab {
  PreTokenizerKind pre = PreTokenizerKind::kQwen2;
  std::vector<std::string> tokens;  // id -> text
  std::vector<TokenType> types;     // id -> type (after the end-of-generation overrides)
  StringIdMap token_ids;            // text -> id; for a repeated text the last id, as llama.cpp

  // Merges work on symbol ids: token ids, plus n_vocab + i for extra_symbols[i], the texts a
  // merge names that are not tokens (none in a consistent vocabulary). With those, merging by id
  // is exactly llama.cpp's merging by text.
  std::unordered_map<uint64_t, BpeMerge> merges;  // key: merge_key(left, right)
  std::vector<std::string> extra_symbols;
  StringIdMap extra_symbol_ids;

  SpecialIds special;
  bool add_bos = false, add_eos = false;   // applied by encode when add_special
  std::vector<int32_t> end_of_generation;  // sorted ids
  std::vector<int32_t> special_tokens;     // CONTROL/USER_DEFINED/UNKNOWN ids, longest text first

  int32_t n_vocab() const { return static_cast<int32_t>(tokens.size()); }
  static uint64_t merge_key(int32_t left, int32_t right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) |
           static_cast<uint32_t>(right);
  }
  int32_t symbol_id(std::string_view text) const;  // token or extra symbol id; -1 if neither
};

// Reads the tokenizer.* keys strictly (types as in gguf.md §3); throws kz::Error naming the file
// and the key at fault. Only byte-level BPE ("gpt2") with a Qwen pre-tokenizer is supported.
Vocab load_vocab(const gguf::File& file);

}  // namespace kz
