// Prompt attention as blocked matrix products (kernels/x86/attention_avx2.cpp and
// attention_avx512.cpp, kernels/arm/attention_neon.cpp for more than one query token; one token
// keeps the sweep of kernels/online_attention.h, which is bound by reading the cache). Written
// once over an ISA's f32 vector of 8 lanes (AVX2, NEON) or 16 (AVX-512).
//
// A tile is up to kTileRows<Isa> query rows of one KV head (prompt tokens x the query heads of its
// GQA group) that meet the cache together, kTileKeys keys at a time:
// - each block of keys and values is converted to f32 once for the whole tile;
// - the scores come as a small matrix product with the query rows in the vector lanes (a key
//   value broadcast, multiply-added into the rows' vector), so no horizontal sums;
// - the online softmax runs on those vectors, one lane per row;
// - the values come as a second product, acc_r += sum_n p[n][r] * v_n, a few rows at a time.
//
// Each (row, key) pair takes the operations of the sweep's (online_attention.h), in its order:
// the 16 partial sums of its two 8-lane accumulators (the terms of one residue i mod 16, for
// Q8_0 a block's two quants of the residue times the block's scale), added in x86
// hsum_f32x8's tree; the same key blocks of 16 from position 0, the same scalar rescale
// e^(m_old - m_new), vector exponential, running sum and value order. So a prompt gives the bits
// of feeding its tokens one at a time (the sweep's), whatever the vector width, tile, thread
// split or chunking: keys past a row's causal limit in its tile get the probability 0 exactly,
// which changes no sum.
//
// Isa supplies what online_attention.h lists (load_f16 and load_i8 of a vector's lanes; no hsum
// or exp_block), and V max(V, V) and V exp(V) (exp_block's exponential).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/online_attention.h"

