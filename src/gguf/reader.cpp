// GGUF reader: validates the whole container in one forward pass over the mapped bytes, in the
// order of llama.cpp's gguf_init_from_reader (spec/gguf.md §6), plus the bounds check its model
// loader makes on each tensor's data. Tensor data is never copied: TensorInfo::data points into
// the mapping.
#include <algorithm>
#include <cstdint>
#include <unordered_set>
#include <utility>

#include "base/error.h"
#include "gguf/cursor.h"
#include "gguf/format.h"
#include "gguf/gguf.h"

namespace kz::gguf {
namespace {

// Everything parsed from one image; File::parse moves it into the File.
struct Parsed {
  uint32_t version = 0;
  uint32_t alignment = kDefaultAlignment;
  uint64_t data_offset = 0;
  std::vector<KeyValue> kvs;
  std::vector<TensorInfo> tensors;
};

class Parser {
 public:
  Parser(std::span<const uint8_t> bytes, const std::string& path)
      : cur_(bytes), bytes_(bytes), path_(path) {}

  Parsed run() {
    read_header();
    read_kvs();
    read_alignment();
    read_tensor_infos();
    place_tensors();
    return std::move(out_);
  }

 private:
  template <class... Args>
  [[noreturn]] void error(Args&&... args) const {
    fail(path_, ": ", std::forward<Args>(args)...);
  }

  // What is being read, for messages. Names are views into the file bytes, so they stay valid.
  std::string where() const {
    switch (stage_) {
      case Stage::kHeader:
        return "header";
      case Stage::kKey:
        return subject_.empty() ? cat("key #", index_) : cat("key '", printable(subject_), "'");
      case Stage::kTensor:
        return subject_.empty() ? cat("tensor info #", index_)
                                : cat("tensor '", printable(subject_), "'");
    }
    return "";
  }

  [[noreturn]] void truncated() const {
    error("truncated while reading ", where(), " (file size ", bytes_.size(), ")");
  }

  template <class T>
  T read() {
    T x;
    if (!cur_.read(&x)) truncated();
    return x;
  }

  // A view into the file: no copy until the caller decides to keep it.
  std::string_view read_string() {
    const uint64_t n = read<uint64_t>();
    if (n > kMaxStringLength)
      error(where(), ": string length ", n, " exceeds the limit of ", kMaxStringLength);
    const uint64_t left = cur_.remaining();
    const uint8_t* p = cur_.take(n);
    if (!p) error(where(), ": string length ", n, " exceeds the ", left, " bytes left in the file");
    return {reinterpret_cast<const char*>(p), n};
  }

  void read_header() {
    stage_ = Stage::kHeader;
    const uint8_t* magic = cur_.take(4);
    if (!magic) truncated();
    if (std::memcmp(magic, kMagic, 4) != 0) {
      error("invalid magic bytes ", hex(magic[0]), " ", hex(magic[1]), " ", hex(magic[2]), " ",
            hex(magic[3]), " (expected 47 47 55 46, \"GGUF\")");
    }
    const uint32_t v = read<uint32_t>();
    if (v == 0) error("bad GGUF version 0");
    if ((v & 0xFFFF) == 0)
      error("GGUF version ", v, " is extremely large; is the file big-endian?");
    if (v == 1) error("GGUF version 1 is no longer supported");
    if (v > 3) error("unsupported GGUF version ", v, " (supported: 2, 3)");
    out_.version = v;

    const int64_t n_tensors = read<int64_t>();
    const int64_t n_kv = read<int64_t>();
    if (n_tensors < 0) error("tensor count ", n_tensors, " is negative");
    if (n_kv < 0) error("key count ", n_kv, " is negative");
    // The limits of llama.cpp; the real bound is the file size, met while reading each entry.
    if (static_cast<uint64_t>(n_tensors) > SIZE_MAX / sizeof(TensorInfo))
      error("tensor count ", n_tensors, " exceeds the limit of ", SIZE_MAX / sizeof(TensorInfo));
    if (static_cast<uint64_t>(n_kv) > SIZE_MAX / sizeof(KeyValue))
      error("key count ", n_kv, " exceeds the limit of ", SIZE_MAX / sizeof(KeyValue));
    n_kv_ = static_cast<uint64_t>(n_kv);
    n_tensors_ = static_cast<uint64_t>(n_tensors);
  }

