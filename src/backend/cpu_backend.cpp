#include "backend/cpu_backend.h"

#include <algorithm>

#include "base/error.h"
#include "base/mapped_file.h"
#include "kernels/blocked_attention.h"
#include "kernels/ref/delta_net.h"
#include "quant/blocks.h"

namespace kz {
namespace {

// Below this many element operations an op runs on the calling thread. Waking the pool costs a
// few microseconds on an idle machine and up to ~1 ms when the cores are oversubscribed
// (bench/ops_bench.cpp: BM_PoolDispatch); 256k simple vector operations take ~20-50 us on one
// core, so smaller work (every element-wise op of a decode step) never pays for a dispatch.
constexpr int64_t kMinParallelWork = 1 << 18;
// Chunks per thread for uniform work: more than one, so a thread that a busy core slows down
// leaves its last chunks to the others.
constexpr int64_t kChunksPerThread = 4;
// Weight rows per matmul task: a prompt's task is kRowBlock rows for all its tokens (they stay
// in cache while every token group passes); a decode task is a multiple of kRowBlock rows
// (which every packed layout's group size divides).
constexpr int64_t kRowBlock = 16;
// Largest head / rotation sizes the vector kernels take on the stack (larger: reference).
constexpr int kMaxVectorHeadDim = 512;

}  // namespace

CpuBackend::CpuBackend(int n_threads, const KernelTable* table)
    : table_(table ? table : &kernel_table()), pool_(n_threads), head_scratch_(pool_.size()) {}

template <class Fn>
void CpuBackend::split(int64_t n, int64_t grain, int64_t work, Fn&& fn) {
  if (work < kMinParallelWork || pool_.size() == 1 || n <= grain) {
    fn(int64_t(0), n);
    return;
  }
  pool_.parallel_for(n, grain, [&](int64_t begin, int64_t end, int) { fn(begin, end); });
}

template <class Fn>
void CpuBackend::split_even(int64_t n, int64_t align, int64_t work, Fn&& fn) {
  const int64_t per_chunk = n / (kChunksPerThread * n_threads());
  split(n, std::max<int64_t>(1, per_chunk / align) * align, work, fn);
}

void CpuBackend::matmul(const Matrix& w, const float* x, int64_t n_tok, float* y) {
  const MatmulKernel& k = table_->matmul[static_cast<uint32_t>(w.type)];
  if (!k.gemv) fail("matmul: no kernel for weight type ", dtype_name(w.type), " (", w.name, ")");
  const PackedMatmul& p = k.packed;
  if (repack_ && p.rows && w.derived && w.rows % p.rows == 0)
    return run_matmul(
        packed_weights(w, p), w,
        {p.quantize, p.quantize_pair, w.cols / kQK * p.act_block_bytes, p.gemv, p.gemm}, x, n_tok,
        y);
  run_matmul(w.data, w, {k.quantize, nullptr, row_bytes(k.act_type, w.cols), k.gemv, k.gemm}, x,
             n_tok, y);
}

const uint8_t* CpuBackend::packed_weights(const Matrix& w, const PackedMatmul& p) {
  return w.derived->get(
      reinterpret_cast<const void*>(p.pack), w.row_bytes * w.rows, [&](uint8_t* dst) {
        // In slices, each source slice's pages released once packed, so the
        // process holds one copy of the weights (plus a slice), not two.
        const int64_t slice = p.rows * std::max<int64_t>(1, (1 << 20) / (p.rows * w.row_bytes));
        split(w.rows, slice, w.rows * w.cols, [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; r += slice) {
            const int64_t rows = std::min(slice, end - r);
            const uint64_t offset = r * w.row_bytes;
            p.pack(w.data + offset, w.row_bytes, rows, w.cols, dst + offset);
            release_pages(w.data + offset, rows * w.row_bytes);
          }
        });
      });
}

void CpuBackend::quantize_activations(const MatmulPath& path, const float* x, int64_t n_tok,
                                      int64_t cols) {
  const uint64_t act_row = path.act_row;
  const int64_t pairs = (n_tok + 1) / 2;
  const int64_t rows = path.quantize_pair ? 2 * pairs : n_tok;
  if (act_.size() < act_row * rows) act_.resize(act_row * rows);
  uint8_t* act = act_.data();
  if (!path.quantize_pair)
    return split_even(n_tok, 1, n_tok * cols * 4, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) path.quantize(x + t * cols, act + t * act_row, cols);
    });
  split_even(pairs, 1, n_tok * cols * 4, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p)
      path.quantize_pair(x + 2 * p * cols, x + std::min(2 * p + 1, n_tok - 1) * cols,
                         act + 2 * p * act_row, cols);
  });
}

