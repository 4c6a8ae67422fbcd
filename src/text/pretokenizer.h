// Pre-tokenizer: splits text into the pieces that BPE merges independently (tokenizer.md §3.2),
// with the Qwen regexes run by PCRE2 (UTF + UCP, JIT when available).
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "text/vocab.h"

struct pcre2_real_code_8;

namespace kz {

class PreTokenizer {
 public:
  explicit PreTokenizer(PreTokenizerKind kind);  // compiles the pattern once

  // `text` must be valid UTF-8 without surrogates (see to_regex_input). Returns the end offset
  // of each piece; the pieces are contiguous and cover `text`.
  std::vector<size_t> split(std::string_view text) const;

 private:
  struct CodeDeleter {
    void operator()(pcre2_real_code_8* code) const;
  };
  std::unique_ptr<pcre2_real_code_8, CodeDeleter> code_;
};

}  // namespace kz
