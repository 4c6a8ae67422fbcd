#include "gguf/streaming_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <type_traits>
#include <variant>

#include "base/error.h"

namespace kz {
namespace {

constexpr uint32_t kAlignment = 32;  // GGUF default; the file carries no general.alignment

uint64_t pad_to(uint64_t x, uint64_t n) {
  return (x + n - 1) / n * n;
}

class Encoder {
 public:
  template <class T>
  void put(T x) {  // little-endian host, as the reader assumes
    const size_t n = out.size();
    out.resize(n + sizeof(T));
    std::memcpy(out.data() + n, &x, sizeof(T));
  }
  void put_string(const std::string& s) {
    put<uint64_t>(s.size());
    out.insert(out.end(), s.begin(), s.end());
  }
  void put_value(const gguf::Value& v) {
    if (const auto* s = std::get_if<std::string>(&v.v)) {
      put_string(*s);
    } else if (const auto* a = std::get_if<gguf::Array>(&v.v)) {
      put<uint32_t>(static_cast<uint32_t>(a->elem_type));
      put<uint64_t>(a->items.size());
      for (const gguf::Value& x : a->items) put_value(x);
    } else if (const auto* b = std::get_if<bool>(&v.v)) {
      put<uint8_t>(*b ? 1 : 0);
    } else {
      std::visit(
          [&](const auto& x) {
            if constexpr (std::is_arithmetic_v<std::decay_t<decltype(x)>>) put(x);
          },
          v.v);
    }
  }
  std::vector<uint8_t> out;
};

}  // namespace

uint64_t tensor_bytes(DType type, const std::vector<int64_t>& ne) {
  uint64_t n = ne.empty() ? 0 : row_bytes(type, ne[0]);
  for (size_t i = 1; i < ne.size(); ++i) n *= uint64_t(ne[i]);
  return n;
}

StreamingGgufWriter::StreamingGgufWriter(const std::string& path,
                                         const std::vector<gguf::KeyValue>& kvs,
                                         std::vector<TensorHeader> tensors)
    : path_(path), tensors_(std::move(tensors)) {
  Encoder e;
  e.put<uint8_t>('G');
  e.put<uint8_t>('G');
  e.put<uint8_t>('U');
  e.put<uint8_t>('F');
  e.put<uint32_t>(3);
  e.put<int64_t>(int64_t(tensors_.size()));
  e.put<int64_t>(int64_t(kvs.size()));
  for (const gguf::KeyValue& kv : kvs) {
    e.put_string(kv.key);
    e.put<uint32_t>(static_cast<uint32_t>(kv.value.type()));
    e.put_value(kv.value);
  }
  uint64_t offset = 0;
  for (const TensorHeader& t : tensors_) {
    if (t.ne.empty() || t.ne.size() > 4 || t.ne[0] % info(t.type).block_size != 0)
      fail(path, ": tensor '", t.name, "' has a shape invalid for type ", dtype_name(t.type));
    sizes_.push_back(tensor_bytes(t.type, t.ne));
    e.put_string(t.name);
    e.put<uint32_t>(uint32_t(t.ne.size()));
    for (int64_t n : t.ne) e.put<int64_t>(n);
    e.put<int32_t>(static_cast<int32_t>(t.type));
    e.put<uint64_t>(offset);
    offset += pad_to(sizes_.back(), kAlignment);
  }
  e.out.resize(pad_to(e.out.size(), kAlignment), 0);

  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) fail(path, ": cannot create: ", std::strerror(errno));
  put(e.out.data(), e.out.size());
}

StreamingGgufWriter::~StreamingGgufWriter() {
  if (file_) std::fclose(file_);
}

void StreamingGgufWriter::put(const void* data, uint64_t n) {
  if (n && std::fwrite(data, 1, n, file_) != n)
    fail(path_, ": write failed: ", std::strerror(errno));
}

void StreamingGgufWriter::write(const void* data, uint64_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (n > 0) {
    if (current_ >= tensors_.size()) fail(path_, ": more tensor data than the tensors hold");
    const uint64_t take = std::min(n, sizes_[current_] - written_);
    put(p, take);
    p += take;
    n -= take;
    written_ += take;
    if (written_ == sizes_[current_]) {
      static const uint8_t zeros[kAlignment] = {};
      put(zeros, pad_to(written_, kAlignment) - written_);
      ++current_;
      written_ = 0;
    }
  }
}

void StreamingGgufWriter::finish() {
  // Empty tensors are complete without data.
  while (current_ < tensors_.size() && sizes_[current_] == 0) ++current_;
  if (current_ != tensors_.size())
    fail(path_, ": tensor '", tensors_[current_].name, "' is incomplete");
  std::FILE* f = file_;
  file_ = nullptr;
  if (std::fclose(f) != 0) fail(path_, ": write failed: ", std::strerror(errno));
}

}  // namespace kz
