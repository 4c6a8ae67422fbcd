// Damaged files never crash the reader: every truncation and thousands of random mutations of a
// small valid file either load or throw kz::Error. Run under -fsanitize=address,undefined to
// prove that no input reads outside the image (each parse gets an exact-size heap copy).
#include <gtest/gtest.h>

#include <random>

#include "gguf/gguf.h"
#include "gguf_test_util.h"

namespace kz::gguf {
namespace {

// A few KB: scalars, strings, string / integer / nested arrays, and five tensors of odd sizes.
std::vector<uint8_t> small_file() {
  Writer w;
  w.set("general.architecture", val("qwen3"));
  w.set("general.alignment", val(64u));
  w.set("qwen3.block_count", val(2u));
  w.set("qwen3.rope.freq_base", val(1e6f));
  w.set("tokenizer.ggml.add_bos_token", val(false));
  w.set("tokenizer.ggml.tokens", string_array({"a", "bb", "", "<|im_end|>", "ccc"}));
  w.set("tokenizer.ggml.token_type", i32_array({1, 1, 3, 3, 1}));
  w.set("scores", f32_array({0.5f, -1.0f}));
  w.set("nested", Value{Array{ValueType::ARRAY, {i32_array({1, 2}), i32_array({})}}});
  w.set("u64", Value{uint64_t{1} << 40});
  auto bytes = [](size_t n) { return std::vector<uint8_t>(n, 0xAB); };
  w.add_tensor("token_embd.weight", DType::F16, {8, 5}, bytes(80));
  w.add_tensor("blk.0.attn_q.weight", DType::Q8_0, {32, 4}, bytes(136));
  w.add_tensor("blk.0.attn_norm.weight", DType::F32, {7}, bytes(28));
  w.add_tensor("blk.0.ffn_down.weight", DType::Q4_K, {256, 2}, bytes(288));
  w.add_tensor("output_norm.weight", DType::F32, {16}, bytes(64));  // ends on the alignment
  return w.to_bytes();
}

TEST(GgufRobustness, SmallFileLoads) {
  const std::vector<uint8_t> file = small_file();
  EXPECT_GT(file.size(), 1000u);
  const File f = File::parse(file, "small.gguf");
  EXPECT_EQ(f.tensors().size(), 5u);
  EXPECT_EQ(f.alignment(), 64u);
  EXPECT_EQ(f.data_offset() + f.tensors().back().offset + 64, file.size());
}

TEST(GgufRobustness, EveryTruncationFails) {
  const std::vector<uint8_t> file = small_file();
  for (size_t n = 0; n < file.size(); ++n) {
    const std::vector<uint8_t> cut(file.begin(), file.begin() + n);
    const std::string msg = test::parse_error(cut, "cut.gguf");
    ASSERT_EQ(msg.rfind("cut.gguf: ", 0), 0u) << "prefix of " << n << " bytes loaded";
  }
}

// Mutations aimed at the metadata (where every byte is interpreted): random byte flips, and
// 8-byte windows set to extreme values (counts, lengths, dimensions, offsets).
TEST(GgufRobustness, RandomMutationsLoadOrThrow) {
  const std::vector<uint8_t> file = small_file();
  const size_t meta = File::parse(file, "m.gguf").data_offset();
  std::mt19937 rng(12345);
  const uint64_t extremes[] = {0,
                               1,
                               0x7f,
                               0xff,
                               0xffffffffu,
                               1ull << 30,
                               (1ull << 30) + 1,
                               1ull << 62,
                               INT64_MAX,
                               UINT64_MAX,
                               0x8000000000000000ull};
  int loaded = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    std::vector<uint8_t> m = file;
    const size_t region = iter % 8 == 0 ? m.size() : meta;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % region;
      if (rng() % 3 == 0 && at + 8 <= m.size()) {
        const uint64_t x = extremes[rng() % std::size(extremes)];
        std::memcpy(m.data() + at, &x, 8);
      } else {
        m[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
      }
    }
    try {
      test::exercise(m.data(), m.size());  // swallows kz::Error; anything else fails the test
      loaded += test::parse_error(m).empty();
    } catch (const std::exception& e) {
      FAIL() << "mutation " << iter << " threw a non-kz::Error: " << e.what();
    }
  }
  std::printf("%d of 4000 mutated files loaded\n", loaded);
  EXPECT_GT(loaded, 0);  // some flips only change values
  EXPECT_LT(loaded, 4000);
}

}  // namespace
}  // namespace kz::gguf