void CpuBackend::run_matmul(const uint8_t* weights, const Matrix& w, const MatmulPath& path,
                            const float* x, int64_t n_tok, float* y) {
  quantize_activations(path, x, n_tok, w.cols);
  const uint8_t* act = act_.data();
  const uint64_t act_row = path.act_row;
  // One token reads each row once, at memory speed: chunks of about an eighth of a thread's
  // share keep claiming them (an atomic on a shared cache line) cheap next to their reads, and
  // still leave a busy core's share to the others.
  const int64_t per_claim = w.rows / (8 * int64_t(n_threads()));
  const int64_t grain =
      n_tok > 1 && path.gemm ? kRowBlock : std::max<int64_t>(1, per_claim / kRowBlock) * kRowBlock;
  split(w.rows, grain, w.rows * w.cols * n_tok, [&](int64_t begin, int64_t end) {
    if (path.gemm && n_tok > 1)
      return path.gemm(weights + begin * w.row_bytes, w.row_bytes, end - begin, act, act_row, n_tok,
                       w.cols, y + begin, w.rows);
    const uint8_t* rows = weights + begin * w.row_bytes;
    for (int64_t t = 0; t < n_tok; ++t)
      path.gemv(rows, w.row_bytes, end - begin, act + t * act_row, w.cols, y + t * w.rows + begin);
  });
}

void CpuBackend::rms_norm(const float* x, const float* w, int64_t n, int64_t rows, float eps,
                          float* y) {
  auto* f = table_->ops.rms_norm;
  if (!f) return RefBackend::rms_norm(x, w, n, rows, eps, y);
  split_even(rows, 1, n * rows,
             [&](int64_t b, int64_t e) { f(x + b * n, w, n, e - b, eps, y + b * n); });
}

void CpuBackend::rope_neox(float* x, int64_t n_tok, int n_head, int head_dim, int n_rot,
                           const int32_t* pos, float freq_base) {
  auto* f = table_->ops.rope_neox;
  if (!f || n_rot / 2 > kMaxVectorHeadDim)
    return RefBackend::rope_neox(x, n_tok, n_head, head_dim, n_rot, pos, freq_base);
  const int64_t tok = int64_t(n_head) * head_dim;
  split_even(n_tok, 1, n_tok * (tok + 16 * n_rot), [&](int64_t b, int64_t e) {
    f(x + b * tok, e - b, n_head, head_dim, n_rot, pos + b, freq_base);
  });
}

void CpuBackend::swiglu(const float* gate, const float* up, int64_t n, float* y) {
  auto* f = table_->ops.swiglu;
  if (!f) return RefBackend::swiglu(gate, up, n, y);
  split_even(n, 64, 8 * n, [&](int64_t b, int64_t e) { f(gate + b, up + b, e - b, y + b); });
}

void CpuBackend::silu(float* x, int64_t n) {
  auto* f = table_->ops.silu;
  if (!f) return RefBackend::silu(x, n);
  split_even(n, 64, 8 * n, [&](int64_t b, int64_t e) { f(x + b, e - b); });
}

void CpuBackend::add(float* x, const float* y, int64_t n) {
  auto* f = table_->ops.add;
  if (!f) return RefBackend::add(x, y, n);
  split_even(n, 64, n, [&](int64_t b, int64_t e) { f(x + b, y + b, e - b); });
}

void CpuBackend::mul_sigmoid(float* x, const float* gate, int64_t n) {
  auto* f = table_->ops.mul_sigmoid;
  if (!f) return RefBackend::mul_sigmoid(x, gate, n);
  split_even(n, 64, 8 * n, [&](int64_t b, int64_t e) { f(x + b, gate + b, e - b); });
}

// F16 caches (the default) take the table's converter, rows split over the threads; the same
// bytes as the reference's.
void CpuBackend::kv_store(const KvCacheView& kv, int64_t pos0, int64_t n_tok, const float* k,
                          const float* v) {
  auto* f = table_->ops.to_f16;
  if (!f || kv.k_type != DType::F16 || kv.v_type != DType::F16)
    return RefBackend::kv_store(kv, pos0, n_tok, k, v);
  const int d = kv.head_dim;
  const int64_t rows = n_tok * kv.n_kv_head;
  split_even(rows, 1, rows * d * 2, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t pos = pos0 + r / kv.n_kv_head;
      const int h = int(r % kv.n_kv_head);
      f(k + r * d, kv.k_row(h, pos), d);
      f(v + r * d, kv.v_row(h, pos), d);
    }
  });
}

void CpuBackend::attention(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok,
                           int n_head, float scale, float* out) {
  auto* f = table_->ops.attention;
  if (!f || kv.head_dim > kMaxVectorHeadDim)
    return RefBackend::attention(q, kv, pos0, n_tok, n_head, scale, out);
  const int64_t pairs = n_tok * n_head;
  const int64_t work = pairs * (pos0 + n_tok) * kv.head_dim * 2;
  const int group = n_head / kv.n_kv_head;
  if (n_tok > 1) {
    // A prompt's tasks are whole tiles of the blocked kernel (kernels/blocked_attention.h): the
    // tokens of one tile of each KV head. Claimed from the last tokens back, so that the
    // longest (causal) tasks start first and the short ones fill in at the end.
    const int64_t grain =
        int64_t(blocked_attention::tile_tokens(group, table_->ops.attention_tile_rows)) * n_head;
    return split(pairs, grain, work, [&](int64_t b, int64_t e) {
      f(q, kv, pos0, n_tok, n_head, scale, out, pairs - e, pairs - b);
    });
  }
  // One token: the kernel sweeps the cache once for all the heads in its range (a GQA group
  // shares its K/V rows), so tasks are whole GQA groups, about two tasks per thread (some
  // balance when a core is busy elsewhere).
  const int64_t grain = int64_t(group) * std::max(1, kv.n_kv_head / (2 * n_threads()));
  split(pairs, grain, work,
        [&](int64_t b, int64_t e) { f(q, kv, pos0, n_tok, n_head, scale, out, b, e); });
}

