#include "backend/opencl/kernel_sources.h"

namespace kz::opencl {

// Norms, RoPE, element-wise ops, K/V stores and attention, following kernels/ref/ops.cpp. Where
// the reference sums in double (norms), these sum in f32, in 16 lanes: OpenCL C 1.2 devices need
// not have doubles (Adreno has none).
const char* const kOpsSource = R"CLC(
// One work-item per row of n.
__kernel void rms_norm(__global const float* x, __global const float* w, int n, float eps,
                       int rows, __global float* y) {
  const int r = get_global_id(0);
  if (r >= rows) return;
  x += (ulong)r * n;
  y += (ulong)r * n;
  const float scale = 1.0f / sqrt(sum_squares(x, n) / (float)n + eps);
  for (int i = 0; i < n; ++i) y[i] = w ? (x[i] * scale) * w[i] : x[i] * scale;
}

__kernel void gated_rms_norm(__global const float* x, __global const float* z,
                             __global const float* w, int n, float eps, int rows,
                             __global float* y) {
  const int r = get_global_id(0);
  if (r >= rows) return;
  x += (ulong)r * n;
  z += (ulong)r * n;
  y += (ulong)r * n;
  const float scale = 1.0f / sqrt(sum_squares(x, n) / (float)n + eps);
  for (int i = 0; i < n; ++i) y[i] = x[i] * scale * w[i] * silu_f(z[i]);
}

// cs[t][k] = (cos, sin) of theta_k = pos[t] * theta_scale^k, the angle iterated as a product
// like the reference (not a fresh pow per pair).
__kernel void rope_angles(__global const int* pos, int half_rot, float theta_scale,
                          int n_tok, __global float2* cs) {
  const int t = get_global_id(0);
  if (t >= n_tok) return;
  float theta = (float)pos[t];
  for (int k = 0; k < half_rot; ++k) {
    cs[t * half_rot + k] = (float2)(cos(theta), sin(theta));
    theta *= theta_scale;
  }
}

// NEOX: pair (k, k + n_rot/2) of each head rotated; work-item (k, head, token).
__kernel void rope_neox(__global float* x, __global const float2* cs, int n_head, int head_dim,
                        int half_rot) {
  const int k = get_global_id(0), h = get_global_id(1), t = get_global_id(2);
  if (k >= half_rot) return;
  __global float* v = x + ((ulong)t * n_head + h) * head_dim;
  const float2 c = cs[t * half_rot + k];
  const float a = v[k], b = v[k + half_rot];
  v[k] = a * c.x - b * c.y;
  v[k + half_rot] = a * c.y + b * c.x;
}

__kernel void swiglu(__global const float* gate, __global const float* up, ulong n,
                     __global float* y) {
  const ulong i = get_global_id(0);
  if (i < n) y[i] = silu_f(gate[i]) * up[i];
}
__kernel void silu(__global float* x, ulong n) {
  const ulong i = get_global_id(0);
  if (i < n) x[i] = silu_f(x[i]);
}
__kernel void add(__global float* x, __global const float* y, ulong n) {
  const ulong i = get_global_id(0);
  if (i < n) x[i] += y[i];
}
__kernel void mul_sigmoid(__global float* x, __global const float* gate, ulong n) {
  const ulong i = get_global_id(0);
  if (i < n) x[i] *= sigmoid_f(gate[i]);
}

__kernel void split_halves(__global const float* x, int n, __global float* a,
                           __global float* b) {
  const int i = get_global_id(0);
  const ulong r = get_global_id(1);
  if (i >= n) return;
  a[r * n + i] = x[r * 2 * n + i];
  b[r * n + i] = x[r * 2 * n + n + i];
}

__kernel void join_halves(__global const float* a, __global const float* b, int n,
                          __global float* out) {
  const int i = get_global_id(0);
  const ulong r = get_global_id(1);
  if (i >= n) return;
  out[r * 2 * n + i] = a[r * n + i];
  out[r * 2 * n + n + i] = b[r * n + i];
}

// K/V stores: src[n_tok][n_kv][d] into a head-major cache [n_kv][n_ctx][d] at pos0 + t, with
// the reference converters' bytes (quant/*.cpp).
__kernel void kv_store_f32(__global const float* src, __global float* cache, int n_kv, int d,
                           long n_ctx, long pos0) {
  const int i = get_global_id(0), h = get_global_id(1), t = get_global_id(2);
  if (i >= d) return;
  cache[((ulong)h * n_ctx + pos0 + t) * d + i] = src[((ulong)t * n_kv + h) * d + i];
}

// Round to nearest even like fp32_to_fp16; NaN as sign | 0x7e00, which vstore_half leaves open.
__kernel void kv_store_f16(__global const float* src, __global ushort* cache, int n_kv, int d,
                           long n_ctx, long pos0) {
  const int i = get_global_id(0), h = get_global_id(1), t = get_global_id(2);
  if (i >= d) return;
  const ulong at = ((ulong)h * n_ctx + pos0 + t) * d + i;
  const float v = src[((ulong)t * n_kv + h) * d + i];
  if (isnan(v))
    cache[at] = (ushort)((as_uint(v) >> 16) & 0x8000) | 0x7e00;
  else
    vstore_half_rte(v, at, (__global half*)cache);
}

// One 34-byte block per work-item: d = amax / 127 (fp16), q = round(x / d) as the reference,
// with x86's conversion of NaN and out-of-range values (they become 0).
__kernel void kv_store_q8_0(__global const float* src, __global uchar* cache, int n_kv, int d,
                            long n_ctx, long pos0) {
  const int blk = get_global_id(0), h = get_global_id(1), t = get_global_id(2);
  if (blk * 32 >= d) return;
  __global const float* x = src + ((ulong)t * n_kv + h) * d + blk * 32;
  __global uchar* b = cache + ((ulong)h * n_ctx + pos0 + t) * (d / 32 * 34) + blk * 34;
  float amax = 0.0f;
  for (int j = 0; j < 32; ++j) amax = amax < fabs(x[j]) ? fabs(x[j]) : amax;
  const float dq = amax / 127;
  const float id = dq != 0.0f ? 1.0f / dq : 0.0f;
  vstore_half_rte(dq, 0, (__global half*)b);
  for (int j = 0; j < 32; ++j) {
    const float r = round(x[j] * id);
    b[2 + j] = isnan(r) || fabs(r) >= 2147483648.0f ? 0 : (uchar)(int)r;
  }
}

// Elements 16v .. 16v+15 of a cache row of type F32 (0), F16 (1) or Q8_0 (8).
float16 cache_vec16(__global const uchar* row, int v, int type) {
  if (type == 0) return vload16(v, (__global const float*)row);
  if (type == 1) return vload_half16(v, (__global const half*)row);
  __global const uchar* b = row + (v >> 1) * 34;
  const float d = vload_half(0, (__global const half*)b);
  return convert_float16(vload16(0, (__global const char*)(b + 2) + (v & 1) * 16)) * d;
}

// One work-item per (query head, token): the query and the output in 16-wide vectors (head_dim
// a multiple of 16, at most 256) and an online softmax over the keys: a running maximum, the
// sum and output rescaled only when the maximum grows. Query head h reads KV head
// h / (n_head / n_kv).
__kernel void attention(__global const float* q, __global const uchar* kc,
                        __global const uchar* vc, int k_type, int v_type, ulong k_head_bytes,
                        ulong v_head_bytes, long n_ctx, int n_kv, int d, long pos0, int n_head,
                        float scale, __global float* out) {
  const int h = get_global_id(0), t = get_global_id(1);
  if (h >= n_head) return;
  const int kvh = h / (n_head / n_kv), n_vec = d / 16;
  q += ((ulong)t * n_head + h) * d;
  out += ((ulong)t * n_head + h) * d;
  __global const uchar* kbase = kc + (ulong)kvh * n_ctx * k_head_bytes;
  __global const uchar* vbase = vc + (ulong)kvh * n_ctx * v_head_bytes;
  float16 qv[16], o[16];
  for (int v = 0; v < n_vec; ++v) {
    qv[v] = vload16(v, q);
    o[v] = 0.0f;
  }
  float m_run = -INFINITY, sum = 0.0f;
  const long n_keys = pos0 + t + 1;  // causal: keys at positions <= the query's
  for (long j = 0; j < n_keys; ++j) {
    __global const uchar* krow = kbase + j * k_head_bytes;
    float16 acc = 0.0f;
    for (int v = 0; v < n_vec; ++v) acc = mad(qv[v], cache_vec16(krow, v, k_type), acc);
    const float s = sum16(acc) * scale;
    if (s > m_run) {
      const float corr = exp(m_run - s);
      sum *= corr;
      for (int v = 0; v < n_vec; ++v) o[v] *= corr;
      m_run = s;
    }
    const float p = exp(s - m_run);
    sum += p;
    __global const uchar* vrow = vbase + j * v_head_bytes;
    for (int v = 0; v < n_vec; ++v) o[v] = mad((float16)p, cache_vec16(vrow, v, v_type), o[v]);
  }
  for (int v = 0; v < n_vec; ++v) vstore16(o[v] / sum, v, out);
}
)CLC";

}  // namespace kz::opencl
