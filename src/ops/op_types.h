// The arguments of ops that backends and kernels both read: weight matrices, views of a K/V
// cache, Gated DeltaNet dimensions. Kernels include this, not the backend interface.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "ops/derived_weights.h"
#include "quant/types.h"

namespace kz {

// A weight matrix in a block format: `rows` rows of `cols` elements, row r at data + r*row_bytes.
// (In GGUF terms ne = {cols, rows}.)
struct Matrix {
  DType type = DType::F32;
  int64_t cols = 0, rows = 0;
  const uint8_t* data = nullptr;
  uint64_t row_bytes = 0;
  std::string_view name;  // tensor name, for errors and profiles
  // What backends derive from these weights (e.g. repacked rows), shared by the copies of this
  // Matrix so it lives as long as the model's; null: derive nothing (backends must cope).
  std::shared_ptr<DerivedWeights> derived;
};

// One attention layer's K/V cache for one sequence: k[n_kv_head][n_ctx][head_dim], same for v;
// each of element type F32, F16 or Q8_0 (a head's row at one position is row_bytes(type,
// head_dim) bytes; with Q8_0, head_dim / 32 whole blocks). Head-major, so that attention reads
// each KV head's positions as one contiguous stream, which the hardware prefetchers follow.
struct KvCacheView {
  DType k_type = DType::F32, v_type = DType::F32;
  void* k = nullptr;
  void* v = nullptr;
  int64_t n_ctx = 0;
  int n_kv_head = 0, head_dim = 0;

  uint64_t k_head_bytes() const { return row_bytes(k_type, head_dim); }
  uint64_t v_head_bytes() const { return row_bytes(v_type, head_dim); }
  // KV head h's row at position pos.
  uint8_t* k_row(int h, int64_t pos) const {
    return static_cast<uint8_t*>(k) + (h * n_ctx + pos) * k_head_bytes();
  }
  uint8_t* v_row(int h, int64_t pos) const {
    return static_cast<uint8_t*>(v) + (h * n_ctx + pos) * v_head_bytes();
  }
};

// Gated DeltaNet dimensions (spec/qwen35.md §3): n_k key heads of d_k, n_v value heads of d_v.
struct DeltaNetDims {
  int n_k = 0, d_k = 0, n_v = 0, d_v = 0;
  int64_t key_dim() const { return int64_t(n_k) * d_k; }
  int64_t value_dim() const { return int64_t(n_v) * d_v; }
  int64_t conv_dim() const { return 2 * key_dim() + value_dim(); }
  int64_t state_floats() const { return int64_t(n_v) * d_v * d_k; }
};

}  // namespace kz
