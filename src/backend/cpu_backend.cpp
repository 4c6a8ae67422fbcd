#include "backend/cpu_backend.h"

#include "kernels/ref/delta_net.h"
#include "kernels/ref/vec_dot.h"

namespace kz {

CpuBackend::CpuBackend(int n_threads) : pool_(n_threads) {}

void CpuBackend::matmul(const Matrix& w, const float* x, int64_t n_tok, float* y) {
  const DType act_type = ref::vec_dot_type(w.type);
  const uint64_t act_row = row_bytes(act_type, w.cols);
  if (act_.size() < act_row * n_tok) act_.resize(act_row * n_tok);
  for (int64_t t = 0; t < n_tok; ++t)
    ref::quantize_activation(act_type, x + t * w.cols, act_.data() + t * act_row, w.cols);
  pool_.parallel_for(w.rows, 16, [&](int64_t begin, int64_t end, int) {
    for (int64_t o = begin; o < end; ++o) {
      const uint8_t* wrow = w.data + o * w.row_bytes;
      for (int64_t t = 0; t < n_tok; ++t)
        y[t * w.rows + o] = ref::vec_dot(w.type, wrow, act_.data() + t * act_row, w.cols);
    }
  });
}

void CpuBackend::gated_delta_rule(const DeltaNetDims& dims, int64_t n_tok, const float* qkv,
                                  const float* g, const float* beta, float eps, float* state,
                                  float* out) {
  if (n_tok == 1)
    ref::gated_delta_rule_recurrent(dims, n_tok, qkv, g, beta, eps, state, out);
  else
    ref::gated_delta_rule_chunked(dims, n_tok, qkv, g, beta, eps, state, out);
}

}  // namespace kz
