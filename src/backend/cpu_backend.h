// `cpu`: the fast backend. Matrix products round activations to the weight type's dot-product
// format exactly as the reference implementation does (spec/quants.md §6), so results match the
// fixtures' ref.json; the other ops run the vectorized kernels of the kernel table (ops the table
// lacks fall back to the reference kernels). Work is split over a persistent thread pool; work too
// small to repay a dispatch runs on the calling thread.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/ref_backend.h"
#include "base/thread_pool.h"
#include "kernels/kernel_table.h"

namespace kz {

class CpuBackend : public RefBackend {
 public:
  // `table` (default: kernel_table(), chosen from the CPU's features) must outlive the backend;
  // tests pass tables built for fewer features to exercise every ISA's path.
  explicit CpuBackend(int n_threads, const KernelTable* table = nullptr);
  // Whether matrix products may repack weights into the kernels' layouts (Matrix::derived). Off
  // when an accelerator reads the same weights in file order: then one copy serves both, at the
  // cost of the row-major kernels (docs/benchmarks.md).
  void set_repack(bool repack) { repack_ = repack; }
  std::string_view name() const override { return "cpu"; }
  std::string device_key() const override { return "cpu/" + table_->isa; }
  int n_threads() const { return pool_.size(); }
  const KernelTable& table() const { return *table_; }

  void matmul(const Matrix& w, const float* x, int64_t n_tok, float* y) override;
  void rms_norm(const float* x, const float* w, int64_t n, int64_t rows, float eps,
                float* y) override;
  void rope_neox(float* x, int64_t n_tok, int n_head, int head_dim, int n_rot, const int32_t* pos,
                 float freq_base) override;
  void swiglu(const float* gate, const float* up, int64_t n, float* y) override;
  void silu(float* x, int64_t n) override;
  void add(float* x, const float* y, int64_t n) override;
  void mul_sigmoid(float* x, const float* gate, int64_t n) override;
  void kv_store(const KvCacheView& kv, int64_t pos0, int64_t n_tok, const float* k,
                const float* v) override;
  void attention(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok, int n_head,
                 float scale, float* out) override;
  // The vectorized recurrence for prompts and decode alike where the table has one, else the
  // chunked form for prompts; the value heads split over the threads.
  void gated_delta_rule(const DeltaNetDims& dims, int64_t n_tok, const float* qkv, const float* g,
                        const float* beta, float eps, float* state, float* out) override;
  void gated_rms_norm(const float* x, const float* z, const float* w, int64_t n, int64_t rows,
                      float eps, float* y) override;
  void ssm_conv(const float* x, int64_t n_tok, int64_t channels, int d_conv, const float* w,
                float* state, float* out) override;

 private:
  // Runs fn(begin, end) over [0, n) on the pool, or inline when `work` (a rough count of
  // element operations) is too small to repay waking the workers.
  template <class Fn>
  void split(int64_t n, int64_t grain, int64_t work, Fn&& fn);
  // split for uniform work (element-wise ops, rows of equal cost): a few chunks per thread, each
  // a multiple of `align` items, so claiming a chunk costs nothing next to running it.
  template <class Fn>
  void split_even(int64_t n, int64_t align, int64_t work, Fn&& fn);
  // How one matrix product runs: activations converted row by row (quantize) or two tokens at
  // a time (quantize_pair, PackedMatmul's), act_row bytes per token, and the kernels.
  struct MatmulPath {
    decltype(MatmulKernel::quantize) quantize;
    decltype(PackedMatmul::quantize_pair) quantize_pair;
    uint64_t act_row;
    decltype(MatmulKernel::gemv) gemv;
    decltype(MatmulKernel::gemm) gemm;
  };
  // w's rows in p's packed layout, made on first use and kept with the matrix (Matrix::derived).
  const uint8_t* packed_weights(const Matrix& w, const PackedMatmul& p);
  // Converts x once, then splits the rows of `weights` (w's bytes, or their packed form) over
  // the threads: gemm for several tokens where there is one, else gemv per token.
  void run_matmul(const uint8_t* weights, const Matrix& w, const MatmulPath& path, const float* x,
                  int64_t n_tok, float* y);
  // x's n_tok rows into act_ in path's format (in pairs: an even number of rows, a lone last
  // token paired with itself).
  void quantize_activations(const MatmulPath& path, const float* x, int64_t n_tok, int64_t cols);
  void chunked_delta_rule_heads(const DeltaNetDims& dims, int64_t n_tok, const float* qkv,
                                const float* g, const float* beta, float eps, float* state,
                                float* out);

  const KernelTable* table_;
  bool repack_ = true;
  ThreadPool pool_;
  std::vector<uint8_t> act_;  // activations in the dot-product format; grows, never shrinks
  std::vector<std::vector<float>> head_scratch_;  // per thread: one head's chunked-rule inputs
};

}  // namespace kz
