// `cpu`: the fast backend. Matrix products round activations to the weight type's dot-product
// format exactly as the reference implementation does (spec/quants.md §6), so results match the
// fixtures' ref.json; work is split by rows over a persistent thread pool. Ops without a faster
// version fall back to the reference kernels explicitly, by inheritance.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/ref_backend.h"
#include "base/thread_pool.h"

namespace kz {

class CpuBackend : public RefBackend {
 public:
  explicit CpuBackend(int n_threads);
  std::string_view name() const override { return "cpu"; }
  int n_threads() const { return pool_.size(); }

  void matmul(const Matrix& w, const float* x, int64_t n_tok, float* y) override;
  // Prefill uses the chunked (linear-time, matrix-product) form; decode the recurrence.
  void gated_delta_rule(const DeltaNetDims& dims, int64_t n_tok, const float* qkv, const float* g,
                        const float* beta, float eps, float* state, float* out) override;

 private:
  ThreadPool pool_;
  std::vector<uint8_t> act_;  // activations in the dot-product format; grows, never shrinks
};

}  // namespace kz
