// Writer -> reader round trips: every value type, nested and empty arrays, v2/v3, custom
// alignment, tensors of odd sizes; and writer-side validation.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "gguf/gguf.h"
#include "gguf_test_util.h"

namespace kz::gguf {
namespace {

template <class T>
Value v(T x) {
  return Value{x};
}

Value arr(ValueType elem, std::vector<Value> items) {
  return Value{Array{elem, std::move(items)}};
}

// One key per value type and several array shapes, including nested and empty arrays.
std::vector<KeyValue> all_values() {
  using L = std::numeric_limits<int64_t>;
  return {
      {"u8", v<uint8_t>(255)},
      {"i8", v<int8_t>(-128)},
      {"u16", v<uint16_t>(65535)},
      {"i16", v<int16_t>(-32768)},
      {"u32", v<uint32_t>(4000000000u)},
      {"i32", v<int32_t>(-2000000000)},
      {"f32", v<float>(-1.25f)},
      {"f32.inf", v<float>(std::numeric_limits<float>::infinity())},
      {"bool.t", v(true)},
      {"bool.f", v(false)},
      {"str", v<std::string>("héllo \xe4\xb8\x96")},
      {"str.empty", v<std::string>("")},
      {"str.nul", v<std::string>(std::string("a\0b", 3))},
      {"u64", v<uint64_t>(std::numeric_limits<uint64_t>::max())},
      {"i64", v<int64_t>(L::min())},
      {"f64", v<double>(3.141592653589793)},
      {"arr.u8", arr(ValueType::U8, {v<uint8_t>(1), v<uint8_t>(2)})},
      {"arr.i8", arr(ValueType::I8, {v<int8_t>(-1)})},
      {"arr.u16", arr(ValueType::U16, {v<uint16_t>(7)})},
      {"arr.i16", arr(ValueType::I16, {v<int16_t>(-7)})},
      {"arr.u32", arr(ValueType::U32, {v<uint32_t>(1), v<uint32_t>(2), v<uint32_t>(3)})},
      {"arr.i32", i32_array({-1, 0, 1})},
      {"arr.f32", f32_array({0.5f, -0.25f})},
      {"arr.bool", arr(ValueType::BOOL, {v(true), v(false), v(true)})},
      {"arr.str", string_array({"a", "", "ccc"})},
      {"arr.u64", arr(ValueType::U64, {v<uint64_t>(1)})},
      {"arr.i64", arr(ValueType::I64, {v<int64_t>(L::max())})},
      {"arr.f64", arr(ValueType::F64, {v<double>(-1e300)})},
      {"arr.empty.str", arr(ValueType::STRING, {})},
      {"arr.empty.u32", arr(ValueType::U32, {})},
      {"arr.empty.arr", arr(ValueType::ARRAY, {})},
      {"arr.nested",
       arr(ValueType::ARRAY, {i32_array({1, 2}), arr(ValueType::I32, {}), i32_array({3})})},
      {"arr.nested3", arr(ValueType::ARRAY, {arr(ValueType::ARRAY, {string_array({"x", ""})}),
                                             arr(ValueType::ARRAY, {})})},
  };
}

struct OddTensor {
  std::string name;
  DType type;
  std::vector<int64_t> ne;
};

// Payload sizes 12, 30, 102, 7, 144, 0, 4 bytes: none a multiple of the alignment.
std::vector<OddTensor> odd_tensors() {
  return {
      {"a.f32", DType::F32, {3}},
      {"b.f16", DType::F16, {5, 3}},
      {"c.q8_0", DType::Q8_0, {32, 3}},
      {"d.i8", DType::I8, {7, 1, 1, 1}},  // trailing 1s are kept as written
      {"e.q4_k", DType::Q4_K, {256}},
      {"f.empty", DType::F32, {0, 4}},
      {"g.scalar", DType::F32, {}},
  };
}

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(seed * 31 + i * 7 + 1);
  return out;
}

uint64_t payload_size(const OddTensor& t) {
  int64_t ne4[4] = {1, 1, 1, 1};
  for (size_t j = 0; j < t.ne.size(); ++j) ne4[j] = t.ne[j];
  return row_bytes(t.type, ne4[0]) * ne4[1] * ne4[2] * ne4[3];
}

Writer build(uint32_t version, uint32_t alignment) {
  Writer w(version);
  if (alignment != 0) w.set("general.alignment", val(alignment));
  for (KeyValue& kv : all_values()) w.set(kv.key, kv.value);
  uint8_t seed = 0;
  for (const OddTensor& t : odd_tensors())
    w.add_tensor(t.name, t.type, t.ne, pattern(payload_size(t), ++seed));
  return w;
}

void check_round_trip(uint32_t version, uint32_t alignment) {
  const std::vector<uint8_t> bytes = build(version, alignment).to_bytes();
  const File f = File::parse(bytes, "rt.gguf");
  const uint32_t align = alignment ? alignment : 32;
  EXPECT_EQ(f.version(), version);
  EXPECT_EQ(f.alignment(), align);
  EXPECT_EQ(f.data_offset() % align, 0u);

  // Values: the alignment key (if set) first, then all_values() in order, all equal.
  const std::vector<KeyValue> expected = all_values();
  const size_t skip = alignment ? 1 : 0;
  ASSERT_EQ(f.metadata().size(), expected.size() + skip);
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(expected[i].key);
    EXPECT_EQ(f.metadata()[i + skip].key, expected[i].key);
    EXPECT_TRUE(f.metadata()[i + skip].value == expected[i].value);
  }
  EXPECT_EQ(std::get<std::string>(f.find("str.nul")->v).size(), 3u);

