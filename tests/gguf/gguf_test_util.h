// Helpers for the GGUF tests: a raw byte builder for hand-made (often broken) images, and a
// parse wrapper that returns the error message.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "gguf/gguf.h"

namespace kz::gguf::test {

// Appends little-endian fields; methods chain so an image reads like the file layout.
struct Image {
  std::vector<uint8_t> b;

  template <class T>
  Image& put(T x) {
    const auto* p = reinterpret_cast<const uint8_t*>(&x);
    b.insert(b.end(), p, p + sizeof(T));
    return *this;
  }
  Image& u8(uint8_t x) { return put(x); }
  Image& u32(uint32_t x) { return put(x); }
  Image& i32(int32_t x) { return put(x); }
  Image& u64(uint64_t x) { return put(x); }
  Image& i64(int64_t x) { return put(x); }
  Image& str(std::string_view s) {
    u64(s.size());
    b.insert(b.end(), s.begin(), s.end());
    return *this;
  }
  Image& header(int64_t n_tensors, int64_t n_kv, uint32_t version = 3) {
    b.insert(b.end(), {'G', 'G', 'U', 'F'});
    return u32(version).i64(n_tensors).i64(n_kv);
  }
  Image& kv_u32(std::string_view key, uint32_t v) { return str(key).u32(4).u32(v); }
  Image& kv_str(std::string_view key, std::string_view v) { return str(key).u32(8).str(v); }
  Image& tensor(std::string_view name, std::vector<int64_t> ne, int32_t type, uint64_t offset) {
    str(name).u32(static_cast<uint32_t>(ne.size()));
    for (int64_t n : ne) i64(n);
    return i32(type).u64(offset);
  }
  Image& pad(size_t alignment) {
    b.resize((b.size() + alignment - 1) / alignment * alignment, 0);
    return *this;
  }
  Image& zeros(size_t n) {
    b.resize(b.size() + n, 0);
    return *this;
  }
};

// The kz::Error message of parsing `bytes` (from an exact-size heap copy, so a sanitizer sees any
// read past the end), or "" if the image loads.
inline std::string parse_error(const std::vector<uint8_t>& bytes,
                               const std::string& name = "bad.gguf") {
  std::vector<uint8_t> copy(bytes);
  try {
    File::parse(copy, name);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_PARSE_ERROR(image, substring)                                           \
  do {                                                                                 \
    const std::string msg_ = ::kz::gguf::test::parse_error((image).b);                 \
    EXPECT_NE(msg_.find(substring), std::string::npos) << "message: '" << msg_ << "'"; \
    EXPECT_EQ(msg_.rfind("bad.gguf: ", 0), 0u) << "message: '" << msg_ << "'";         \
    EXPECT_EQ(msg_.find('\n'), std::string::npos) << "message: '" << msg_ << "'";      \
  } while (0)

// A Writer holding everything `f` holds, in the same order (for byte-exact round trips).
inline Writer writer_from(const File& f) {
  Writer w(f.version());
  for (const KeyValue& kv : f.metadata()) w.set(kv.key, kv.value);
  for (const TensorInfo& t : f.tensors()) {
    w.add_tensor(t.name, t.type, std::vector<int64_t>(t.ne, t.ne + t.n_dims),
                 std::vector<uint8_t>(t.data, t.data + t.nbytes));
  }
  return w;
}

// Loads `data` if it is a valid image and touches every value and tensor byte; throws only
// kz::Error. Shared by the mutation tests and the libFuzzer entry (fuzz_gguf.cpp).
uint64_t exercise(const uint8_t* data, size_t size);

}  // namespace kz::gguf::test