  void read_kvs() {
    stage_ = Stage::kKey;
    // Reserve no more than the bytes left could hold (a key takes at least 14 bytes), so a huge
    // count in a small file fails on truncation instead of on allocation.
    const uint64_t n = std::min(n_kv_, cur_.remaining() / 14);
    out_.kvs.reserve(n);
    std::unordered_set<std::string_view> seen;
    seen.reserve(n);
    for (index_ = 0; index_ < n_kv_; ++index_) {
      subject_ = {};
      const std::string_view key = read_string();
      if (key.empty()) error("key #", index_, " is empty");
      subject_ = key;
      if (!seen.insert(key).second) error("duplicate key '", printable(key), "'");
      const uint32_t type = read<uint32_t>();
      if (!valid_value_type(type)) error(where(), " has invalid value type ", type);
      Value value = read_value(static_cast<ValueType>(type), 0);
      out_.kvs.push_back({std::string(key), std::move(value)});
    }
  }

  template <size_t I>
  Value read_scalar() {
    Value out;
    out.v.emplace<I>(read<std::variant_alternative_t<I, decltype(Value::v)>>());
    return out;
  }

  Value read_value(ValueType type, int depth) {
    Value out;
    switch (type) {
      case ValueType::U8:
        return read_scalar<0>();
      case ValueType::I8:
        return read_scalar<1>();
      case ValueType::U16:
        return read_scalar<2>();
      case ValueType::I16:
        return read_scalar<3>();
      case ValueType::U32:
        return read_scalar<4>();
      case ValueType::I32:
        return read_scalar<5>();
      case ValueType::F32:
        return read_scalar<6>();
      case ValueType::BOOL:
        out.v = read<uint8_t>() != 0;
        return out;  // any non-zero byte
      case ValueType::STRING:
        out.v.emplace<std::string>(read_string());
        return out;
      case ValueType::ARRAY:
        out.v = read_array(depth);
        return out;
      case ValueType::U64:
        return read_scalar<10>();
      case ValueType::I64:
        return read_scalar<11>();
      case ValueType::F64:
        return read_scalar<12>();
    }
    return out;
  }

  Array read_array(int depth) {
    if (depth >= kMaxArrayDepth)
      error(where(), ": arrays nested deeper than ", kMaxArrayDepth, " levels");
    const uint32_t elem = read<uint32_t>();
    if (!valid_value_type(elem)) error(where(), " has invalid array element type ", elem);
    const uint64_t n = read<uint64_t>();
    if (n > kMaxArrayElements)
      error(where(), ": array of ", n, " elements exceeds the limit of ", kMaxArrayElements);
    Array a;
    a.elem_type = static_cast<ValueType>(elem);
    // n <= 2^30 and the minimum size <= 12, so the product cannot overflow.
    const uint64_t need = n * min_encoded_size(a.elem_type);
    if (need > cur_.remaining()) {
      error(where(), ": array of ", n, " ", type_name(a.elem_type), " needs at least ", need,
            " bytes, ", cur_.remaining(), " left in the file");
    }
    a.items.resize(n);
    if (a.elem_type == ValueType::STRING) {  // vocabularies: 150k strings, construct in place
      for (Value& item : a.items) item.v.emplace<std::string>(read_string());
    } else {
      for (Value& item : a.items) item = read_value(a.elem_type, depth + 1);
    }
    return a;
  }

  void read_alignment() {
    const KeyValue* kv = nullptr;
    for (const KeyValue& x : out_.kvs)
      if (x.key == kAlignmentKey) kv = &x;
    if (!kv) return;
    if (kv->value.type() != ValueType::U32) {
      error("key '", kAlignmentKey, "' has type ", type_name(kv->value.type()), ", expected u32");
    }
    const uint32_t a = std::get<uint32_t>(kv->value.v);
    if (!is_power_of_two(a))
      error("key '", kAlignmentKey, "' is ", a, ", expected a non-zero power of two");
    out_.alignment = a;
  }

  void read_tensor_infos() {
    stage_ = Stage::kTensor;
    const uint64_t n = std::min(n_tensors_, cur_.remaining() / 24);  // an info takes >= 24 bytes
    out_.tensors.reserve(n);
    std::unordered_set<std::string_view> seen;
    seen.reserve(n);
    for (index_ = 0; index_ < n_tensors_; ++index_) {
      subject_ = {};
      const std::string_view name = read_string();
      subject_ = name;
      if (name.size() > kMaxNameLength)
        error(where(), ": name is ", name.size(), " bytes long, at most ", kMaxNameLength);
      if (!seen.insert(name).second) error("duplicate tensor name '", printable(name), "'");
      TensorInfo t;
      t.name = std::string(name);
      t.n_dims = read<uint32_t>();
      if (t.n_dims > kMaxDims) error(where(), " has ", t.n_dims, " dimensions, at most ", kMaxDims);
      for (uint32_t j = 0; j < t.n_dims; ++j) {
        t.ne[j] = read<int64_t>();
        if (t.ne[j] < 0) error(where(), " has negative dimension ne[", j, "] = ", t.ne[j]);
      }
      check_element_count(t);
      const int32_t type = read<int32_t>();
      const DTypeInfo* info = dtype_info(static_cast<uint32_t>(type));
      if (!info) error(where(), " has invalid type id ", type);
      t.type = static_cast<DType>(type);
      if (t.ne[0] % info->block_size != 0) {
        error(where(), ": ne[0] = ", t.ne[0], " is not a multiple of the ", info->name,
              " block size ", info->block_size);
      }
      t.nbytes = byte_size(t, *info);
      t.offset = read<uint64_t>();
      out_.tensors.push_back(std::move(t));
    }
  }

