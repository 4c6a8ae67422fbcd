// libFuzzer entry for the pre-tokenizer: any bytes, split by PreTokenizer and by the PCRE2 oracle
// after the tokenizer's own sanitizing (pretokenizer_mismatch, tests/testing/pcre2_pretokenizer.h,
// which the differential test in tests/text runs too). Built only with -DKAZEIA_FUZZ=ON and clang
// (tests/CMakeLists.txt); from the repository root:
//
//   cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKAZEIA_FUZZ=ON
//       -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
//   cmake --build build-fuzz --target pretokenizer_fuzz
//   mkdir -p build-fuzz/corpus
//   build-fuzz/tests/pretokenizer_fuzz -max_total_time=60 build-fuzz/corpus
//       tests/fuzz/corpus/pretokenizer
//
// New inputs go to the first folder; the seeds in tests/fuzz/corpus/pretokenizer are only read.
// The same build has the GGUF reader's target, fuzz_gguf (tests/gguf/fuzz_gguf.cpp).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "testing/pcre2_pretokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An exact-size copy, so any read past the end is a heap overflow the sanitizer reports.
  const std::vector<char> copy(data, data + size);
  const std::string problem = kz::testing::pretokenizer_mismatch({copy.data(), copy.size()});
  if (!problem.empty()) {
    std::fprintf(stderr, "pretokenizer_fuzz: %s\n", problem.c_str());
    std::abort();
  }
  return 0;
}