namespace kz::blocked_attention {

using online_attention::kKeyBlock;
using online_attention::kMaxHeadDim;
template <class Isa>
constexpr int kLanes = int(sizeof(typename Isa::V) / sizeof(float));
// Query rows a tile holds: two vectors of rows, so that each key value broadcast in the score
// product feeds two multiply-adds (16 rows for 8 lanes, 32 for AVX-512's 16). The cpu backend's
// grain (kernel_table.h: OpKernels::attention_tile_rows).
constexpr int tile_rows(int lanes) {
  return 2 * lanes;
}
template <class Isa>
constexpr int kTileRows = tile_rows(kLanes<Isa>);
constexpr int kMaxTileRows = tile_rows(16);
constexpr int kTileKeys = kKeyBlock;  // the sweep's blocks, so its rescaling steps
// The sweep's dot product: two 8-lane accumulators, so 16 partial sums (residues i mod 16).
constexpr int kResidues = 16;
// 16 lanes means AVX-512 and its 32 registers: room for twice the accumulators of the 8-lane
// ISAs (AVX2's 16 registers, NEON's pairs of 4-lane registers).
template <class Isa>
constexpr bool kWideRegisters = kLanes<Isa> == 16;
// Independent multiply-add chains of the score product (keys x row vectors): enough for two
// fused multiply-add units of latency 4; with 8 lanes two row vectors x 4 keys, the query
// vectors and a broadcast in 11 registers; with AVX-512, 8 keys in 19.
template <class Isa>
constexpr int kScoreChains = kWideRegisters<Isa> ? 16 : 8;
// Query rows the value product takes at once, and vectors of each row: 4 x 2 accumulators for 8
// lanes; 4 x 4 with AVX-512, so that a value vector and a probability each feed four
// multiply-adds.
constexpr int kRowStep = 4;
template <class Isa>
constexpr int kValueVectors = kWideRegisters<Isa> ? 4 : 2;

// Prompt tokens per task for a GQA group of `group` query heads with tiles of `tile_rows` rows
// (the cpu backend's grain): one tile of each KV head.
inline int tile_tokens(int group, int tile_rows) {
  return std::max(1, tile_rows / group);
}

// Bytes [begin, end), a line at a time: online_attention::prefetch as a template of the ISA,
// so that each ISA's file keeps its own copy (x86/simd_avx2.h says why).
template <class Isa>
void prefetch(const uint8_t* begin, const uint8_t* end) {
  for (const uint8_t* p = begin; p < end; p += 64) __builtin_prefetch(p);
}

// Up to kMaxTileRows query rows of one KV head, each attending to keys [0, n_keys).
struct Tile {
  int n = 0;
  const float* q[kMaxTileRows];
  float* out[kMaxTileRows];
  int64_t n_keys[kMaxTileRows];
};

// Keys or values [j0, j0 + nb) of one KV head as f32: x[n * d + i]; for Q8_0 the quants as they
// are and the blocks' scales d[n * (d / 32) + b], which the sweep applies to sums.
struct Rows {
  const float* x;
  const float* d;
};
template <class Isa, DType T>
Rows f32_rows(const uint8_t* head, uint64_t row, int64_t j0, int nb, int d, float* buf,
              float* scales) {
  const uint8_t* src = head + j0 * row;
  constexpr int L = kLanes<Isa>;
  const int n = nb * d;
  if constexpr (T == DType::F32) {
    return {reinterpret_cast<const float*>(src), nullptr};
  } else if constexpr (T == DType::F16) {
    const auto* h = reinterpret_cast<const uint16_t*>(src);
    int i = 0;
    for (; i + L <= n; i += L) Isa::store(buf + i, Isa::load_f16(h + i));
    for (; i < n; ++i) buf[i] = Isa::half(h[i]);
    return {buf, nullptr};
  } else {  // whole blocks of 32 (a Q8_0 row is head_dim / 32 blocks)
    const auto* b = reinterpret_cast<const BlockQ8_0*>(src);
    for (int i = 0; i < n; i += kQK, ++b) {
      scales[i / kQK] = Isa::half(b->d);
      for (int l = 0; l < kQK; l += L) Isa::store(buf + i + l, Isa::load_i8(b->qs + l));
    }
    return {buf, scales};
  }
}

// s[n][r] = scale * (q_r . k_n) for NK keys (rows n of k) and the RV vectors of rows of qt
// (qt[i][r] = q_r[i]), each pair as online_attention.h's dot computes it (see the top).
template <class Isa, DType T, int RV, int NK>
void scores(const float* qt, const Rows& k, int n0, int d, float scale, float* s) {
  using V = typename Isa::V;
  constexpr int L = kLanes<Isa>, R = RV * L;
  // The lanes the sweep's vectors cover (for F32 / F16 a last 8 into its first accumulator);
  // the rest is its scalar tail.
  const int d_vec = T == DType::Q8_0 ? d : d / 16 * 16 + (d % 16 >= 8 ? 8 : 0);
  const float* kx = k.x + n0 * d;
  V part[kResidues][NK][RV];
  for (int rho = 0; rho < kResidues; ++rho) {
    V a[NK][RV];
    for (int n = 0; n < NK; ++n)
      for (int v = 0; v < RV; ++v) a[n][v] = Isa::zero();
    if constexpr (T == DType::Q8_0) {
      const int blocks = d / kQK;
      for (int b = 0; b < blocks; ++b) {
        const int i = b * kQK + rho;  // and i + 16: the sweep's t = q_i k_i + q_i+16 k_i+16
        V q0[RV], q1[RV];
        for (int v = 0; v < RV; ++v) {
          q0[v] = Isa::load(qt + i * R + v * L);
          q1[v] = Isa::load(qt + (i + 16) * R + v * L);
        }
        for (int n = 0; n < NK; ++n) {
          const V k0 = Isa::splat(kx[n * d + i]), k1 = Isa::splat(kx[n * d + i + 16]);
          const V db = Isa::splat(k.d[(n0 + n) * blocks + b]);
          for (int v = 0; v < RV; ++v)
            a[n][v] = Isa::fma(a[n][v], Isa::fma(Isa::mul(q0[v], k0), k1, q1[v]), db);
        }
      }
    } else {
      for (int i = rho; i < d_vec; i += kResidues) {
        V qv[RV];
        for (int v = 0; v < RV; ++v) qv[v] = Isa::load(qt + i * R + v * L);
        for (int n = 0; n < NK; ++n) {
          const V kb = Isa::splat(kx[n * d + i]);
          for (int v = 0; v < RV; ++v) a[n][v] = Isa::fma(a[n][v], kb, qv[v]);
        }
      }
    }
    for (int n = 0; n < NK; ++n)
      for (int v = 0; v < RV; ++v) part[rho][n][v] = a[n][v];
  }
  for (int n = 0; n < NK; ++n)
    for (int v = 0; v < RV; ++v) {
      // hsum_f32x8 of x = a0 + a1: ((x0 + x4) + (x2 + x6)) + ((x1 + x5) + (x3 + x7)).
      V x[8];
      for (int l = 0; l < 8; ++l) x[l] = Isa::add(part[l][n][v], part[l + 8][n][v]);
      const V lo = Isa::add(Isa::add(x[0], x[4]), Isa::add(x[2], x[6]));
      const V hi = Isa::add(Isa::add(x[1], x[5]), Isa::add(x[3], x[7]));
      float* out = s + n * R + v * L;
      Isa::store(out, Isa::add(lo, hi));
      if constexpr (T != DType::Q8_0)  // the sweep's scalar tail, as it writes it
        for (int r = 0; r < L; ++r)
          for (int i = d_vec; i < d; ++i) out[r] += qt[i * R + v * L + r] * kx[n * d + i];
      Isa::store(out, Isa::mul(Isa::load(out), Isa::splat(scale)));
    }
}

// Dimensions [i, i + CV * L), [i + CV * L, ...) of accumulate's rows while whole chunks of CV
// vectors fit; returns where it stopped.
template <class Isa, DType T, int RB, int R, int CV>
int accumulate_chunks(float* acc, const float* c, const float* p, const Rows& vr, int nb, int d,
                      int i) {
  using V = typename Isa::V;
  constexpr int L = kLanes<Isa>;
  const float* v = vr.x;
  for (; i + CV * L <= d; i += CV * L) {  // Q8_0: L divides the blocks of 32
    V a[RB][CV];
    for (int r = 0; r < RB; ++r) {
      const V cr = Isa::splat(c[r]);
      for (int u = 0; u < CV; ++u) a[r][u] = Isa::mul(Isa::load(acc + r * d + i + u * L), cr);
    }
    for (int n = 0; n < nb; ++n) {
      V x[CV];
      for (int u = 0; u < CV; ++u) x[u] = Isa::load(v + n * d + i + u * L);
      for (int r = 0; r < RB; ++r) {
        V pv = Isa::splat(p[n * R + r]);
        for (int u = 0; u < CV; ++u) {
          // Q8_0: a block's factor p * d, once per block (chunks start at a multiple of 32, or
          // of 16 for AVX2's chunks of 16 inside a block).
          if constexpr (T == DType::Q8_0)
            if (u * L % kQK == 0)
              pv = Isa::splat(p[n * R + r] * vr.d[n * (d / kQK) + (i + u * L) / kQK]);
          a[r][u] = Isa::fma(a[r][u], pv, x[u]);
        }
      }
    }
    for (int r = 0; r < RB; ++r)
      for (int u = 0; u < CV; ++u) Isa::store(acc + r * d + i + u * L, a[r][u]);
  }
  return i;
}

// For RB rows r (row r's accumulator acc + r * d, its probabilities p[n * R + r]):
// acc_r = acc_r * c[r] + p[0][r] * v_0 + ... + p[nb-1][r] * v_(nb-1), each term fused into the
// running sum in that order; for Q8_0 values with the factor p * d (the sweep's accumulate).
template <class Isa, DType T, int RB, int R>
void accumulate(float* acc, const float* c, const float* p, const Rows& vr, int nb, int d) {
  using V = typename Isa::V;
  constexpr int L = kLanes<Isa>;
  const float* v = vr.x;
  constexpr int CV = kValueVectors<Isa>;
  int i = accumulate_chunks<Isa, T, RB, R, CV>(acc, c, p, vr, nb, d, 0);
  if constexpr (CV > 2)  // chunks of 2 vectors where CV * L does not divide d (Q8_0's only tail)
    i = accumulate_chunks<Isa, T, RB, R, 2>(acc, c, p, vr, nb, d, i);
  if constexpr (T != DType::Q8_0) {
    for (; i + L <= d; i += L)
      for (int r = 0; r < RB; ++r) {
        V a = Isa::mul(Isa::load(acc + r * d + i), Isa::splat(c[r]));
        for (int n = 0; n < nb; ++n)
          a = Isa::fma(a, Isa::splat(p[n * R + r]), Isa::load(v + n * d + i));
        Isa::store(acc + r * d + i, a);
      }
    // Past the last whole vector: fused where the sweep's 8-lane vectors reach (16 lanes leave
    // up to 8 of them), then its scalar tail as it writes it.
    for (; i < d / 8 * 8; ++i)
      for (int r = 0; r < RB; ++r) {
        float a = acc[r * d + i] * c[r];
        for (int n = 0; n < nb; ++n) a = std::fma(p[n * R + r], v[n * d + i], a);
        acc[r * d + i] = a;
      }
    for (; i < d; ++i)
      for (int r = 0; r < RB; ++r) {
        float a = acc[r * d + i] * c[r];
        for (int n = 0; n < nb; ++n) a = a + p[n * R + r] * v[n * d + i];
        acc[r * d + i] = a;
      }
  }
}

// The tile's rows (RV row vectors) over keys and values [0, max n_keys) of one KV head. Its
// buffers are on the stack: 2 * R + 32 rows of kMaxHeadDim floats, ~200 KB for 32 rows (the
// threads' stacks: 8 MB on Linux, 1 MB on Android).
template <class Isa, DType K, DType Vt, int RV>
void run_tile(const Tile& tile, const uint8_t* kh, const uint8_t* vh, uint64_t k_row,
              uint64_t v_row, int d, float scale) {
  using V = typename Isa::V;
  constexpr int L = kLanes<Isa>, R = RV * L, NK = kScoreChains<Isa> / RV;
  alignas(64) float qt[kMaxHeadDim * R];
  alignas(64) float acc[R * kMaxHeadDim];
  alignas(64) float kbuf[kTileKeys * kMaxHeadDim], vbuf[kTileKeys * kMaxHeadDim];
  float kscales[kTileKeys * kMaxHeadDim / kQK], vscales[kTileKeys * kMaxHeadDim / kQK];
  alignas(64) float s[kTileKeys * R];
  alignas(64) float m[R], l[R], c[R];
  int64_t max_keys = 0, min_keys = INT64_MAX;
  for (int r = 0; r < R; ++r) {
    const bool real = r < tile.n;
    for (int i = 0; i < d; ++i) qt[i * R + r] = real ? tile.q[r][i] : 0.0f;
    if (!real) continue;
    max_keys = std::max(max_keys, tile.n_keys[r]);
    min_keys = std::min(min_keys, tile.n_keys[r]);
  }
  std::fill(acc, acc + tile.n * d, 0.0f);
  std::fill(m, m + R, -INFINITY);
  std::fill(l, l + R, 0.0f);
  for (int64_t j0 = 0; j0 < max_keys; j0 += kTileKeys) {
    const int nb = int(std::min<int64_t>(kTileKeys, max_keys - j0));
    // The next block's rows: the hardware prefetchers stop at each 4 KB page.
    const int64_t next = std::min<int64_t>(kTileKeys, std::max<int64_t>(0, max_keys - j0 - nb));
    prefetch<Isa>(kh + (j0 + nb) * k_row, kh + (j0 + nb + next) * k_row);
    prefetch<Isa>(vh + (j0 + nb) * v_row, vh + (j0 + nb + next) * v_row);
    const Rows kr = f32_rows<Isa, K>(kh, k_row, j0, nb, d, kbuf, kscales);
    const Rows vr = f32_rows<Isa, Vt>(vh, v_row, j0, nb, d, vbuf, vscales);
    int n = 0;
    for (; n + NK <= nb; n += NK) scores<Isa, K, RV, NK>(qt, kr, n, d, scale, s + n * R);
    for (; n < nb; ++n) scores<Isa, K, RV, 1>(qt, kr, n, d, scale, s + n * R);
    // Causal limits inside the block: those scores out of the maximum, their probabilities 0.
    const bool diagonal = j0 + nb > min_keys;
    if (diagonal)
      for (int r = 0; r < tile.n; ++r)
        for (int64_t j = std::max(tile.n_keys[r], j0); j < j0 + nb; ++j)
          s[(j - j0) * R + r] = -INFINITY;
    for (int v = 0; v < RV; ++v) {
      V m_new = Isa::load(m + v * L);
      for (int j = 0; j < nb; ++j) m_new = Isa::max(m_new, Isa::load(s + j * R + v * L));
      const V neg_m = Isa::mul(m_new, Isa::splat(-1.0f));  // s + (-m) is s - m
      for (int j = 0; j < nb; ++j)
        Isa::store(s + j * R + v * L, Isa::exp(Isa::add(Isa::load(s + j * R + v * L), neg_m)));
      alignas(64) float mn[kLanes<Isa>];
      Isa::store(mn, m_new);
      for (int r = v * L; r < (v + 1) * L; ++r) {
        c[r] = m[r] == -INFINITY ? 0.0f : std::exp(m[r] - mn[r - v * L]);
        m[r] = mn[r - v * L];
      }
    }
    if (diagonal)  // e^-inf is the exponential's floor, not 0
      for (int r = 0; r < tile.n; ++r)
        for (int64_t j = std::max(tile.n_keys[r], j0); j < j0 + nb; ++j) s[(j - j0) * R + r] = 0.0f;
    for (int v = 0; v < RV; ++v) {
      V lv = Isa::mul(Isa::load(l + v * L), Isa::load(c + v * L));
      for (int j = 0; j < nb; ++j) lv = Isa::add(lv, Isa::load(s + j * R + v * L));
      Isa::store(l + v * L, lv);
    }
    int r = 0;
    for (; r + kRowStep <= tile.n; r += kRowStep)
      accumulate<Isa, Vt, kRowStep, R>(acc + r * d, c + r, s + r, vr, nb, d);
    for (; r < tile.n; ++r) accumulate<Isa, Vt, 1, R>(acc + r * d, c + r, s + r, vr, nb, d);
  }
  for (int r = 0; r < tile.n; ++r) {
    const float inv = 1.0f / l[r];
    for (int i = 0; i < d; ++i) tile.out[r][i] = acc[r * d + i] * inv;
  }
}

// Query rows [begin, end) of q[n_tok * n_head][head_dim] (row i = token i / n_head, head
// i % n_head): per KV head, its rows in the range in order, kTileRows<Isa> at a time.
template <class Isa, DType K, DType Vt>
void rows(const float* q, const KvCacheView& kv, int64_t pos0, int n_head, float scale, float* out,
          int64_t begin, int64_t end) {
  static_assert(kTileRows<Isa> <= kMaxTileRows, "a Tile holds kMaxTileRows rows");
  const int d = kv.head_dim;
  const int group = n_head / kv.n_kv_head;
  const uint64_t k_row = kv.k_head_bytes(), v_row = kv.v_head_bytes();
  const int64_t t_begin = begin / n_head, t_end = (end + n_head - 1) / n_head;
  for (int g = 0; g < kv.n_kv_head; ++g) {
    const uint8_t* kh = kv.k_row(g, 0);
    const uint8_t* vh = kv.v_row(g, 0);
    Tile tile;
    auto flush = [&] {
      if (tile.n > kLanes<Isa>)
        run_tile<Isa, K, Vt, kTileRows<Isa> / kLanes<Isa>>(tile, kh, vh, k_row, v_row, d, scale);
      else if (tile.n > 0)
        run_tile<Isa, K, Vt, 1>(tile, kh, vh, k_row, v_row, d, scale);
      tile.n = 0;
    };
    for (int64_t t = t_begin; t < t_end; ++t)
      for (int h = g * group; h < (g + 1) * group; ++h) {
        const int64_t i = t * n_head + h;
        if (i < begin || i >= end) continue;
        tile.q[tile.n] = q + i * d;
        tile.out[tile.n] = out + i * d;
        tile.n_keys[tile.n] = pos0 + t + 1;
        if (++tile.n == kTileRows<Isa>) flush();
      }
    flush();
  }
}

// Attention for query rows [begin, end) over a cache of any supported type pair.
template <class Isa>
void run(const float* q, const KvCacheView& kv, int64_t pos0, int n_head, float scale, float* out,
         int64_t begin, int64_t end) {
  online_attention::with_cache_types(kv, [&]<DType K, DType V>() {
    rows<Isa, K, V>(q, kv, pos0, n_head, scale, out, begin, end);
  });
}

}  // namespace kz::blocked_attention
