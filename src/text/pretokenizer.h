// Pre-tokenizer: splits text into the pieces that BPE merges independently (tokenizer.md §3.2).
// A hand-written matcher for the qwen2 / qwen35 regexes, step by step as llama.cpp's
// `unicode_regex_split_custom_qwen2` / `_qwen35`, over the classes of text/unicode_tables.h.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "text/vocab.h"

namespace kz {

class PreTokenizer {
 public:
  explicit PreTokenizer(PreTokenizerKind kind) : marks_(kind == PreTokenizerKind::kQwen35) {}

  // `text` is meant to be to_regex_input's view (valid UTF-8 without surrogates), but any bytes
  // are safe: they are decoded by next_cpt_lenient (an invalid byte is one U+FFFD; surrogates,
  // like U+FFFD, have no class). Returns the end offset of each piece; the pieces are contiguous
  // and cover `text`. Thread-safe.
  std::vector<size_t> split(std::string_view text) const;

 private:
  bool marks_;  // qwen35: letter runs take combining marks (\p{M}) too
};

}  // namespace kz
