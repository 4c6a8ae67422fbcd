// A synthetic byte-level BPE vocabulary (spec/tokenizer.md §1-§3.4) for synthetic models: the 256
// byte tokens, word-like merged tokens with their merges, and the five Qwen special tokens.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kz {

struct SyntheticVocab {
  std::vector<std::string> tokens;   // in the byte-level alphabet; specials as plain text
  std::vector<int32_t> token_types;  // 1 NORMAL, 3 CONTROL, 4 USER_DEFINED
  std::vector<std::string> merges;   // "left right", rank = index
  int32_t endoftext = -1, im_start = -1, im_end = -1, think = -1, end_think = -1;
};

constexpr int64_t kSyntheticSpecialTokens = 5;
constexpr int64_t kMinSyntheticVocab = 256 + kSyntheticSpecialTokens;

// n_vocab tokens: ids 0..255 are the bytes (ordered by their alphabet code point, as GPT-2 /
// Qwen vocabularies are), then n_vocab - 261 merged tokens, then <|endoftext|>, <|im_start|>,
// <|im_end|> (CONTROL), <think>, </think> (USER_DEFINED). Every merged token is a letter run
// with an optional leading space (one pre-token for the Qwen pre-tokenizers), and BPE with the
// merges turns its text back into exactly that token. Depends on n_vocab only (fixed internal
// seed), so models of every seed share a vocabulary. Throws kz::Error if n_vocab < 261.
SyntheticVocab synthetic_vocab(int64_t n_vocab);

// A minimal ChatML template (the real Qwen templates are not embedded in the engine).
extern const char* const kSyntheticChatTemplate;

}  // namespace kz
