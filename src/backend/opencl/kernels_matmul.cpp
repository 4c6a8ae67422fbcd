#include "backend/opencl/kernel_sources.h"

namespace kz::opencl {

// Matrix kernels over one weight type WTYPE (dq8_WTYPE dequantizes). Activations stay f32: the
// products are those of ref::matmul_f32act (exact weights, f32 activations), summed in another
// order and with fma().
//
// gemm (prefill): a work-group of 32 computes a tile of 64 weight rows x 128 tokens
// (kernel_sources.h: kGemm*). Per
// 32-column chunk the work-group dequantizes the tile's rows into local memory once, k-major
// (wl[k][row]), and copies the tokens' activations beside them (xl[token][k]); then each
// work-item multiplies 16 rows x 16 tokens: per k, one 16-wide vector of weights times 16
// broadcast activations into 16 vector accumulators. Each weight value is dequantized once per
// 128 tokens, and the 16-wide vectors are what a CPU device (PoCL) turns into SIMD registers;
// the work-item loops of such a device do not vectorize across an inner loop.
//
// gemv (one token): a work-group of 32 per 8 rows (kGemvRows), 4 work-items a row: work-item part p
// takes values 8p .. 8p+7 of every 32-value chunk (neighbouring work-items read neighbouring
// bytes), and the row's 4 partial sums meet in local memory.
const char* const kMatmulTemplate = R"CLC(
#ifndef KZ_MATMUL_HELPERS  // once (the template is expanded once per weight type)
#define KZ_MATMUL_HELPERS
// 8 activations x[i .. i+7] of a row of `cols`, zero past the end.
float8 load_x8(__global const float* x, int i, int cols) {
  if (i + 8 <= cols) return vload8(0, x + i);
  float v[8];
  for (int j = 0; j < 8; ++j) v[j] = i + j < cols ? x[i + j] : 0.0f;
  return (float8)(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
}
float dot8(float8 a, float8 b) { return dot(a.lo, b.lo) + dot(a.hi, b.hi); }
#endif

__kernel __attribute__((reqd_work_group_size(GEMM_GROUP, 1, 1)))
void CAT(gemm, WTYPE)(__global const uchar* w, ulong row_bytes, int rows, int cols,
                      __global const float* x, int n_tok, __global float* y) {
  __local float wl[32][GEMM_TO];
  __local float xl[GEMM_TT][32];
  const int l = get_local_id(0);
  const int o0 = get_group_id(0) * GEMM_TO, t0 = get_group_id(1) * GEMM_TT;
  // This work-item's 16 rows and 16 tokens in the tile.
  const int rb = l % (GEMM_TO / 16) * 16, tb = l / (GEMM_TO / 16) * 16;
  float16 acc[16];
  for (int t = 0; t < 16; ++t) acc[t] = 0.0f;
  const int n_chunks = (cols + 31) / 32;
  for (int c = 0; c < n_chunks; ++c) {
    // Loading: GEMM_TO / GEMM_GROUP consecutive rows of the tile (past the end: the last row)
    // and GEMM_TT / GEMM_GROUP tokens (past the end: zero). Constant trip counts: PoCL runs a
    // loop that starts at the work-item's id several times slower.
    for (int i = 0; i < GEMM_TO / GEMM_GROUP; ++i) {
      const int slot = GEMM_TO / GEMM_GROUP * l + i;
      __global const uchar* row = w + (ulong)min(o0 + slot, rows - 1) * row_bytes;
      for (int part = 0; part < 4; ++part) {
        const float8 v = CAT(dq8, WTYPE)(row, c, part, cols);
        const int k = part * 8;
        wl[k + 0][slot] = v.s0; wl[k + 1][slot] = v.s1; wl[k + 2][slot] = v.s2;
        wl[k + 3][slot] = v.s3; wl[k + 4][slot] = v.s4; wl[k + 5][slot] = v.s5;
        wl[k + 6][slot] = v.s6; wl[k + 7][slot] = v.s7;
      }
    }
    for (int i = 0; i < GEMM_TT / GEMM_GROUP; ++i) {
      const int slot = GEMM_TT / GEMM_GROUP * l + i, tok = t0 + slot;
      __global const float* xrow = x + (ulong)min(tok, n_tok - 1) * cols;
      for (int k = 0; k < 32; k += 8)
        vstore8(tok < n_tok ? load_x8(xrow, c * 32 + k, cols) : (float8)0.0f, 0, &xl[slot][k]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // The accumulators are copied to registers for the 32 steps: a device that runs the
    // work-items of a group in turn (PoCL) keeps acc in memory across the barriers.
    float16 r[16];
#pragma unroll
    for (int t = 0; t < 16; ++t) r[t] = acc[t];
    for (int k = 0; k < 32; ++k) {
      const float16 wv = vload16(0, &wl[k][rb]);
#pragma unroll
      for (int t = 0; t < 16; ++t) r[t] = fma(wv, (float16)xl[tb + t][k], r[t]);
    }
#pragma unroll
    for (int t = 0; t < 16; ++t) acc[t] = r[t];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int t = 0; t < 16; ++t) {
    const int tok = t0 + tb + t, o = o0 + rb;
    if (tok >= n_tok) break;
    __global float* out = y + (ulong)tok * rows + o;
    if (o + 16 <= rows) {
      vstore16(acc[t], 0, out);
    } else {
      float vals[16];
      vstore16(acc[t], 0, vals);
      for (int r = 0; o + r < rows; ++r) out[r] = vals[r];
    }
  }
}

__kernel __attribute__((reqd_work_group_size(4 * GEMV_ROWS, 1, 1)))
void CAT(gemv, WTYPE)(__global const uchar* w, ulong row_bytes, int rows, int cols,
                      __global const float* x, ulong x_off, __global float* y, ulong y_off) {
  __local float partial[4 * GEMV_ROWS];
  x += x_off;
  y += y_off;
  const int l = get_local_id(0), part = l & 3, o = get_group_id(0) * GEMV_ROWS + (l >> 2);
  float16 acc = 0.0f;  // two chunks' part at a time: 16 lanes
  float8 tail = 0.0f;
  if (o < rows) {
    __global const uchar* row = w + (ulong)o * row_bytes;
    const int n_chunks = (cols + 31) / 32;
    int c = 0;
    for (; c + 1 < n_chunks; c += 2) {
      const float16 wv = (float16)(CAT(dq8, WTYPE)(row, c, part, cols),
                                   CAT(dq8, WTYPE)(row, c + 1, part, cols));
      const float16 xv =
          (float16)(load_x8(x, c * 32 + part * 8, cols), load_x8(x, c * 32 + 32 + part * 8, cols));
      acc = fma(wv, xv, acc);
    }
    if (c < n_chunks) tail = CAT(dq8, WTYPE)(row, c, part, cols) * load_x8(x, c * 32 + part * 8, cols);
  }
  partial[l] = sum16(acc) + dot8(tail, (float8)1.0f);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (part == 0 && o < rows) y[o] = (partial[l] + partial[l + 1]) + (partial[l + 2] + partial[l + 3]);
}

// y[i][cols] = row ids[i], dequantized exactly; work-item (p, i) writes the 8 values of part p.
__kernel void CAT(get_rows, WTYPE)(__global const uchar* w, ulong row_bytes, int cols,
                                   __global const int* ids, int n_ids, __global float* y) {
  const int p = get_global_id(0), i = get_global_id(1);
  if (p * 8 >= cols || i >= n_ids) return;
  const float8 v = CAT(dq8, WTYPE)(w + (ulong)ids[i] * row_bytes, p >> 2, p & 3, cols);
  __global float* out = y + (ulong)i * cols + p * 8;
  if (p * 8 + 8 <= cols) {
    vstore8(v, 0, out);
    return;
  }
  const float vals[8] = {v.s0, v.s1, v.s2, v.s3, v.s4, v.s5, v.s6, v.s7};
  for (int j = 0; p * 8 + j < cols; ++j) out[j] = vals[j];
}
)CLC";

}  // namespace kz::opencl
