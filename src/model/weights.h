// Binds tensors of a GGUF file to the views the model code uses, checking names, shapes and types
// like the reference loader: a missing tensor, a wrong shape or an unsupported type is an error
// naming the tensor; finish() rejects tensors nobody asked for. The names, shapes and kinds come
// from the architecture's tensor list (tensor_list.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "gguf/gguf.h"
#include "model/tensor_list.h"

namespace kz {

// The bound tensors of a list, by role and block.
class BoundTensors {
 public:
  bool has(TensorRole role, int64_t layer = -1) const { return bound_.count({layer, role}) > 0; }
  // A matrix-kind tensor, e.g. matrix(TensorRole::attn_q, il).
  const Matrix& matrix(TensorRole role, int64_t layer = -1) const {
    return bound_.at({layer, role}).matrix;
  }
  // A vector or f32_matrix as f32: in place if stored as F32, else converted once.
  const float* f32(TensorRole role, int64_t layer = -1) const {
    return bound_.at({layer, role}).f32;
  }

 private:
  friend class WeightBinder;
  struct Bound {
    Matrix matrix;
    const float* f32 = nullptr;
  };
  std::map<std::pair<int64_t, TensorRole>, Bound> bound_;
};

class WeightBinder {
 public:
  explicit WeightBinder(const gguf::File& file) : file_(file) {}

  bool has(const std::string& name) const { return file_.find_tensor(name) != nullptr; }
  // Binds every tensor of `list` in order (an optional one only if the file has it); a matrix's
  // type must be computable (dequantizable).
  BoundTensors bind(std::span<const TensorSpec> list);
  // Marks a tensor as used without binding it (e.g. MTP layers kept for later use).
  void keep(const std::string& name);
  // Throws if the file holds tensors that were not bound or kept.
  void finish() const;

 private:
  const gguf::TensorInfo& find(const std::string& name, std::span<const int64_t> shape);
  Matrix matrix(const gguf::TensorInfo& t);
  const float* as_f32(const gguf::TensorInfo& t);

  const gguf::File& file_;
  std::set<std::string> used_;
  std::vector<std::unique_ptr<float[]>> converted_;
};

// Reads `key` as u32, or as an array of u32 whose entries must all be equal (per-layer arrays
// with differing values are not supported).
uint32_t u32_or_uniform_array(const gguf::File& file, const std::string& key);

}  // namespace kz