  // Tensors: shapes as written, offsets = running padded sum, bytes identical.
  const auto tensors = odd_tensors();
  ASSERT_EQ(f.tensors().size(), tensors.size());
  uint64_t offset = 0;
  uint8_t seed = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorInfo& t = f.tensors()[i];
    SCOPED_TRACE(t.name);
    EXPECT_EQ(t.name, tensors[i].name);
    EXPECT_EQ(t.type, tensors[i].type);
    EXPECT_EQ(t.n_dims, tensors[i].ne.size());
    for (size_t j = 0; j < 4; ++j)
      EXPECT_EQ(t.ne[j], j < tensors[i].ne.size() ? tensors[i].ne[j] : 1);
    EXPECT_EQ(t.offset, offset);
    EXPECT_EQ(t.nbytes, payload_size(tensors[i]));
    EXPECT_EQ(static_cast<uint64_t>(t.data - bytes.data()) % align, 0u);
    const std::vector<uint8_t> want = pattern(t.nbytes, ++seed);
    EXPECT_TRUE(std::equal(want.begin(), want.end(), t.data));
    offset += (t.nbytes + align - 1) / align * align;
  }
  EXPECT_EQ(f.file_size(), f.data_offset() + offset);

  // Padding is zero; writing the parsed file again gives the same bytes.
  for (size_t i = 0; i + 1 < tensors.size(); ++i) {
    const TensorInfo& t = f.tensors()[i];
    const uint8_t* end = f.tensors()[i + 1].data;
    for (const uint8_t* p = t.data + t.nbytes; p < end; ++p) ASSERT_EQ(*p, 0);
  }
  EXPECT_EQ(test::writer_from(f).to_bytes(), bytes);
}

TEST(GgufRoundTrip, AllValueTypesV3) {
  check_round_trip(3, 0);
}
TEST(GgufRoundTrip, AllValueTypesV2) {
  check_round_trip(2, 0);
}
TEST(GgufRoundTrip, Alignment64) {
  check_round_trip(3, 64);
}
TEST(GgufRoundTrip, Alignment1) {
  check_round_trip(3, 1);
}
TEST(GgufRoundTrip, Alignment4096V2) {
  check_round_trip(2, 4096);
}

