// Reference Gated DeltaNet kernels (spec/qwen35.md §8): convolution, gates, norms and the
// token-by-token recurrence. The chunked form of the recurrence is in delta_net_chunked.cpp.
#include "kernels/ref/delta_net.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/ref/ops.h"

namespace kz::ref {
namespace {

float softplus(float x) {
  return x > 20.0f ? x : std::log(1.0f + std::exp(x));
}

// One token with D taps (D - 1 carried inputs) over channels [c0, c1): each channel's sum in tap
// order from 0 as below, then its carried inputs move one slot. With D fixed the taps unroll and
// a channel's values stay in registers: 3.8x the blocked path below for one token.
template <int D>
void ssm_conv_one_token(const float* x, const float* w, float* state, float* out, int64_t c0,
                        int64_t c1) {
  for (int64_t c = c0; c < c1; ++c) {
    float* s = state + c * (D - 1);
    const float* wc = w + c * D;
    float o = 0.0f;
    for (int tau = 0; tau < D - 1; ++tau) o += s[tau] * wc[tau];
    out[c] = o + x[c] * wc[D - 1];
    for (int tau = 0; tau + 1 < D - 1; ++tau) s[tau] = s[tau + 1];
    s[D - 2] = x[c];
  }
}

}  // namespace

void ssm_conv(const float* x, int64_t n_tok, int64_t channels, int d_conv, const float* w,
              float* state, float* out) {
  ssm_conv_channels(x, n_tok, channels, d_conv, w, state, out, 0, channels);
}

void ssm_conv_channels(const float* x, int64_t n_tok, int64_t channels, int d_conv, const float* w,
                       float* state, float* out, int64_t ch_begin, int64_t ch_end) {
  if (n_tok == 1 && d_conv == 4)  // Qwen3.5's decode step
    return ssm_conv_one_token<4>(x, w, state, out, ch_begin, ch_end);
  const int64_t n_state = d_conv - 1;
  // X = [state | x] for each channel: the carried inputs first, then this call's tokens. Per
  // output the sum runs in tap order from 0 in f32, as ggml_compute_forward_ssm_conv_f32.
  // Channels innermost, where they are contiguous and independent (they vectorize), in blocks
  // of channels x tokens whose outputs stay in L1 while the taps pass; a block's taps and
  // carried inputs (strided in w and state) are first copied channel-contiguous.
  constexpr int64_t kBlock = 64, kTokens = 16;
  for (int64_t c0 = ch_begin; c0 < ch_end; c0 += kBlock) {
    const int64_t c1 = std::min(c0 + kBlock, ch_end), nc = c1 - c0;
    for (int64_t t0 = 0; t0 < n_tok; t0 += kTokens) {
      const int64_t t1 = std::min(t0 + kTokens, n_tok);
      for (int64_t t = t0; t < t1; ++t)
        std::fill(out + t * channels + c0, out + t * channels + c1, 0.0f);
      for (int64_t tau = 0; tau < d_conv; ++tau) {  // taps outermost: each output in tap order
        float tap[kBlock], carried[kBlock];
        for (int64_t c = 0; c < nc; ++c) tap[c] = w[(c0 + c) * d_conv + tau];
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t p = t + tau;  // column of X
          const float* xp = carried;
          if (p < n_state)
            for (int64_t c = 0; c < nc; ++c) carried[c] = state[(c0 + c) * n_state + p];
          else
            xp = x + (p - n_state) * channels + c0;
          float* o = out + t * channels + c0;
          for (int64_t c = 0; c < nc; ++c) o[c] += xp[c] * tap[c];
        }
      }
    }
  }
  // New state = columns n_tok .. n_tok+n_state-1 of X: the carried inputs that remain move
  // n_tok places left (one move over the range's rows, whose last slots x then overwrites),
  // and the last min(n_tok, n_state) slots of each channel come from x.
  const int64_t kept = std::max<int64_t>(0, n_state - n_tok);
  float* rows = state + ch_begin * n_state;
  const int64_t n_floats = (ch_end - ch_begin) * n_state;
  if (kept > 0) std::memmove(rows, rows + n_tok, (n_floats - n_tok) * sizeof(float));
  for (int64_t ch = ch_begin; ch < ch_end; ++ch)
    for (int64_t tau = kept; tau < n_state; ++tau)
      state[ch * n_state + tau] = x[(n_tok + tau - n_state) * channels + ch];
}

