// Binds tensors of a GGUF file to the views the model code uses, checking names, shapes and types
// like the reference loader: a missing tensor, a wrong shape or an unsupported type is an error
// naming the tensor; finish() rejects tensors nobody asked for.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "gguf/gguf.h"

namespace kz {

class WeightBinder {
 public:
  explicit WeightBinder(const gguf::File& file) : file_(file) {}

  bool has(const std::string& name) const { return file_.find_tensor(name) != nullptr; }
  // A matrix of ne = {cols, rows}; its type must be computable (dequantizable).
  Matrix matrix(const std::string& name, int64_t cols, int64_t rows);
  // A 1-D tensor of n elements as f32: in place if stored as F32, else converted once.
  const float* vector(const std::string& name, int64_t n);
  // A 2-D f32 tensor of ne = {cols, rows} (e.g. conv taps), converted once if not F32.
  const float* f32_matrix(const std::string& name, int64_t cols, int64_t rows);
  // Marks a tensor as used without binding it (e.g. MTP layers kept for later use).
  void keep(const std::string& name);
  // Throws if the file holds tensors that were not bound or kept.
  void finish() const;

 private:
  const gguf::TensorInfo& find(const std::string& name, std::initializer_list<int64_t> shape);
  const float* as_f32(const gguf::TensorInfo& t);

  const gguf::File& file_;
  std::set<std::string> used_;
  std::vector<std::unique_ptr<float[]>> converted_;
};

// Reads `key` as u32, or as an array of u32 whose entries must all be equal (per-layer arrays
// with differing values are not supported).
uint32_t u32_or_uniform_array(const gguf::File& file, const std::string& key);

}  // namespace kz
