#include "backend/cpu_backend.h"

#include "base/error.h"
#include "kernels/kernel_table.h"
#include "kernels/ref/delta_net.h"

namespace kz {

CpuBackend::CpuBackend(int n_threads) : pool_(n_threads) {}

void CpuBackend::matmul(const Matrix& w, const float* x, int64_t n_tok, float* y) {
  const MatmulKernel& k = kernel_table().matmul[static_cast<uint32_t>(w.type)];
  if (!k.gemv) fail("matmul: no kernel for weight type ", dtype_name(w.type), " (", w.name, ")");
  const uint64_t act_row = row_bytes(k.act_type, w.cols);
  if (act_.size() < act_row * n_tok) act_.resize(act_row * n_tok);
  for (int64_t t = 0; t < n_tok; ++t) k.quantize(x + t * w.cols, act_.data() + t * act_row, w.cols);
  // Split the output rows; each thread multiplies its rows with every activation row.
  pool_.parallel_for(w.rows, 16, [&](int64_t begin, int64_t end, int) {
    const uint8_t* rows = w.data + begin * w.row_bytes;
    for (int64_t t = 0; t < n_tok; ++t)
      k.gemv(rows, w.row_bytes, end - begin, act_.data() + t * act_row, w.cols,
             y + t * w.rows + begin);
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
