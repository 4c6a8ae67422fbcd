// Shared by the tokenizer tests: the fixture vocabularies, loaded once per test binary (a
// 151,936-token vocabulary is worth loading only once), and file helpers.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "gguf/gguf.h"
#include "text/tokenizer.h"

namespace kz::test {

inline std::string fixture_path(const std::string& rel) {
  return std::string(KAZEIA_FIXTURES_DIR) + "/" + rel;
}

inline std::string read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline Tokenizer load_tokenizer(const std::string& rel) {
  return Tokenizer(load_vocab(gguf::File::open(fixture_path(rel))));
}

inline const Tokenizer& qwen2_tokenizer() {
  static const Tokenizer t = load_tokenizer("vocab/ggml-vocab-qwen2.gguf");
  return t;
}

inline const Tokenizer& qwen35_tokenizer() {
  static const Tokenizer t = load_tokenizer("vocab/ggml-vocab-qwen35.gguf");
  return t;
}

}  // namespace kz::test
