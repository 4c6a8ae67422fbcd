// The gated delta rule recurrence (spec/qwen35.md §8.5), token by token, for a range of value
// heads, written once over an ISA's 8-lane f32 vector (kernels/x86/vec8_avx2.h,
// kernels/arm/vec8_neon.h: zero, splat, load, store, mul, fma, hsum and sum_squares4, lane for
// lane equal), so x86 and ARM give the same bits. Per token, the reference makes four passes over
// a head's state M (decay, M k, rank-1 update, M q); each row of M only depends on itself, so here
// a row is decayed and dotted with k in one pass, then updated and dotted with q in a second (the
// state is read twice and written once), and kRowsAtOnce vectors of rows are interleaved so that
// their chains of dependent multiply-adds overlap.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "ops/op_types.h"

namespace kz::delta_rule {

constexpr int kMaxDk = 512;     // the callers route larger heads to the reference kernel
constexpr int kRowsAtOnce = 4;  // vectors (of W::kRows rows each)

// The vectors update_rows computes with: by default one ISA 8-lane vector holds 8 elements of
// one state row. An ISA with wider vectors may supply its own type of this shape with kRows > 1
// (x86/delta_rule_avx512.cpp: 16 lanes, two rows), each row's 8 lanes taking these operations
// lane for lane, so that it gives the same bits with fewer instructions.
template <class Isa>
struct OneRow {
  static constexpr int kRows = 1;
  using V = typename Isa::V;
  static V zero() { return Isa::zero(); }
  static V splat(float x) { return Isa::splat(x); }
  static V mul(V a, V b) { return Isa::mul(a, b); }
  static V fma(V a, V b, V c) { return Isa::fma(a, b, c); }
  // 8 elements of q or k, the same for every row.
  static V load_shared(const float* p) { return Isa::load(p); }
  // 8 elements from each of kRows rows, the first at p, the next `stride` floats on.
  static V load_rows(const float* p, int64_t stride) { return Isa::load(p); }
  static void store_rows(float* p, int64_t stride, V x) { Isa::store(p, x); }
  static V splat_rows(const float* x) { return Isa::splat(x[0]); }  // x[r] in row r's lanes
  static void hsum_rows(V x, float* sums) { sums[0] = Isa::hsum(x); }
};

// Rows m[0..R * W::kRows) (each d_k floats) of one head's state, with values v and outputs o
// (one per row), in R vectors of W::kRows rows. Per row: the k-dot of the decayed row, then the
// rank-1 update and the q-dot, 8 lanes at a time with the d_k % 8 tail in scalar code. The
// second pass recomputes the decayed row instead of storing and reloading it (the same rounded
// product).
template <class W, int R>
void update_rows(float* m, int d_k, const float* k, const float* q, const float* v, float decay,
                 float b, float scale, float* o) {
  using V = typename W::V;
  constexpr int kRows = R * W::kRows;
  const int64_t rv = int64_t(W::kRows) * d_k;  // floats from one vector's rows to the next's
  const V dv = W::splat(decay);
  V acc[R];
  for (int r = 0; r < R; ++r) acc[r] = W::zero();
  int i = 0;
  for (; i + 8 <= d_k; i += 8) {
    const V kv = W::load_shared(k + i);
    for (int r = 0; r < R; ++r)
      acc[r] = W::fma(acc[r], W::mul(W::load_rows(m + r * rv + i, d_k), dv), kv);
  }
  const int tail = i;
  float dot[kRows], delta[kRows];
  for (int r = 0; r < R; ++r) {
    W::hsum_rows(acc[r], dot + r * W::kRows);
    acc[r] = W::zero();
  }
  for (int r = 0; r < kRows; ++r) {
    const float* mr = m + int64_t(r) * d_k;
    float kdot = dot[r];
    for (i = tail; i < d_k; ++i) kdot += (mr[i] * decay) * k[i];
    delta[r] = (v[r] - kdot) * b;
  }
  for (i = 0; i < tail; i += 8) {
    const V kv = W::load_shared(k + i), qv = W::load_shared(q + i);
    for (int r = 0; r < R; ++r) {
      float* mr = m + r * rv + i;
      const V mv =
          W::fma(W::mul(W::load_rows(mr, d_k), dv), kv, W::splat_rows(delta + r * W::kRows));
      W::store_rows(mr, d_k, mv);
      acc[r] = W::fma(acc[r], mv, qv);
    }
  }
  for (int r = 0; r < R; ++r) W::hsum_rows(acc[r], dot + r * W::kRows);
  for (int r = 0; r < kRows; ++r) {
    float* mr = m + int64_t(r) * d_k;
    float qdot = dot[r];
    for (i = tail; i < d_k; ++i) qdot += (mr[i] = mr[i] * decay + k[i] * delta[r]) * q[i];
    o[r] = qdot * scale;
  }
}

// Rows r < rows of x (n floats each, `stride` apart) divided in place by max(||row||, eps), the
// bits of ref::l2_norm (OpKernels::l2_norm). Its sum of f32 squares in double is sequential, so a
// row alone cannot use the vector lanes; four rows share them, one double lane a row
// (Isa::sum_squares4), the spare lanes of a last group repeating its last row.
template <class Isa>
void l2_normalize_rows(float* x, int n, int64_t stride, int rows, float eps) {
  for (int r0 = 0; r0 < rows; r0 += 4) {
    const int nr = std::min(4, rows - r0);
    const float* p[4];
    for (int r = 0; r < 4; ++r) p[r] = x + (r0 + std::min(r, nr - 1)) * stride;
    double sums[4];
    Isa::sum_squares4(p, n, sums);
    for (int r = 0; r < nr; ++r) {
      const float scale = 1.0f / std::max(std::sqrt(static_cast<float>(sums[r])), eps);
      float* row = x + (r0 + r) * stride;
      int i = 0;
      for (; i + 8 <= n; i += 8)
        Isa::store(row + i, Isa::mul(Isa::load(row + i), Isa::splat(scale)));
      for (; i < n; ++i) row[i] *= scale;
    }
  }
}

// OpKernels::delta_rule (kernels/kernel_table.h); d_k <= kMaxDk. A head's state rows are
// independent, so each group of kRowsAtOnce vectors of W's rows runs through a tile of
// kTokenTile tokens while it is in L1: the state (64 KB a head for Qwen3.5) is streamed once per
// tile, not per token. Rows left over after the last whole group take Isa's 8 lanes one row at a
// time. Each (row, token) step is the same operations as with one token per call.
template <class Isa, class W = OneRow<Isa>>
void run(const DeltaNetDims& dims, int64_t n_tok, const float* qkv, const float* g,
         const float* beta, float eps, float* state, float* out, int h_begin, int h_end) {
  constexpr int kTokenTile = 16;
  const int d_k = dims.d_k, d_v = dims.d_v;
  const int64_t key_dim = dims.key_dim(), conv_dim = dims.conv_dim();
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_k));
  float q[kTokenTile][kMaxDk], k[kTokenTile][kMaxDk], decay[kTokenTile];
  for (int h = h_begin; h < h_end; ++h) {
    const int kh = h % dims.n_k;  // tiled head mapping (§8.4)
    float* m = state + int64_t(h) * d_v * d_k;
    for (int64_t t0 = 0; t0 < n_tok; t0 += kTokenTile) {
      const int nt = int(std::min<int64_t>(kTokenTile, n_tok - t0));
      for (int t = 0; t < nt; ++t) {
        const float* row = qkv + (t0 + t) * conv_dim;
        std::copy_n(row + int64_t(kh) * d_k, d_k, q[t]);
        std::copy_n(row + key_dim + int64_t(kh) * d_k, d_k, k[t]);
        decay[t] = std::exp(g[(t0 + t) * dims.n_v + h]);
      }
      l2_normalize_rows<Isa>(q[0], d_k, kMaxDk, nt, eps);
      l2_normalize_rows<Isa>(k[0], d_k, kMaxDk, nt, eps);
      constexpr int kGroup = kRowsAtOnce * W::kRows;
      for (int j = 0; j < d_v;) {
        const bool group = j + kGroup <= d_v;
        for (int t = 0; t < nt; ++t) {
          const int64_t tok = t0 + t;
          float* rows = m + int64_t(j) * d_k;
          const float* v = qkv + tok * conv_dim + 2 * key_dim + int64_t(h) * d_v + j;
          float* o = out + tok * dims.value_dim() + int64_t(h) * d_v + j;
          const float b = beta[tok * dims.n_v + h];
          if (group)
            update_rows<W, kRowsAtOnce>(rows, d_k, k[t], q[t], v, decay[t], b, scale, o);
          else
            update_rows<OneRow<Isa>, 1>(rows, d_k, k[t], q[t], v, decay[t], b, scale, o);
        }
        j += group ? kGroup : 1;
      }
    }
  }
}

}  // namespace kz::delta_rule
