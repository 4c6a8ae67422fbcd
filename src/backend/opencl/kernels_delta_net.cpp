#include "backend/opencl/kernel_sources.h"

namespace kz::opencl {

// The Gated DeltaNet mixer's ops, following kernels/ref/delta_net.cpp (spec/qwen35.md §8).
const char* const kDeltaNetSource = R"CLC(
#define MAX_CONV_STATE 16
#define MAX_D_K 256

// 16 consecutive floats from p, lanes past `lanes` zero (a tail of channels).
float16 load16(__global const float* p, int lanes) {
  if (lanes == 16) return vload16(0, p);
  float v[16];
  for (int r = 0; r < 16; ++r) v[r] = r < lanes ? p[r] : 0.0f;
  return vload16(0, v);
}
void store16(float16 v, __global float* p, int lanes) {
  if (lanes == 16) return vstore16(v, 0, p);
  float vals[16];
  vstore16(v, 0, vals);
  for (int r = 0; r < lanes; ++r) p[r] = vals[r];
}

// A work-item per 16 channels (the lanes of 16-wide vectors; x rows hold them side by side).
// Each output is summed in tap order from 0, as the reference. X = [state | x] per channel: the
// carried inputs are read before any is overwritten.
__kernel void ssm_conv(__global const float* x, int n_tok, int channels, int d_conv,
                       __global const float* w, __global float* state, __global float* out) {
  const int c0 = get_global_id(0) * 16;
  if (c0 >= channels) return;
  const int lanes = min(16, channels - c0), n_state = d_conv - 1;
  float16 taps[MAX_CONV_STATE + 1], carried[MAX_CONV_STATE];
  for (int tau = 0; tau < d_conv; ++tau) {
    float v[16];
    for (int r = 0; r < 16; ++r) v[r] = r < lanes ? w[(ulong)(c0 + r) * d_conv + tau] : 0.0f;
    taps[tau] = vload16(0, v);
  }
  for (int tau = 0; tau < n_state; ++tau) {
    float v[16];
    for (int r = 0; r < 16; ++r) v[r] = r < lanes ? state[(ulong)(c0 + r) * n_state + tau] : 0.0f;
    carried[tau] = vload16(0, v);
  }
  for (int t = 0; t < n_tok; ++t) {
    float16 o = 0.0f;
    for (int tau = 0; tau < d_conv; ++tau) {
      const int p = t + tau;
      const float16 xp =
          p < n_state ? carried[p] : load16(x + (ulong)(p - n_state) * channels + c0, lanes);
      o += xp * taps[tau];
    }
    store16(o, out + (ulong)t * channels + c0, lanes);
  }
  for (int tau = 0; tau < n_state; ++tau) {
    const int p = n_tok + tau;
    const float16 next =
        p < n_state ? carried[p] : load16(x + (ulong)(p - n_state) * channels + c0, lanes);
    float v[16];
    vstore16(next, 0, v);
    for (int r = 0; r < lanes; ++r) state[(ulong)(c0 + r) * n_state + tau] = v[r];
  }
}

__kernel void delta_net_gates(__global const float* alpha, __global const float* b,
                              __global const float* dt_bias, __global const float* a, int n_v,
                              int n, __global float* g, __global float* beta) {
  const int e = get_global_id(0);
  if (e >= n) return;
  const int h = e % n_v;
  const float v = alpha[e] + dt_bias[h];
  const float softplus = v > 20.0f ? v : log(1.0f + exp(v));
  g[e] = softplus * a[h];
  beta[e] = 1.0f / (1.0f + exp(-b[e]));
}

// q and k of every token L2-normalized: one work-item per row r = (token, head of 2*n_k) of
// d_k; x / max(sqrt(sum x^2), eps) (eps a floor, as the reference).
__kernel void l2_norm_qk(__global const float* qkv, long conv_dim, int n_k, int d_k, float eps,
                         int rows, __global float* qk) {
  const int r = get_global_id(0);
  if (r >= rows) return;
  const int t = r / (2 * n_k), head = r % (2 * n_k);
  __global const float* src = qkv + (ulong)t * conv_dim + head * d_k;
  __global float* dst = qk + ((ulong)t * 2 * n_k + head) * d_k;
  const float norm = sqrt(sum_squares(src, d_k));
  const float scale = 1.0f / (norm < eps ? eps : norm);
  for (int i = 0; i < d_k; ++i) dst[i] = src[i] * scale;
}

// The recurrence. State rows are independent: value index j of value head h holds row
// M[j] = S[.][j] (d_k values), and per token M[j] *= exp(g); delta = (v[j] - M[j].k) * beta;
// M[j] += k * delta; out[j] = M[j].q * scale. A work-item takes 16 rows of one head as the
// lanes of 16-wide vectors (m[i] holds element i of its 16 rows, in private memory over the
// tokens), so every row runs the reference's f32 operations in the reference's order while the
// device's SIMD lanes (PoCL) or threads work on 16 rows at once. Rows past d_v are lanes left
// unused. qk: the normalized q | k of each token ([n_tok][2][n_k][d_k]); value head h reads q/k
// head h % n_k.
__kernel void gated_delta_rule(__global const float* qk, __global const float* qkv,
                               long conv_dim, __global const float* g,
                               __global const float* beta, int n_tok, int n_k, int d_k, int n_v,
                               int d_v, float scale, __global float* state,
                               __global float* out) {
  const int j0 = get_global_id(0) * 16, h = get_global_id(1);
  if (j0 >= d_v) return;
  const int key_dim = n_k * d_k, lanes = min(16, d_v - j0);
  __global float* rows = state + ((ulong)h * d_v + j0) * d_k;
  float16 m[MAX_D_K];
  for (int i = 0; i < d_k; ++i) {
    float lane[16];
    for (int r = 0; r < 16; ++r) lane[r] = r < lanes ? rows[r * d_k + i] : 0.0f;
    m[i] = vload16(0, lane);
  }
  float vals[16];
  for (int t = 0; t < n_tok; ++t) {
    __global const float* q = qk + (ulong)t * 2 * key_dim + (h % n_k) * d_k;
    __global const float* k = q + key_dim;
    __global const float* v = qkv + (ulong)t * conv_dim + 2 * key_dim + h * d_v + j0;
    for (int r = 0; r < 16; ++r) vals[r] = r < lanes ? v[r] : 0.0f;
    const float decay = exp(g[t * n_v + h]);
    float16 kv = 0.0f;
    for (int i = 0; i < d_k; ++i) {
      m[i] *= decay;
      kv += m[i] * k[i];
    }
    const float16 delta = (vload16(0, vals) - kv) * beta[t * n_v + h];
    float16 o = 0.0f;
    for (int i = 0; i < d_k; ++i) {
      m[i] += k[i] * delta;
      o += m[i] * q[i];
    }
    vstore16(o * scale, 0, vals);
    __global float* dst = out + ((ulong)t * n_v + h) * d_v + j0;
    for (int r = 0; r < lanes; ++r) dst[r] = vals[r];
  }
  for (int i = 0; i < d_k; ++i) {
    float lane[16];
    vstore16(m[i], 0, lane);
    for (int r = 0; r < lanes; ++r) rows[r * d_k + i] = lane[r];
  }
}

// The chunked form (kernels/ref/delta_net_chunked.cpp, spec/qwen35.md §8.7) for GPUs: one
// work-group per value head walks the prompt in chunks of L <= DN_CHUNK tokens; within a chunk
// every step is parallel over tokens, pairs of tokens or state elements, and only the triangular
// solve takes L steps. Each value is computed with the reference chunked kernel's operations in
// its order. scratch holds U and W of each head ([n_v][DN_CHUNK][d_v + d_k]); state M = S^T is
// read and written in place ([n_v][d_v][d_k]). Every barrier fences local and global memory:
// a phase reads what others wrote in either. DN_CHUNK comes from program_source().

float dot_g(__global const float* a, __global const float* b, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

__kernel void gated_delta_rule_chunked(__global const float* qk, __global const float* qkv,
                                       long conv_dim, __global const float* g,
                                       __global const float* beta, int n_tok, int n_k, int d_k,
                                       int n_v, int d_v, float scale, __global float* state,
                                       __global float* out, __global float* scratch) {
  const int h = get_group_id(0), lid = get_local_id(0), wg = get_local_size(0);
  const int key_dim = n_k * d_k, kh = h % n_k;
  __global float* m = state + (ulong)h * d_v * d_k;
  __global float* U = scratch + (ulong)h * DN_CHUNK * (d_v + d_k);
  __global float* W = U + DN_CHUNK * d_v;
  __local float G[DN_CHUNK], B[DN_CHUNK];
  __local float A[DN_CHUNK * DN_CHUNK], T[DN_CHUNK * DN_CHUNK], QK[DN_CHUNK * DN_CHUNK];
  for (int c0 = 0; c0 < n_tok; c0 += DN_CHUNK) {
    const int L = min(DN_CHUNK, n_tok - c0);
#define Q(t) (qk + (ulong)(c0 + (t)) * 2 * key_dim + kh * d_k)
#define K(t) (Q(t) + key_dim)
#define V(t) (qkv + (ulong)(c0 + (t)) * conv_dim + 2 * key_dim + h * d_v)
    if (lid == 0) {
      float acc = 0.0f;
      for (int t = 0; t < L; ++t) {
        acc += g[(c0 + t) * n_v + h];
        G[t] = acc;
        B[t] = beta[(c0 + t) * n_v + h];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    // A[t][s] (s < t) and the decayed query-key products QK[t][s] (s <= t).
    for (int p = lid; p < L * L; p += wg) {
      const int t = p / L, s = p % L;
      if (s < t) A[t * DN_CHUNK + s] = B[t] * exp(G[t] - G[s]) * dot_g(K(t), K(s), d_k);
      if (s <= t) QK[t * DN_CHUNK + s] = exp(G[t] - G[s]) * dot_g(Q(t), K(s), d_k);
      T[t * DN_CHUNK + s] = s == t ? 1.0f : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    // (I + A) T = I by forward substitution, a row at a time.
    for (int t = 1; t < L; ++t) {
      for (int s = lid; s < t; s += wg) {
        float sum = 0.0f;
        for (int r = s; r < t; ++r) sum += A[t * DN_CHUNK + r] * T[r * DN_CHUNK + s];
        T[t * DN_CHUNK + s] = -sum;
      }
      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    }
    // U = T diag(beta) V and W = T diag(beta e^G) K.
    for (int p = lid; p < L * (d_v + d_k); p += wg) {
      const int t = p / (d_v + d_k), c = p % (d_v + d_k);
      float acc = 0.0f;
      for (int s = 0; s <= t; ++s) {
        const float tb = T[t * DN_CHUNK + s] * B[s];
        if (c < d_v)
          acc += tb * V(s)[c];
        else
          acc += (tb * exp(G[s])) * K(s)[c - d_v];
      }
      if (c < d_v)
        U[t * d_v + c] = acc;
      else
        W[t * d_k + c - d_v] = acc;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    // The deltas: U[t] -= M W[t].
    for (int p = lid; p < L * d_v; p += wg) {
      const int t = p / d_v, j = p % d_v;
      U[t * d_v + j] -= dot_g(m + (ulong)j * d_k, W + t * d_k, d_k);
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    for (int p = lid; p < L * d_v; p += wg) {
      const int t = p / d_v, j = p % d_v;
      float o = exp(G[t]) * dot_g(m + (ulong)j * d_k, Q(t), d_k);
      for (int s = 0; s <= t; ++s) o += QK[t * DN_CHUNK + s] * U[s * d_v + j];
      out[((ulong)(c0 + t) * n_v + h) * d_v + j] = o * scale;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    // M <- e^{G_last} M + sum_t e^{G_last - G_t} delta_t k_t^T.
    const float g_last = G[L - 1];
    for (int e = lid; e < d_v * d_k; e += wg) {
      const int j = e / d_k, i = e % d_k;
      float v = m[e] * exp(g_last);
      for (int t = 0; t < L; ++t) v += (exp(g_last - G[t]) * U[t * d_v + j]) * K(t)[i];
      m[e] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
#undef Q
#undef K
#undef V
  }
}
)CLC";

}  // namespace kz::opencl