TEST(GgufRoundTrip, GettersOnWrittenFile) {
  const std::vector<uint8_t> bytes = build(3, 0).to_bytes();
  const File f = File::parse(bytes, "rt.gguf");
  EXPECT_EQ(f.get_u32("u32"), 4000000000u);
  EXPECT_EQ(f.get_f32("f32"), -1.25f);
  EXPECT_TRUE(f.get_bool("bool.t"));
  EXPECT_EQ(f.get_string("str.empty"), "");
  EXPECT_EQ(f.opt_u32("u32"), 4000000000u);
  EXPECT_EQ(f.opt_u32("missing"), std::nullopt);
  EXPECT_EQ(f.opt_string("missing"), std::nullopt);
  EXPECT_EQ(f.opt_f32("missing"), std::nullopt);
  EXPECT_EQ(f.opt_bool("bool.f"), false);
  EXPECT_EQ(f.get_string_array("arr.str"), (std::vector<std::string>{"a", "", "ccc"}));
  EXPECT_EQ(f.get_string_array("arr.empty.str"), std::vector<std::string>{});
  EXPECT_EQ(f.get_f32_array("arr.f32"), (std::vector<float>{0.5f, -0.25f}));
  EXPECT_EQ(f.get_int_array("arr.i32"), (std::vector<int64_t>{-1, 0, 1}));
  EXPECT_EQ(f.get_int_array("arr.u32"), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(f.get_int_array("arr.bool"), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(f.get_int_array("arr.i8"), (std::vector<int64_t>{-1}));
  EXPECT_EQ(f.get_int_array("arr.i64"), (std::vector<int64_t>{INT64_MAX}));
  EXPECT_EQ(f.get_int_array("arr.empty.u32"), std::vector<int64_t>{});
}

// Strict getters: wrong type, missing key and wrong element type each name the key.
TEST(GgufRoundTrip, GetterErrors) {
  const std::vector<uint8_t> bytes = build(3, 0).to_bytes();
  const File f = File::parse(bytes, "rt.gguf");
  auto error_of = [](auto fn) -> std::string {
    try {
      fn();
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error_of([&] { f.get_u32("i32"); }), "rt.gguf: key 'i32' has type i32, expected u32");
  EXPECT_EQ(error_of([&] { f.opt_u32("i32"); }), "rt.gguf: key 'i32' has type i32, expected u32");
  EXPECT_EQ(error_of([&] { f.get_f32("f64"); }), "rt.gguf: key 'f64' has type f64, expected f32");
  EXPECT_EQ(error_of([&] { f.get_string("u8"); }), "rt.gguf: key 'u8' has type u8, expected str");
  EXPECT_EQ(error_of([&] { f.get_bool("u8"); }), "rt.gguf: key 'u8' has type u8, expected bool");
  EXPECT_EQ(error_of([&] { f.get_u32("nope"); }), "rt.gguf: key 'nope' not found");
  EXPECT_EQ(error_of([&] { f.get_string_array("str"); }),
            "rt.gguf: key 'str' has type str, expected arr");
  EXPECT_EQ(error_of([&] { f.get_string_array("arr.u32"); }),
            "rt.gguf: key 'arr.u32' is an array of u32, expected an array of str");
  EXPECT_EQ(error_of([&] { f.get_f32_array("arr.f64"); }),
            "rt.gguf: key 'arr.f64' is an array of f64, expected an array of f32");
  EXPECT_EQ(error_of([&] { f.get_int_array("arr.f32"); }),
            "rt.gguf: key 'arr.f32' is an array of f32, expected an array of integers");
  EXPECT_EQ(error_of([&] { f.get_int_array("arr.nested"); }),
            "rt.gguf: key 'arr.nested' is an array of arr, expected an array of integers");
  EXPECT_EQ(error_of([&] { f.get_int_array("arr.u64"); }), "");
}

TEST(GgufRoundTrip, U64ElementAboveInt64IsRefused) {
  Writer w;
  w.set("big", arr(ValueType::U64, {v<uint64_t>(1), v<uint64_t>(1ull << 63)}));
  const std::vector<uint8_t> bytes = w.to_bytes();
  const File f = File::parse(bytes, "b.gguf");
  EXPECT_THROW(f.get_int_array("big"), Error);
}

TEST(GgufRoundTrip, ZeroTensorsWriterPads) {
  Writer w;
  w.set("general.architecture", val("none"));
  const std::vector<uint8_t> bytes = w.to_bytes();
  EXPECT_EQ(bytes.size() % 32, 0u);
  const File f = File::parse(bytes, "z.gguf");
  EXPECT_EQ(f.tensors().size(), 0u);
  // With no tensors the data section begins right after the metadata, before the padding.
  EXPECT_EQ(f.data_offset(), 24u + 8 + 20 + 4 + 8 + 4);
}

TEST(GgufRoundTrip, SetReplacesInPlace) {
  Writer w;
  w.set("a", val(1u));
  w.set("b", val(2u));
  w.set("a", val("x"));
  const std::vector<uint8_t> bytes = w.to_bytes();
  const File f = File::parse(bytes, "s.gguf");
  ASSERT_EQ(f.metadata().size(), 2u);
  EXPECT_EQ(f.metadata()[0].key, "a");
  EXPECT_EQ(f.get_string("a"), "x");
}

TEST(GgufRoundTrip, WriteToFile) {
  const Writer w = build(3, 64);
  const std::string path = ::testing::TempDir() + "/kz_gguf_roundtrip.gguf";
  w.write(path);
  const File f = File::open(path);
  EXPECT_TRUE(std::equal(f.bytes().begin(), f.bytes().end(), w.to_bytes().begin()));
  EXPECT_EQ(f.file_size(), w.to_bytes().size());
  std::filesystem::remove(path);
  try {
    w.write("/nonexistent-dir/x.gguf");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/nonexistent-dir/x.gguf: cannot create", 0), 0u)
        << e.what();
  }
}

std::string writer_error(const std::function<void(Writer&)>& fn) {
  Writer w;
  try {
    fn(w);
    w.to_bytes();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_WRITER_ERROR(fn, substring)                                             \
  do {                                                                                 \
    const std::string msg_ = writer_error(fn);                                         \
    EXPECT_NE(msg_.find(substring), std::string::npos) << "message: '" << msg_ << "'"; \
  } while (0)

TEST(GgufWriter, Validation) {
  EXPECT_WRITER_ERROR(
      [](Writer& w) {
        w.add_tensor("t", DType::F32, {4}, {1, 2, 3});
      },
      "tensor 't' has 3 bytes of data, expected 16 for its shape and type f32");
  EXPECT_WRITER_ERROR([](Writer& w) { w.add_tensor("t", DType::Q4_0, {33}, {}); },
                      "ne[0] = 33 is not a multiple of the q4_0 block size 32");
  EXPECT_WRITER_ERROR(
      [](Writer& w) {
        w.add_tensor("t", DType::F32, {1, 1, 1, 1, 1}, {});
      },
      "has 5 dimensions, at most 4");
  EXPECT_WRITER_ERROR([](Writer& w) { w.add_tensor("t", DType::F32, {-1}, {}); },
                      "negative ne[0] = -1");
  EXPECT_WRITER_ERROR([](Writer& w) { w.add_tensor("t", static_cast<DType>(4), {1}, {0}); },
                      "invalid type id 4");
  EXPECT_WRITER_ERROR([](Writer& w) { w.add_tensor(std::string(64, 'n'), DType::F32, {0}, {}); },
                      "name is 64 bytes long, at most 63");
  EXPECT_WRITER_ERROR(
      [](Writer& w) {
        w.add_tensor("t", DType::F32, {0}, {});
        w.add_tensor("t", DType::F32, {0}, {});
      },
      "duplicate tensor name 't'");
  EXPECT_WRITER_ERROR([](Writer& w) { w.set("", val(1u)); }, "empty key");
  EXPECT_WRITER_ERROR([](Writer& w) { w.set("general.alignment", val(48u)); },
                      "'general.alignment' is 48, expected a non-zero power of two");
  EXPECT_WRITER_ERROR([](Writer& w) { w.set("general.alignment", val(32)); },
                      "'general.alignment' has type i32, expected u32");
  EXPECT_WRITER_ERROR(
      [](Writer& w) {
        w.set("k", arr(ValueType::U32, {v<uint32_t>(1), v<int32_t>(2)}));
      },
      "key 'k': array element 1 has type i32, expected u32");
  EXPECT_WRITER_ERROR([](Writer& w) { w = Writer(4); }, "unsupported GGUF version 4");
  EXPECT_WRITER_ERROR(
      [](Writer& w) {
        Value deep = i32_array({1});
        for (int i = 0; i < 8; ++i) deep = arr(ValueType::ARRAY, {deep});
        w.set("deep", deep);
      },
      "nested deeper than 8 levels");
  EXPECT_EQ(writer_error([](Writer& w) {
              w.add_tensor("t", DType::Q4_0, {64, 2}, std::vector<uint8_t>(72));
            }),
            "");
}

}  // namespace
}  // namespace kz::gguf
