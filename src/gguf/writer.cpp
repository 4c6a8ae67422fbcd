// GGUF writer: the layout of llama.cpp's gguf_write_out (spec/gguf.md §2, §5): header, KV pairs,
// tensor infos, zero padding to the alignment, then each payload followed by zero padding. It
// pads even when there are no tensors, as llama.cpp does. The metadata part is built in memory;
// tensor payloads are streamed so write() never holds a second copy of the weights.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <unordered_set>

#include "base/error.h"
#include "gguf/format.h"
#include "gguf/gguf.h"

namespace kz::gguf {
namespace {

class Encoder {
 public:
  explicit Encoder(std::vector<uint8_t>* out) : out_(*out) {}

  template <class T>
  void put(T x) {  // little-endian host, as the reader assumes
    const auto* p = reinterpret_cast<const uint8_t*>(&x);
    out_.insert(out_.end(), p, p + sizeof(T));
  }
  void put_string(std::string_view s) {
    put<uint64_t>(s.size());
    out_.insert(out_.end(), s.begin(), s.end());
  }

  // `key` names the pair in errors; an element's type must match its array's element type.
  void put_value(const Value& v, std::string_view key) {
    switch (v.type()) {
      case ValueType::BOOL:
        put<uint8_t>(std::get<bool>(v.v) ? 1 : 0);
        break;
      case ValueType::STRING:
        put_string(std::get<std::string>(v.v));
        break;
      case ValueType::ARRAY: {
        const Array& a = std::get<Array>(v.v);
        put<uint32_t>(static_cast<uint32_t>(a.elem_type));
        put<uint64_t>(a.items.size());
        for (size_t i = 0; i < a.items.size(); ++i) {
          if (a.items[i].type() != a.elem_type) {
            fail("gguf writer: key '", printable(key), "': array element ", i, " has type ",
                 type_name(a.items[i].type()), ", expected ", type_name(a.elem_type));
          }
          put_value(a.items[i], key);
        }
        break;
      }
      default:
        std::visit(
            [&](const auto& x) {
              if constexpr (std::is_arithmetic_v<std::decay_t<decltype(x)>>) put(x);
            },
            v.v);
    }
  }

  void pad(uint64_t alignment) { out_.resize(pad_to(out_.size(), alignment), 0); }

