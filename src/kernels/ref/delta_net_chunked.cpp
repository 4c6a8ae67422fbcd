// Chunked (WY/UT-transform) form of the gated delta rule, spec/qwen35.md §8.7.
//
// Within a chunk of L tokens, with S the state at chunk start (stored as M = Sᵀ, see §8.5),
// G_t = g_0 + … + g_t (inclusive cumulative log decay, G_t ≤ 0) and unit-norm q, k:
//   A[t][s] = β_t e^{G_t−G_s} (k_t·k_s) for s < t,   T = (I + A)⁻¹ (unit lower triangular)
//   U = T diag(β) V,   W = T diag(β e^G) K,   v̂_t = u_t − M w_t   (the per-token deltas δ_t)
//   o_t = (e^{G_t} M q_t + Σ_{s≤t} e^{G_t−G_s} (q_t·k_s) v̂_s) / sqrt(d_k)
//   M ← e^{G_last} M + Σ_t e^{G_last−G_t} v̂_t k_tᵀ
// This follows from unrolling the recurrence: δ_t = β_t (v_t − e^{g_t} M_{t−1} k_t) with
// M_{t−1} = e^{G_{t−1}} M + Σ_{s<t} e^{G_{t−1}−G_s} δ_s k_sᵀ gives (I + A) Δ = diag(β)V −
// diag(β e^G) K Mᵀ, a triangular system.
//
// Decay factors are always e^{G_t−G_s} with s ≤ t, evaluated as the exponential of the difference:
// each lies in (0, 1], so long chunks with strong decay underflow harmlessly to 0 instead of
// forming e^{G_t} / e^{G_s} = 0/0.
//
// Cost per chunk and head: A and the intra-chunk output O(L²·d), T O(L³), U and W O(L²·d), the
// products with M (v̂, inter-chunk output, state update) O(L·d_k·d_v) — linear in n_tok overall.
#include "kernels/ref/delta_net.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

#include "kernels/ref/ops.h"

namespace kz::ref {

void gated_delta_rule_chunked(const DeltaNetDims& dims, int64_t n_tok, const float* qkv,
                              const float* g, const float* beta, float eps, float* state,
                              float* out, int chunk) {
  assert(chunk >= 1);
  const int64_t n_k = dims.n_k, n_v = dims.n_v, d_k = dims.d_k, d_v = dims.d_v;
  const int64_t key_dim = dims.key_dim(), conv_dim = dims.conv_dim();
  const int64_t cs = chunk;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_k));

  // Scratch, allocated per call since this is the reference (a fast kernel would take a
  // workspace); its size depends on the chunk and the head sizes only, never on n_tok.
  std::vector<float> qk(cs * 2 * key_dim);  // [L][2·key_dim]: each token's q | k, L2-normalized
  std::vector<float> G(cs);                 // [L]: cumulative log decay of one head
  std::vector<float> A(cs * cs);            // [L][L], strictly lower
  std::vector<float> T(cs * cs);            // [L][L], (I + A)⁻¹, lower with unit diagonal
  std::vector<float> U(cs * d_v);           // [L][d_v]: T diag(β) V, then v̂ = U − W Mᵀ
  std::vector<float> W(cs * d_k);           // [L][d_k]: T diag(β e^G) K

  // The last chunk may be shorter (L < cs); it is processed as is, without padding.
  for (int64_t c0 = 0; c0 < n_tok; c0 += cs) {
    const int64_t L = std::min(cs, n_tok - c0);
    for (int64_t t = 0; t < L; ++t) {
      const float* row = qkv + (c0 + t) * conv_dim;
      std::copy(row, row + 2 * key_dim, qk.begin() + t * 2 * key_dim);
    }
    l2_norm(qk.data(), d_k, L * 2 * n_k, eps);

    for (int64_t h = 0; h < n_v; ++h) {
      const int64_t kh = h % n_k;  // tiled head mapping (§8.4)
      auto q = [&](int64_t t) { return qk.data() + t * 2 * key_dim + kh * d_k; };
      auto k = [&](int64_t t) { return qk.data() + t * 2 * key_dim + key_dim + kh * d_k; };
      auto v = [&](int64_t t) { return qkv + (c0 + t) * conv_dim + 2 * key_dim + h * d_v; };
      auto b = [&](int64_t t) { return beta[(c0 + t) * n_v + h]; };
      float* m = state + h * d_v * d_k;  // M = Sᵀ: row j (value index) holds S[·][j]

      for (int64_t t = 0; t < L; ++t) G[t] = (t > 0 ? G[t - 1] : 0.0f) + g[(c0 + t) * n_v + h];

      for (int64_t t = 0; t < L; ++t) {
        for (int64_t s = 0; s < t; ++s) {
          A[t * cs + s] = b(t) * std::exp(G[t] - G[s]) * dot(k(t), k(s), d_k);
        }
      }
      // Forward substitution on (I + A) T = I: T[t][s] = δ_ts − Σ_{s≤r<t} A[t][r] T[r][s].
      for (int64_t t = 0; t < L; ++t) {
        for (int64_t s = 0; s < t; ++s) {
          float sum = 0.0f;
          for (int64_t r = s; r < t; ++r) sum += A[t * cs + r] * T[r * cs + s];
          T[t * cs + s] = -sum;
        }
        T[t * cs + t] = 1.0f;
      }

      for (int64_t t = 0; t < L; ++t) {
        float* u = U.data() + t * d_v;
        float* w = W.data() + t * d_k;
        std::fill(u, u + d_v, 0.0f);
        std::fill(w, w + d_k, 0.0f);
        for (int64_t s = 0; s <= t; ++s) {
          const float tb = T[t * cs + s] * b(s);
          const float tbe = tb * std::exp(G[s]);
          for (int64_t j = 0; j < d_v; ++j) u[j] += tb * v(s)[j];
          for (int64_t i = 0; i < d_k; ++i) w[i] += tbe * k(s)[i];
        }
        // v̂_t = u_t − M w_t, in place of u_t.
        for (int64_t j = 0; j < d_v; ++j) u[j] -= dot(m + j * d_k, w, d_k);
      }

      for (int64_t t = 0; t < L; ++t) {
        float* o = out + ((c0 + t) * n_v + h) * d_v;
        const float decay = std::exp(G[t]);
        for (int64_t j = 0; j < d_v; ++j) o[j] = decay * dot(m + j * d_k, q(t), d_k);
        for (int64_t s = 0; s <= t; ++s) {
          const float c = std::exp(G[t] - G[s]) * dot(q(t), k(s), d_k);
          const float* vhat = U.data() + s * d_v;
          for (int64_t j = 0; j < d_v; ++j) o[j] += c * vhat[j];
        }
        for (int64_t j = 0; j < d_v; ++j) o[j] *= scale;
      }

      const float g_last = G[L - 1];
      const float decay = std::exp(g_last);
      for (int64_t e = 0; e < d_v * d_k; ++e) m[e] *= decay;
      for (int64_t t = 0; t < L; ++t) {
        const float c = std::exp(g_last - G[t]);
        const float* vhat = U.data() + t * d_v;
        for (int64_t j = 0; j < d_v; ++j) {
          const float cj = c * vhat[j];
          for (int64_t i = 0; i < d_k; ++i) m[j * d_k + i] += cj * k(t)[i];
        }
      }
    }
  }
}

}  // namespace kz::ref
