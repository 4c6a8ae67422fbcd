// Shared by the tokenizer tests: the fixture vocabularies, loaded once per test binary (a
// 151,936-token vocabulary is worth loading only once), and file helpers.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

// The test strings of vocab/NAME.inp (tokenizer.md §4, tests/test-tokenizer-0.cpp): separated by
// "\n__ggml_vocab_test__\n", which also ends the file.
inline std::vector<std::string> read_vocab_inputs(const std::string& name) {
  const std::string inp = read_file_bytes(fixture_path("vocab/" + name + ".inp"));
  const std::string sep = "\n__ggml_vocab_test__\n";
  std::vector<std::string> inputs;
  for (size_t pos = 0, next; (next = inp.find(sep, pos)) != std::string::npos;) {
    inputs.push_back(inp.substr(pos, next - pos));
    pos = next + sep.size();
  }
  return inputs;
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
