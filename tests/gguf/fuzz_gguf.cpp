// Fuzz entry for the GGUF reader. In the test binary only exercise() is compiled (the mutation
// tests call it). A libFuzzer build defines KAZEIA_FUZZ; from the repository root:
//
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -DKAZEIA_FUZZ -Isrc
//       tests/gguf/fuzz_gguf.cpp src/gguf/*.cpp src/quant/types.cpp src/base/mapped_file.cpp
//       -o fuzz_gguf
//   ./fuzz_gguf -max_total_time=60 corpus/
//
// (seed corpus/ with a few small .gguf files, e.g. the metadata part of a fixture model), or
// build the target fuzz_gguf of a -DKAZEIA_FUZZ=ON build (tests/fuzz/pretokenizer_fuzz.cpp).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/error.h"
#include "gguf/gguf.h"

namespace kz::gguf::test {

namespace {
uint64_t touch(const Value& v) {
  if (v.type() == ValueType::STRING) return std::get<std::string>(v.v).size();
  if (v.type() != ValueType::ARRAY) return static_cast<uint64_t>(v.type());
  uint64_t sum = 0;
  for (const Value& x : std::get<Array>(v.v).items) sum += touch(x);
  return sum;
}
}  // namespace

uint64_t exercise(const uint8_t* data, size_t size) {
  try {
    const File f = File::parse({data, size}, "fuzz.gguf");
    uint64_t sum = f.data_offset();
    for (const KeyValue& kv : f.metadata()) sum += touch(kv.value);
    for (const TensorInfo& t : f.tensors()) {
      for (uint64_t i = 0; i < t.nbytes; ++i) sum += t.data[i];  // every byte must be in range
    }
    if (f.find("tokenizer.ggml.tokens")) sum += f.get_string_array("tokenizer.ggml.tokens").size();
    return sum;
  } catch (const Error&) {
    return 0;
  }
}

}  // namespace kz::gguf::test

#ifdef KAZEIA_FUZZ
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An exact-size copy, so any read past the end is a heap overflow the sanitizer reports.
  std::vector<uint8_t> copy(data, data + size);
  kz::gguf::test::exercise(copy.data(), copy.size());
  return 0;
}
#endif