void delta_net_gates(const float* alpha, const float* b, const float* dt_bias, const float* a,
                     int64_t n_tok, int n_v, float* g, float* beta) {
  for (int64_t t = 0; t < n_tok; ++t) {
    for (int h = 0; h < n_v; ++h) {
      const int64_t e = t * n_v + h;
      g[e] = softplus(alpha[e] + dt_bias[h]) * a[h];
      beta[e] = sigmoid(b[e]);
    }
  }
}

void l2_norm(float* x, int64_t n, int64_t rows, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    float* row = x + r * n;
    double sum = 0.0;  // as ggml_compute_forward_l2_norm_f32: f32 squares, double sum
    for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(row[i] * row[i]);
    const float scale = 1.0f / std::max(std::sqrt(static_cast<float>(sum)), eps);
    for (int64_t i = 0; i < n; ++i) row[i] *= scale;
  }
}

void gated_delta_rule_recurrent(const DeltaNetDims& dims, int64_t n_tok, const float* qkv,
                                const float* g, const float* beta, float eps, float* state,
                                float* out) {
  const int64_t n_k = dims.n_k, n_v = dims.n_v, d_k = dims.d_k, d_v = dims.d_v;
  const int64_t key_dim = dims.key_dim(), conv_dim = dims.conv_dim();
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_k));
  // Per-call scratch (reference code): one token's q | k, normalized here, and the delta vector.
  std::vector<float> qk(2 * key_dim);
  std::vector<float> delta(d_v);
  for (int64_t t = 0; t < n_tok; ++t) {
    const float* row = qkv + t * conv_dim;
    std::copy(row, row + 2 * key_dim, qk.begin());  // q and k are adjacent: 2·n_k heads of d_k
    l2_norm(qk.data(), d_k, 2 * n_k, eps);
    for (int64_t h = 0; h < n_v; ++h) {
      const float* q = qk.data() + (h % n_k) * d_k;  // tiled head mapping (§8.4)
      const float* k = qk.data() + key_dim + (h % n_k) * d_k;
      const float* v = row + 2 * key_dim + h * d_v;
      const float b = beta[t * n_v + h];
      float* m = state + h * d_v * d_k;  // M = Sᵀ, row j (value index) holds S[·][j]
      float* o = out + (t * n_v + h) * d_v;

      const float decay = std::exp(g[t * n_v + h]);
      for (int64_t e = 0; e < d_v * d_k; ++e) m[e] *= decay;
      for (int64_t j = 0; j < d_v; ++j) delta[j] = (v[j] - dot(m + j * d_k, k, d_k)) * b;
      for (int64_t j = 0; j < d_v; ++j) {
        for (int64_t i = 0; i < d_k; ++i) m[j * d_k + i] += k[i] * delta[j];
      }
      for (int64_t j = 0; j < d_v; ++j) o[j] = dot(m + j * d_k, q, d_k) * scale;
    }
  }
}

void gated_rms_norm(const float* x, const float* z, const float* w, int64_t n, int64_t rows,
                    float eps, float* y) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    const float* zr = z + r * n;
    float* yr = y + r * n;
    double sum = 0.0;  // as ggml_compute_forward_rms_norm_f32
    for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(xr[i] * xr[i]);
    const float mean = static_cast<float>(sum / static_cast<double>(n));
    const float scale = 1.0f / std::sqrt(mean + eps);
    for (int64_t i = 0; i < n; ++i) yr[i] = xr[i] * scale * w[i] * silu(zr[i]);
  }
}

}  // namespace kz::ref