  // Same test as llama.cpp: the running products must stay below INT64_MAX.
  void check_element_count(const TensorInfo& t) const {
    const int64_t* ne = t.ne;
    if (ne[0] == 0 || ne[1] == 0 || ne[2] == 0 || ne[3] == 0) return;
    if (INT64_MAX / ne[1] <= ne[0] || INT64_MAX / ne[2] <= ne[0] * ne[1] ||
        INT64_MAX / ne[3] <= ne[0] * ne[1] * ne[2]) {
      error(where(), " has shape [", ne[0], ", ", ne[1], ", ", ne[2], ", ", ne[3],
            "] whose element count overflows int64");
    }
  }

  uint64_t byte_size(const TensorInfo& t, const DTypeInfo& info) const {
    for (int64_t n : t.ne)
      if (n == 0) return 0;  // an empty tensor, whatever the other dimensions
    uint64_t n = static_cast<uint64_t>(t.ne[0] / info.block_size);
    bool overflow = __builtin_mul_overflow(n, static_cast<uint64_t>(info.block_bytes), &n);
    for (int j = 1; j < 4; ++j)
      overflow |= __builtin_mul_overflow(n, static_cast<uint64_t>(t.ne[j]), &n);
    if (overflow) error(where(), " has a byte size that overflows 64 bits");
    return n;
  }

  // Data starts at the next multiple of the alignment after the infos (only if there are tensors:
  // vocab-only files end right after their metadata). Offsets must be the running padded sum.
  void place_tensors() {
    const uint64_t size = bytes_.size();
    const uint64_t align = out_.alignment;
    uint64_t start = cur_.pos();
    if (n_tensors_ > 0) {
      start = pad_to(start, align);  // pos <= size < 2^63 and align <= 2^31: no overflow
      if (start > size)
        error("data section starts at ", start, ", past the end of the file (size ", size, ")");
    }
    out_.data_offset = start;
    const uint64_t avail = size - start;
    uint64_t expected = 0;
    for (TensorInfo& t : out_.tensors) {
      const std::string name = printable(t.name);
      if (t.offset % align != 0) {
        error("tensor '", name, "' has offset ", t.offset, ", not a multiple of the alignment ",
              align);
      }
      if (t.offset != expected)
        error("tensor '", name, "' has offset ", t.offset, ", expected ", expected);
      // Only the payload must be inside the file; the last tensor's padding may be missing.
      if (t.offset > avail || t.nbytes > avail - t.offset) {
        error("tensor '", name, "' data [offset ", start + t.offset, ", ", t.nbytes,
              " bytes] extends past end of file (size ", size, ")");
      }
      t.data = bytes_.data() + start + t.offset;
      expected += pad_to(t.nbytes, align);  // nbytes <= size: no overflow
    }
  }

  static std::string hex(uint8_t b) {
    const char* digits = "0123456789abcdef";
    return {digits[b >> 4], digits[b & 15]};
  }

  enum class Stage { kHeader, kKey, kTensor };

  Cursor cur_;
  std::span<const uint8_t> bytes_;
  const std::string& path_;
  Stage stage_ = Stage::kHeader;
  uint64_t index_ = 0;
  std::string_view subject_;  // key or tensor name being read, empty before it is known
  uint64_t n_kv_ = 0;
  uint64_t n_tensors_ = 0;
  Parsed out_;
};

}  // namespace

File File::parse(std::span<const uint8_t> bytes, const std::string& name) {
  Parsed p = Parser(bytes, name).run();
  File f;
  f.path_ = name;
  f.bytes_ = bytes;
  f.version_ = p.version;
  f.alignment_ = p.alignment;
  f.data_offset_ = p.data_offset;
  f.kvs_ = std::move(p.kvs);
  f.tensors_ = std::move(p.tensors);
  return f;
}

File File::open(const std::string& path) {
  auto mapping = std::make_shared<MappedFile>(path);
  File f = parse(mapping->bytes(), path);
  f.mapping_ = std::move(mapping);
  return f;
}

const Value* File::find(std::string_view key) const {
  for (const KeyValue& kv : kvs_)
    if (kv.key == key) return &kv.value;
  return nullptr;
}

const TensorInfo* File::find_tensor(std::string_view name) const {
  for (const TensorInfo& t : tensors_)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace kz::gguf
