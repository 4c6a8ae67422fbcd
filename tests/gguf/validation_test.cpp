// One hand-built bad image per validation rule of spec/gguf.md §6; each must fail with a one-line
// message naming the defect (and the key or tensor).
#include <gtest/gtest.h>

#include "gguf/gguf.h"
#include "gguf_test_util.h"

namespace kz::gguf {
namespace {

using test::Image;

constexpr int32_t kF32 = 0, kQ4_0 = 2, kF64 = 28;

TEST(GgufValidation, Magic) {
  Image img;
  img.b = {'G', 'G', 'U', 'X', 3, 0, 0, 0};
  img.zeros(16);
  EXPECT_PARSE_ERROR(img, "invalid magic bytes 47 47 55 58");
}

TEST(GgufValidation, Versions) {
  EXPECT_PARSE_ERROR(Image().header(0, 0, 0), "bad GGUF version 0");
  EXPECT_PARSE_ERROR(Image().header(0, 0, 0x03000000),
                     "is extremely large; is the file big-endian");
  EXPECT_PARSE_ERROR(Image().header(0, 0, 1), "GGUF version 1 is no longer supported");
  EXPECT_PARSE_ERROR(Image().header(0, 0, 4), "unsupported GGUF version 4 (supported: 2, 3)");
  EXPECT_EQ(test::parse_error(Image().header(0, 0, 2).b), "");
  EXPECT_EQ(test::parse_error(Image().header(0, 0, 3).b), "");
}

TEST(GgufValidation, Truncated) {
  EXPECT_PARSE_ERROR(Image(), "truncated while reading header (file size 0)");
  Image img = Image().header(0, 2);
  img.kv_u32("a", 1).str("bb");
  EXPECT_PARSE_ERROR(img, "truncated while reading key 'bb'");
  Image img2 = Image().header(0, 2);
  img2.kv_u32("a", 1).u32(5);
  EXPECT_PARSE_ERROR(img2, "truncated while reading key #1");
  Image img3 = Image().header(1, 0);
  img3.str("w").u32(1).i64(4);
  EXPECT_PARSE_ERROR(img3, "truncated while reading tensor 'w'");
  Image img4 = Image().header(1, 0);
  img4.zeros(5);
  EXPECT_PARSE_ERROR(img4, "truncated while reading tensor info #0");
}

TEST(GgufValidation, Counts) {
  EXPECT_PARSE_ERROR(Image().header(-1, 0), "tensor count -1 is negative");
  EXPECT_PARSE_ERROR(Image().header(0, -5), "key count -5 is negative");
  EXPECT_PARSE_ERROR(Image().header(INT64_MAX, 0).zeros(100),
                     "tensor count 9223372036854775807 exceeds the limit of");
  EXPECT_PARSE_ERROR(Image().header(0, INT64_MAX).zeros(100),
                     "key count 9223372036854775807 exceeds the limit of");
  // A huge count in a small file fails on the first missing entry, without a huge allocation.
  EXPECT_PARSE_ERROR(Image().header(0, int64_t{1} << 40).kv_u32("a", 1),
                     "truncated while reading key #1");
  EXPECT_PARSE_ERROR(Image().header(int64_t{1} << 40, 0).tensor("w", {1}, kF32, 0),
                     "truncated while reading tensor info #1");
}

TEST(GgufValidation, Keys) {
  EXPECT_PARSE_ERROR(Image().header(0, 1).str("").u32(4).u32(1), "key #0 is empty");
  EXPECT_PARSE_ERROR(Image().header(0, 2).kv_u32("a.b", 1).kv_u32("a.b", 2), "duplicate key 'a.b'");
  EXPECT_PARSE_ERROR(Image().header(0, 1).str("k").u32(13).u32(0),
                     "key 'k' has invalid value type 13");
  EXPECT_PARSE_ERROR(Image().header(0, 1).str("k").u32(9).u32(13).u64(0),
                     "key 'k' has invalid array element type 13");
  // Control bytes in a key are escaped so the message stays on one line.
  EXPECT_PARSE_ERROR(Image().header(0, 2).kv_u32("a\nb", 1).kv_u32("a\nb", 1),
                     "duplicate key 'a\\x0ab'");
}

TEST(GgufValidation, Strings) {
  EXPECT_PARSE_ERROR(Image().header(0, 1).str("k").u32(8).u64(1000).zeros(10),
                     "key 'k': string length 1000 exceeds the 10 bytes left in the file");
  EXPECT_PARSE_ERROR(Image().header(0, 1).str("k").u32(8).u64((1ull << 30) + 1),
                     "key 'k': string length 1073741825 exceeds the limit of 1073741824");
  EXPECT_PARSE_ERROR(Image().header(0, 1).u64(UINT64_MAX).zeros(20),
                     "key #0: string length 18446744073709551615 exceeds the limit");
  EXPECT_PARSE_ERROR(Image().header(1, 0).u64(500).zeros(30),
                     "tensor info #0: string length 500 exceeds the 30 bytes left");
}

TEST(GgufValidation, Arrays) {
  EXPECT_PARSE_ERROR(Image().header(0, 1).str("k").u32(9).u32(4).u64((1ull << 30) + 1),
                     "key 'k': array of 1073741825 elements exceeds the limit of 1073741824");
  EXPECT_PARSE_ERROR(Image().header(0, 1).str("k").u32(9).u32(4).u64(4).zeros(15),
                     "key 'k': array of 4 u32 needs at least 16 bytes, 15 left in the file");
  // A 2^30-element string array with 10 bytes left fails before allocating anything (it would
  // need 32 GiB of string objects).
  EXPECT_PARSE_ERROR(Image().header(0, 1).str("k").u32(9).u32(8).u64(1ull << 30).zeros(10),
                     "key 'k': array of 1073741824 str needs at least 8589934592 bytes, 10 left");
  // Nested: the inner array's count is checked against what is left too.
  EXPECT_PARSE_ERROR(Image().header(0, 1).str("k").u32(9).u32(9).u64(1).u32(8).u64(1000).zeros(8),
                     "key 'k': array of 1000 str needs at least 8000 bytes, 8 left");
  // Too deep nesting cannot exhaust the stack.
  Image deep = Image().header(0, 1);
  deep.str("k").u32(9);
  for (int i = 0; i < 100; ++i) deep.u32(9).u64(1);
  deep.u32(4).u64(0);
  EXPECT_PARSE_ERROR(deep, "key 'k': arrays nested deeper than 8 levels");
}

TEST(GgufValidation, Alignment) {
  EXPECT_PARSE_ERROR(Image().header(0, 1).str("general.alignment").u32(5).i32(32),
                     "key 'general.alignment' has type i32, expected u32");
  EXPECT_PARSE_ERROR(Image().header(0, 1).kv_u32("general.alignment", 48),
                     "key 'general.alignment' is 48, expected a non-zero power of two");
  EXPECT_PARSE_ERROR(Image().header(0, 1).kv_u32("general.alignment", 0),
                     "key 'general.alignment' is 0, expected a non-zero power of two");
}

// A file with one tensor info `t` (after `kvs`) padded to 32, plus `data` bytes of payload.
Image one_tensor(std::string_view name, std::vector<int64_t> ne, int32_t type, uint64_t offset,
                 size_t data) {
  Image img = Image().header(1, 0);
  img.tensor(name, std::move(ne), type, offset).pad(32).zeros(data);
  return img;
}

TEST(GgufValidation, TensorInfos) {
  EXPECT_PARSE_ERROR(one_tensor(std::string(64, 'n'), {1}, kF32, 0, 4),
                     "': name is 64 bytes long, at most 63");
  EXPECT_EQ(test::parse_error(one_tensor(std::string(63, 'n'), {1}, kF32, 0, 4).b), "");
  Image dup = Image().header(2, 0);
  dup.tensor("w", {1}, kF32, 0).tensor("w", {1}, kF32, 32).pad(32).zeros(64);
  EXPECT_PARSE_ERROR(dup, "duplicate tensor name 'w'");
  EXPECT_PARSE_ERROR(one_tensor("w", {1, 1, 1, 1, 1}, kF32, 0, 4),
                     "tensor 'w' has 5 dimensions, at most 4");
  EXPECT_PARSE_ERROR(one_tensor("w", {4, -2}, kF32, 0, 4),
                     "tensor 'w' has negative dimension ne[1] = -2");
  EXPECT_PARSE_ERROR(one_tensor("w", {int64_t{1} << 32, int64_t{1} << 31}, kF32, 0, 4),
                     "tensor 'w' has shape [4294967296, 2147483648, 1, 1] whose element count "
                     "overflows int64");
  EXPECT_PARSE_ERROR(one_tensor("w", {1}, 43, 0, 4), "tensor 'w' has invalid type id 43");
  EXPECT_PARSE_ERROR(one_tensor("w", {1}, 4, 0, 4), "tensor 'w' has invalid type id 4");
  EXPECT_PARSE_ERROR(one_tensor("w", {1}, 37, 0, 4), "tensor 'w' has invalid type id 37");
  EXPECT_PARSE_ERROR(one_tensor("w", {1}, -1, 0, 4), "tensor 'w' has invalid type id -1");
  EXPECT_PARSE_ERROR(one_tensor("w", {33, 2}, kQ4_0, 0, 40),
                     "tensor 'w': ne[0] = 33 is not a multiple of the q4_0 block size 32");
  // 2^62 f64 elements fit in int64, their 2^65 bytes do not fit in 64 bits.
  EXPECT_PARSE_ERROR(one_tensor("w", {int64_t{1} << 61, 2}, kF64, 0, 4),
                     "tensor 'w' has a byte size that overflows 64 bits");
  // Dimensions of 0 are legal (an empty tensor) and skip the overflow test, as in llama.cpp.
  EXPECT_EQ(test::parse_error(one_tensor("w", {INT64_MAX, 0, INT64_MAX}, kF32, 0, 0).b), "");
  EXPECT_EQ(test::parse_error(one_tensor("w", {0, INT64_MAX}, kF32, 0, 0).b), "");
}

TEST(GgufValidation, TensorPlacement) {
  EXPECT_PARSE_ERROR(one_tensor("w", {4}, kF32, 16, 64),
                     "tensor 'w' has offset 16, not a multiple of the alignment 32");
  EXPECT_PARSE_ERROR(one_tensor("w", {4}, kF32, 32, 64), "tensor 'w' has offset 32, expected 0");
  Image gap = Image().header(2, 0);
  gap.tensor("a", {4}, kF32, 0).tensor("b", {4}, kF32, 64).pad(32).zeros(96);
  EXPECT_PARSE_ERROR(gap, "tensor 'b' has offset 64, expected 32");
  // Header 24 + info (8+1+4+8+4+8 = 33) = 57 -> data starts at 64.
  EXPECT_PARSE_ERROR(one_tensor("w", {1000}, kF32, 0, 100),
                     "tensor 'w' data [offset 64, 4000 bytes] extends past end of file (size 164)");
  Image no_data = Image().header(1, 0);
  no_data.tensor("w", {0}, kF32, 0);
  EXPECT_PARSE_ERROR(no_data, "data section starts at 64, past the end of the file (size 57)");
  // Missing padding after the last payload is accepted, as llama.cpp's loader does.
  EXPECT_EQ(test::parse_error(one_tensor("w", {3}, kF32, 0, 12).b), "");
}

TEST(GgufValidation, ZeroTensorsDataOffsetIsEndOfMetadata) {
  Image img = Image().header(0, 1);
  img.kv_str("k", "abc");
  const File f = File::parse(img.b, "z.gguf");
  EXPECT_EQ(f.data_offset(), img.b.size());
  EXPECT_EQ(f.get_string("k"), "abc");
}

TEST(GgufValidation, BoolAnyNonZeroIsTrue) {
  Image img = Image().header(0, 1);
  img.str("b").u32(7).u8(7);
  const File f = File::parse(img.b, "b.gguf");
  EXPECT_TRUE(f.get_bool("b"));
}

}  // namespace
}  // namespace kz::gguf