 private:
  std::vector<uint8_t>& out_;
};

uint32_t writer_alignment(const std::vector<KeyValue>& kvs) {
  for (const KeyValue& kv : kvs) {
    if (kv.key != kAlignmentKey) continue;
    if (kv.value.type() != ValueType::U32) {
      fail("gguf writer: key '", kAlignmentKey, "' has type ", type_name(kv.value.type()),
           ", expected u32");
    }
    const uint32_t a = std::get<uint32_t>(kv.value.v);
    if (!is_power_of_two(a))
      fail("gguf writer: key '", kAlignmentKey, "' is ", a, ", expected a non-zero power of two");
    return a;
  }
  return kDefaultAlignment;
}

int array_depth(const Value& v) {
  if (v.type() != ValueType::ARRAY) return 0;
  int depth = 1;
  for (const Value& x : std::get<Array>(v.v).items) depth = std::max(depth, 1 + array_depth(x));
  return depth;
}

// Everything before the first payload: header, KV pairs, tensor infos and the padding.
std::vector<uint8_t> encode_metadata(uint32_t version, const std::vector<KeyValue>& kvs,
                                     const auto& tensors, uint32_t alignment) {
  if (version != 2 && version != 3)
    fail("gguf writer: unsupported GGUF version ", version, " (supported: 2, 3)");
  std::vector<uint8_t> out;
  out.reserve(4096);  // also keeps GCC 12 from a false -Wstringop-overflow on the first inserts
  Encoder e(&out);
  out.insert(out.end(), kMagic, kMagic + 4);
  e.put<uint32_t>(version);
  e.put<int64_t>(static_cast<int64_t>(tensors.size()));
  e.put<int64_t>(static_cast<int64_t>(kvs.size()));
  for (const KeyValue& kv : kvs) {
    e.put_string(kv.key);
    e.put<uint32_t>(static_cast<uint32_t>(kv.value.type()));
    e.put_value(kv.value, kv.key);
  }
  uint64_t offset = 0;
  for (const auto& t : tensors) {
    e.put_string(t.name);
    e.put<uint32_t>(static_cast<uint32_t>(t.ne.size()));
    for (int64_t n : t.ne) e.put<int64_t>(n);
    e.put<int32_t>(static_cast<int32_t>(t.type));
    e.put<uint64_t>(offset);
    offset += pad_to(t.data.size(), alignment);
  }
  e.pad(alignment);
  return out;
}

}  // namespace

void Writer::set(std::string key, Value value) {
  if (key.empty()) fail("gguf writer: empty key");
  if (array_depth(value) > kMaxArrayDepth) {
    fail("gguf writer: key '", printable(key), "': arrays nested deeper than ", kMaxArrayDepth,
         " levels");
  }
  for (KeyValue& kv : kvs_) {
    if (kv.key == key) {
      kv.value = std::move(value);
      return;
    }
  }
  kvs_.push_back({std::move(key), std::move(value)});
}

void Writer::add_tensor(std::string name, DType type, std::vector<int64_t> ne,
                        std::vector<uint8_t> data) {
  const std::string shown = printable(name);
  if (name.size() > kMaxNameLength) {
    fail("gguf writer: tensor '", shown, "': name is ", name.size(), " bytes long, at most ",
         kMaxNameLength);
  }
  for (const PendingTensor& t : tensors_)
    if (t.name == name) fail("gguf writer: duplicate tensor name '", shown, "'");
  if (ne.size() > kMaxDims)
    fail("gguf writer: tensor '", shown, "' has ", ne.size(), " dimensions, at most ", kMaxDims);
  const DTypeInfo* info = dtype_info(static_cast<uint32_t>(type));
  if (!info) fail("gguf writer: tensor '", shown, "' has invalid type id ", uint32_t(type));
  int64_t ne4[4] = {1, 1, 1, 1};  // dimensions not stored are 1, as the reader sees them
  for (size_t j = 0; j < ne.size(); ++j) {
    if (ne[j] < 0) fail("gguf writer: tensor '", shown, "' has negative ne[", j, "] = ", ne[j]);
    ne4[j] = ne[j];
  }
  if (ne4[0] % info->block_size != 0) {
    fail("gguf writer: tensor '", shown, "': ne[0] = ", ne4[0], " is not a multiple of the ",
         info->name, " block size ", info->block_size);
  }
  const bool empty = ne4[0] == 0 || ne4[1] == 0 || ne4[2] == 0 || ne4[3] == 0;
  uint64_t n_bytes = static_cast<uint64_t>(ne4[0] / info->block_size);
  bool overflow = __builtin_mul_overflow(n_bytes, uint64_t(info->block_bytes), &n_bytes);
  for (int j = 1; j < 4; ++j)
    overflow |= __builtin_mul_overflow(n_bytes, uint64_t(ne4[j]), &n_bytes);
  if (empty) {  // an empty tensor, whatever the other dimensions
    n_bytes = 0;
    overflow = false;
  }
  if (overflow) fail("gguf writer: tensor '", shown, "' has a byte size that overflows 64 bits");
  if (data.size() != n_bytes) {
    fail("gguf writer: tensor '", shown, "' has ", data.size(), " bytes of data, expected ",
         n_bytes, " for its shape and type ", info->name);
  }
  tensors_.push_back({std::move(name), type, std::move(ne), std::move(data)});
}

std::vector<uint8_t> Writer::to_bytes() const {
  const uint32_t alignment = writer_alignment(kvs_);
  std::vector<uint8_t> out = encode_metadata(version_, kvs_, tensors_, alignment);
  for (const PendingTensor& t : tensors_) {
    out.insert(out.end(), t.data.begin(), t.data.end());
    out.resize(pad_to(out.size(), alignment), 0);
  }
  return out;
}

void Writer::write(const std::string& path) const {
  const uint32_t alignment = writer_alignment(kvs_);
  const std::vector<uint8_t> meta = encode_metadata(version_, kvs_, tensors_, alignment);
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) fail(path, ": cannot create: ", std::strerror(errno));
  const std::vector<uint8_t> zeros(alignment, 0);
  auto put = [&](const uint8_t* p, size_t n) {
    if (n && std::fwrite(p, 1, n, f.get()) != n)
      fail(path, ": write failed: ", std::strerror(errno));
  };
  put(meta.data(), meta.size());
  for (const PendingTensor& t : tensors_) {
    put(t.data.data(), t.data.size());
    put(zeros.data(), pad_to(t.data.size(), alignment) - t.data.size());
  }
  if (std::fclose(f.release()) != 0) fail(path, ": write failed: ", std::strerror(errno));
}

}  // namespace kz::gguf