void CpuBackend::gated_rms_norm(const float* x, const float* z, const float* w, int64_t n,
                                int64_t rows, float eps, float* y) {
  auto* f = table_->ops.gated_rms_norm;
  if (!f) return RefBackend::gated_rms_norm(x, z, w, n, rows, eps, y);
  split_even(rows, 1, 8 * n * rows,
             [&](int64_t b, int64_t e) { f(x + b * n, z + b * n, w, n, e - b, eps, y + b * n); });
}

// The reference kernel with the channels split over the threads (its loops vectorize over
// contiguous channels); the same arithmetic, so the same bits.
void CpuBackend::ssm_conv(const float* x, int64_t n_tok, int64_t channels, int d_conv,
                          const float* w, float* state, float* out) {
  split_even(channels, 256, n_tok * channels * d_conv, [&](int64_t b, int64_t e) {
    ref::ssm_conv_channels(x, n_tok, channels, d_conv, w, state, out, b, e);
  });
}

void CpuBackend::gated_delta_rule(const DeltaNetDims& dims, int64_t n_tok, const float* qkv,
                                  const float* g, const float* beta, float eps, float* state,
                                  float* out) {
  auto* f = table_->ops.delta_rule;
  if (!f || dims.d_k > kMaxVectorHeadDim) {
    if (n_tok > 1) return chunked_delta_rule_heads(dims, n_tok, qkv, g, beta, eps, state, out);
    return ref::gated_delta_rule_recurrent(dims, n_tok, qkv, g, beta, eps, state, out);
  }
  // With a vectorized recurrence, prefill runs it token by token too (the kernel takes the
  // tokens in tiles, each state row through a tile while it is in cache): 79 us per token and
  // Qwen3.5-0.8B layer against 650 us for the scalar chunked form when first measured, faster
  // since (docs/benchmarks.md, BM_DeltaRule), and it is what the reference implementation runs for
  // prompts (spec/qwen35.md §8.7). Each thread owns a range of value heads for the whole prompt.
  split(dims.n_v, 1, dims.state_floats() * 4 * n_tok, [&](int64_t b, int64_t e) {
    f(dims, n_tok, qkv, g, beta, eps, state, out, int(b), int(e));
  });
}

// The chunked form per value head: each head's q, k, v, gates and output are gathered into a
// one-head problem (n_k = n_v = 1) and solved by the reference chunked kernel, heads in parallel.
// Heads are independent in the reference too, so the results are the same bits.
void CpuBackend::chunked_delta_rule_heads(const DeltaNetDims& dims, int64_t n_tok, const float* qkv,
                                          const float* g, const float* beta, float eps,
                                          float* state, float* out) {
  const int64_t d_k = dims.d_k, d_v = dims.d_v, key_dim = dims.key_dim();
  const int64_t conv_dim = dims.conv_dim(), one_conv = 2 * d_k + d_v;
  const DeltaNetDims one{1, dims.d_k, 1, dims.d_v};
  const int64_t need = n_tok * (one_conv + 2 + d_v);
  pool_.parallel_for(dims.n_v, 1, [&](int64_t begin, int64_t end, int thread) {
    std::vector<float>& s = head_scratch_[thread];
    if (int64_t(s.size()) < need) s.resize(need);
    float* h_qkv = s.data();
    float* h_g = h_qkv + n_tok * one_conv;
    float* h_beta = h_g + n_tok;
    float* h_out = h_beta + n_tok;
    for (int64_t h = begin; h < end; ++h) {
      const int64_t kh = h % dims.n_k;  // tiled head mapping (spec/qwen35.md §8.4)
      for (int64_t t = 0; t < n_tok; ++t) {
        const float* row = qkv + t * conv_dim;
        float* dst = h_qkv + t * one_conv;
        std::copy_n(row + kh * d_k, d_k, dst);
        std::copy_n(row + key_dim + kh * d_k, d_k, dst + d_k);
        std::copy_n(row + 2 * key_dim + h * d_v, d_v, dst + 2 * d_k);
        h_g[t] = g[t * dims.n_v + h];
        h_beta[t] = beta[t * dims.n_v + h];
      }
      ref::gated_delta_rule_chunked(one, n_tok, h_qkv, h_g, h_beta, eps, state + h * d_v * d_k,
                                    h_out);
      for (int64_t t = 0; t < n_tok; ++t)
        std::copy_n(h_out + t * d_v, d_v, out + (t * dims.n_v + h) * d_v);
    }
  });
}

}  // namespace kz
