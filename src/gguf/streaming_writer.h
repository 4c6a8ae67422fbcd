// A GGUF writer that streams tensor payloads to the file as they are produced, so a multi-GB
// model is written with bounded memory (gguf::Writer keeps every payload in memory until
// write()). The bytes are exactly those gguf::Writer would produce for the same metadata and
// tensors (checked by tests/model/synthetic_test.cpp); layout: spec/gguf.md §2, §5.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gguf/gguf.h"

namespace kz {

class StreamingGgufWriter {
 public:
  struct TensorHeader {
    std::string name;
    DType type;
    std::vector<int64_t> ne;  // ne[0] contiguous
  };

  // Creates `path` and writes the header, metadata and tensor infos (alignment 32).
  StreamingGgufWriter(const std::string& path, const std::vector<gguf::KeyValue>& kvs,
                      std::vector<TensorHeader> tensors);
  ~StreamingGgufWriter();

  // Appends payload bytes; tensors are filled in header order, each exactly its byte size, and
  // padded when complete.
  void write(const void* data, uint64_t n);
  // Checks that every payload is complete and closes the file; throws on a write error.
  void finish();

 private:
  void put(const void* data, uint64_t n);

  std::string path_;
  std::FILE* file_ = nullptr;
  std::vector<TensorHeader> tensors_;
  std::vector<uint64_t> sizes_;
  size_t current_ = 0;    // tensor being written
  uint64_t written_ = 0;  // bytes of it so far
};

// Payload bytes of a tensor of this type and shape.
uint64_t tensor_bytes(DType type, const std::vector<int64_t>& ne);

}  // namespace kz
