// The fused causal attention kernels (kernels/x86/attention_avx2.cpp, attention_avx512.cpp,
// kernels/arm/attention_neon.cpp) for one query token (prompts: kernels/blocked_attention.h, which
// gives this code's bits), written once over an ISA's 8-lane f32 vector: per (query
// token, head), one pass over the keys and values in blocks of 16 positions with an online
// softmax (running max m, running sum l, output accumulator rescaled by e^(m_old - m_new) when
// the max grows), so no score vector of the context length is stored.
//
// Memory and conversion are shared: the heads of a token sweep the cache together, so each
// block of K and V is read from memory once, and the query heads of a GQA group (up to
// kMaxGroupStep at a time) take each K and V row converted to f32 once. Each head's own f32
// operations are the same whichever heads it is grouped with, and every ISA runs this code with
// vector operations that match lane for lane, so their results are identical bit for bit.
//
// Cache rows are bytes of the cache type (F32, F16 or Q8_0; a Q8_0 head is head_dim / 32 whole
// blocks). F32 and F16 values are used as they are; Q8_0 int8 quants are taken as f32 and each
// block's scale d is applied once: q.k as the sum over blocks of d * (q . quants), v with p * d
// as one factor (d * sum q_i k_i, as the reference implementation computes Q8_0 dot products).
//
// Isa supplies, for its vector type V of 8 f32 lanes:
//   V zero(); V splat(float); V load(const float*); void store(float*, V);
//   V add(V a, V b); V mul(V a, V b); V fma(V a, V b, V c);  // a + b * c, fused
//   float hsum(V);                                            // x86/simd_avx2.h's order
//   optional: void hsum8(const V x[8], float r[8]);           // eight hsums, the same bits
//   V load_f16(const uint16_t*); V load_i8(const int8_t*); float half(uint16_t);
//   void exp_block(float* s, float m);  // s[j] = e^(s[j] - m) for j < kKeyBlock (vector exp)
// The head's main loops take 16 lanes at a time as two 8-lane halves (PairOf); an ISA with
// 16-lane vectors may supply them as one register, `using Wide = ...` with PairOf's operations
// (AVX-512: x86/attention_avx512.cpp), which does the same operation on each lane.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ops/op_types.h"
#include "quant/blocks.h"
#include "quant/types.h"

namespace kz::online_attention {

constexpr int kMaxHeadDim = 512;  // the callers route larger heads to the reference kernel
constexpr int kKeyBlock = 16;
// The heads that sweep the keys together: at most 16 and 2048 accumulator floats (16 x 128).
constexpr int kMaxSweepHeads = 16;
constexpr int kMaxSweepFloats = 2048;
static_assert(kMaxSweepFloats >= kMaxHeadDim);
// The query heads of one KV head that share each converted row: their accumulators (two
// vectors a head) and the row's vectors fit in 16 AVX2 registers.
constexpr int kMaxGroupStep = 4;

// Blocks ahead that the sweep prefetches (a KV head's rows are contiguous, but the hardware
// prefetchers stop at each 4 KB page; 2 and 3 blocks measured no faster), and the prefetch
// itself: bytes [begin, end), a line at a time.
constexpr int kPrefetchAhead = 1;
inline void prefetch(const uint8_t* begin, const uint8_t* end) {
  for (const uint8_t* p = begin; p < end; p += 64) __builtin_prefetch(p);
}

// 16 f32 lanes as two of Isa's 8-lane vectors, lanes 0-7 and 8-15: the lanes that the loops
// below take at a time. halves adds them: the first step of the 16-lane horizontal sum.
template <class Isa>
struct PairOf {
  using V8 = typename Isa::V;
  struct W {
    V8 lo, hi;
  };
  static W zero() { return {Isa::zero(), Isa::zero()}; }
  static W splat(float x) { return {Isa::splat(x), Isa::splat(x)}; }
  static W load(const float* p) { return {Isa::load(p), Isa::load(p + 8)}; }
  static void store(float* p, W x) { Isa::store(p, x.lo), Isa::store(p + 8, x.hi); }
  static W mul(W a, W b) { return {Isa::mul(a.lo, b.lo), Isa::mul(a.hi, b.hi)}; }
  static W fma(W a, W b, W c) { return {Isa::fma(a.lo, b.lo, c.lo), Isa::fma(a.hi, b.hi, c.hi)}; }
  static W load_f16(const uint16_t* p) { return {Isa::load_f16(p), Isa::load_f16(p + 8)}; }
  static W load_i8(const int8_t* p) { return {Isa::load_i8(p), Isa::load_i8(p + 8)}; }
  static V8 lo(W x) { return x.lo; }
  static W with_lo(W x, V8 lo) { return {lo, x.hi}; }
  static V8 halves(W x) { return Isa::add(x.lo, x.hi); }
};
template <class Isa>
struct WideOf {
  using type = PairOf<Isa>;
};
template <class Isa>
requires requires {
  typename Isa::Wide;
}
struct WideOf<Isa> {
  using type = typename Isa::Wide;
};

// r[k] = the horizontal sum of 16-lane vector a[k] for k < n: its halves added (Wd::halves),
// then Isa's 8-lane sum; eight at a time when Isa can (Isa::hsum8, the same adds transposed).
template <class Isa, class Wd, class W>
void hsums(const W* a, int n, float* r) {
  int k = 0;
  if constexpr (requires(const typename Isa::V* x, float* y) { Isa::hsum8(x, y); })
    for (; k + 8 <= n; k += 8) {
      typename Isa::V t[8];
      for (int u = 0; u < 8; ++u) t[u] = Wd::halves(a[k + u]);
      Isa::hsum8(t, r + k);
    }
  for (; k < n; ++k) r[k] = Isa::hsum(Wd::halves(a[k]));
}

// The online softmax of one query head: running max m, running sum l, accumulator acc[d].
struct HeadState {
  float m = -INFINITY, l = 0.0f;
  float* acc = nullptr;
};

// Lanes i .. i+7 (as f32; with a Wide ISA, i .. i+15) and lane i of an F32 or F16 cache row.
template <class Isa, DType T>
auto load_lanes(const uint8_t* row, int i) {
  if constexpr (T == DType::F16)
    return Isa::load_f16(reinterpret_cast<const uint16_t*>(row) + i);
  else
    return Isa::load(reinterpret_cast<const float*>(row) + i);
}
template <class Isa, DType T>
float load1(const uint8_t* row, int i) {
  if constexpr (T == DType::F16)
    return Isa::half(reinterpret_cast<const uint16_t*>(row)[i]);
  else
    return reinterpret_cast<const float*>(row)[i];
}
inline const BlockQ8_0* q8_0_block(const uint8_t* row, int i) {
  return reinterpret_cast<const BlockQ8_0*>(row) + unsigned(i) / kQK;
}

// s[h * kKeyBlock + n] = q_h . k_n for G query heads q_h = q + h * d and NK key rows
// k_n = k + n * k_row: a 16-lane accumulator per pair (two 8-lane ones, even and odd 8-lane
// steps), any 8 lanes past the last multiple of 16 into its low half, then the horizontal sum,
// then any lanes past the last multiple of 8. The NK keys interleave only to give the core
// independent chains of fused multiply-adds; each pair's operations are the same.
template <class Isa, DType T, int G, int NK>
void dot(const float* q, const uint8_t* k, uint64_t k_row, int d, float* s) {
  using Wd = typename WideOf<Isa>::type;
  using W = decltype(Wd::zero());
  W a[NK][G];
  for (int n = 0; n < NK; ++n)
    for (int h = 0; h < G; ++h) a[n][h] = Wd::zero();
  int i = 0;
  if constexpr (T == DType::Q8_0) {
    for (; i < d; i += kQK)
      for (int n = 0; n < NK; ++n) {
        const BlockQ8_0* b = q8_0_block(k + n * k_row, i);
        const W x01 = Wd::load_i8(b->qs), x23 = Wd::load_i8(b->qs + 16);
        const W dv = Wd::splat(Isa::half(b->d));
        for (int h = 0; h < G; ++h) {
          const float* qh = q + h * d + i;
          const W t = Wd::fma(Wd::mul(Wd::load(qh), x01), Wd::load(qh + 16), x23);
          a[n][h] = Wd::fma(a[n][h], t, dv);
        }
      }
  } else {
    for (; i + 16 <= d; i += 16)
      for (int n = 0; n < NK; ++n) {
        const W x = load_lanes<Wd, T>(k + n * k_row, i);
        for (int h = 0; h < G; ++h) a[n][h] = Wd::fma(a[n][h], Wd::load(q + h * d + i), x);
      }
    if (i + 8 <= d) {
      for (int n = 0; n < NK; ++n) {
        const auto x = load_lanes<Isa, T>(k + n * k_row, i);
        for (int h = 0; h < G; ++h)
          a[n][h] = Wd::with_lo(a[n][h], Isa::fma(Wd::lo(a[n][h]), Isa::load(q + h * d + i), x));
      }
      i += 8;
    }
  }
  float sums[NK][G];
  hsums<Isa, Wd>(&a[0][0], NK * G, &sums[0][0]);
  for (int n = 0; n < NK; ++n)
    for (int h = 0; h < G; ++h) {
      float r = sums[n][h];
      if constexpr (T != DType::Q8_0)
        for (int l = i; l < d; ++l) r += q[h * d + l] * load1<Isa, T>(k + n * k_row, l);
      s[h * kKeyBlock + n] = r;
    }
}

// Whether Isa runs the 16-lane loops in one register (WideOf): each head then has one
// accumulator per 16 lanes where PairOf has two, so the loops below take more keys or lanes at a
// time to keep as many independent chains of multiply-adds in flight.
template <class Isa>
constexpr bool kWide = !std::is_same_v<typename WideOf<Isa>::type, PairOf<Isa>>;

// For G heads, lanes [i, i + 16 * C) of acc_h = acc + h * d (p_h = p + h * kKeyBlock):
// acc_h = acc_h * c[h] + p_h[0] * v_0 + ... + p_h[nb-1] * v_(nb-1) (row v_j at v + j * v_row),
// each term fused into the running sum in that order, in registers. The C chunks of 16 lanes
// interleave only to give the core independent chains; each lane's operations are the same.
template <class Isa, DType T, int G, int C>
[[gnu::always_inline]] inline void accumulate_lanes(float* acc, const float* c, const float* p,
                                                    const uint8_t* v, uint64_t v_row, int nb, int d,
                                                    int i) {
  using Wd = typename WideOf<Isa>::type;
  using W = decltype(Wd::zero());
  W r[C][G];
  for (int u = 0; u < C; ++u)
    for (int h = 0; h < G; ++h)
      r[u][h] = Wd::mul(Wd::load(acc + h * d + i + 16 * u), Wd::splat(c[h]));
  for (int j = 0; j < nb; ++j) {
    const uint8_t* row = v + j * v_row;
    for (int u = 0; u < C; ++u) {
      const int l = i + 16 * u;
      if constexpr (T == DType::Q8_0) {
        const BlockQ8_0* b = q8_0_block(row, l);
        const W x = Wd::load_i8(b->qs + l % kQK);
        const float dj = Isa::half(b->d);
        for (int h = 0; h < G; ++h)
          r[u][h] = Wd::fma(r[u][h], Wd::splat(p[h * kKeyBlock + j] * dj), x);
      } else {
        const W x = load_lanes<Wd, T>(row, l);
        for (int h = 0; h < G; ++h) r[u][h] = Wd::fma(r[u][h], Wd::splat(p[h * kKeyBlock + j]), x);
      }
    }
  }
  for (int u = 0; u < C; ++u)
    for (int h = 0; h < G; ++h) Wd::store(acc + h * d + i + 16 * u, r[u][h]);
}

// accumulate_lanes over all d lanes of the G heads.
template <class Isa, DType T, int G>
void accumulate(float* acc, const float* c, const float* p, const uint8_t* v, uint64_t v_row,
                int nb, int d) {
  using V = typename Isa::V;
  constexpr int C = kWide<Isa> ? 2 : 1;
  int i = 0;
  for (; i + 16 * C <= d; i += 16 * C)
    accumulate_lanes<Isa, T, G, C>(acc, c, p, v, v_row, nb, d, i);
  for (; i + 16 <= d; i += 16) accumulate_lanes<Isa, T, G, 1>(acc, c, p, v, v_row, nb, d, i);
  if constexpr (T != DType::Q8_0) {  // Q8_0 heads are whole blocks of 32
    for (; i + 8 <= d; i += 8)
      for (int h = 0; h < G; ++h) {
        V r = Isa::mul(Isa::load(acc + h * d + i), Isa::splat(c[h]));
        for (int j = 0; j < nb; ++j)
          r = Isa::fma(r, Isa::splat(p[h * kKeyBlock + j]), load_lanes<Isa, T>(v + j * v_row, i));
        Isa::store(acc + h * d + i, r);
      }
    for (; i < d; ++i)
      for (int h = 0; h < G; ++h) {
        float r = acc[h * d + i] * c[h];
        for (int j = 0; j < nb; ++j) r = r + p[h * kKeyBlock + j] * load1<Isa, T>(v + j * v_row, i);
        acc[h * d + i] = r;
      }
  }
}

// Adds keys and values [j0, j0 + nb) (nb <= kKeyBlock) of one KV head to the online softmax of
// G of its query heads (q_h = q + h * d; their accumulators are contiguous from hs[0].acc).
// Prefetches keys and values [fetch_begin, fetch_end) a few rows before each dot product, so
// that the loads in flight are spread over the block's work.
template <class Isa, DType K, DType V, int G>
void attend_block(const float* q, const uint8_t* k, const uint8_t* v, uint64_t k_row,
                  uint64_t v_row, int64_t j0, int nb, int d, float scale, HeadState* hs,
                  int64_t fetch_begin, int64_t fetch_end) {
  // Keys a dot product takes at once: enough independent accumulators (G x NK of 16 lanes) for
  // the core's multiply-add units, few enough for the registers: 4, 8 of the 16 registers of
  // AVX2 or NEON as 8-lane pairs; 8 to 16 of AVX-512's 32 when Wide, where one register holds
  // 16 lanes and more keys a call also spread its fixed cost, the horizontal sums.
  constexpr int NK = kWide<Isa> ? (G == 1 ? 8 : 4) : (G == 1 ? 4 : G == 2 ? 2 : 1);
  alignas(32) float s[G * kKeyBlock];
  int j = 0;
  for (; j + NK <= nb; j += NK) {
    const int64_t f0 = std::min(fetch_end, fetch_begin + j);
    const int64_t f1 = j + NK < nb ? std::min(fetch_end, f0 + NK) : fetch_end;
    prefetch(k + f0 * k_row, k + f1 * k_row);
    prefetch(v + f0 * v_row, v + f1 * v_row);
    dot<Isa, K, G, NK>(q, k + (j0 + j) * k_row, k_row, d, s + j);
  }
  for (; j < nb; ++j) dot<Isa, K, G, 1>(q, k + (j0 + j) * k_row, k_row, d, s + j);
  float c[G];
  for (int h = 0; h < G; ++h) {
    float* sh = s + h * kKeyBlock;
    float bmax = -INFINITY;
    for (int j = 0; j < nb; ++j) {
      sh[j] *= scale;
      bmax = std::max(bmax, sh[j]);
    }
    const float m_new = std::max(hs[h].m, bmax);
    c[h] = hs[h].m == -INFINITY ? 0.0f : std::exp(hs[h].m - m_new);
    hs[h].l *= c[h];
    std::fill(sh + nb, sh + kKeyBlock, m_new);  // a partial block's padding: e^0, never used
    Isa::exp_block(sh, m_new);
    for (int j = 0; j < nb; ++j) hs[h].l += sh[j];
    hs[h].m = m_new;
  }
  accumulate<Isa, V, G>(hs[0].acc, c, s, v + j0 * v_row, v_row, nb, d);
}

// Query heads [h0, h1) of token t (at most kMaxSweepHeads, kMaxSweepFloats / d) over keys
// [0, pos0 + t]. The heads sweep the cache together, one key block at a time: each block's
// rows are read from memory once for all of them, converted once for up to kMaxGroupStep heads
// of a GQA group, and the sweep streams through the cache instead of striding over it once
// per head.
template <class Isa, DType K, DType V>
void sweep(const float* q, const KvCacheView& kv, int64_t pos0, int n_head, float scale, float* out,
           int64_t t, int h0, int h1) {
  const int d = kv.head_dim;
  const int group = n_head / kv.n_kv_head;
  // Each KV head's rows are contiguous (backend/backend.h): one row per position.
  const uint64_t k_row = kv.k_head_bytes(), v_row = kv.v_head_bytes();
  alignas(32) float acc[kMaxSweepFloats];
  std::fill(acc, acc + (h1 - h0) * d, 0.0f);
  HeadState heads[kMaxSweepHeads];
  for (int h = h0; h < h1; ++h) heads[h - h0].acc = acc + (h - h0) * d;
  const int64_t n_keys = pos0 + t + 1;
  const float* qt = q + t * n_head * d;
  for (int64_t j0 = 0; j0 < n_keys; j0 += kKeyBlock) {
    const int nb = int(std::min<int64_t>(kKeyBlock, n_keys - j0));
    // The block kPrefetchAhead blocks on, fetched by the first heads of each KV head.
    const int64_t fetch_begin = std::min(n_keys, j0 + kPrefetchAhead * kKeyBlock);
    const int64_t fetch_end = std::min(n_keys, fetch_begin + kKeyBlock);
    for (int h = h0; h < h1;) {
      const int kv_head = h / group;
      const int n = std::min({kMaxGroupStep, h1 - h, (kv_head + 1) * group - h});
      const uint8_t* kh = kv.k_row(kv_head, 0);
      const uint8_t* vh = kv.v_row(kv_head, 0);
      const bool fetch = h == h0 || h % group == 0;
      const int64_t f0 = fetch ? fetch_begin : 0, f1 = fetch ? fetch_end : 0;
      const float* qh = qt + h * d;
      HeadState* hs = heads + (h - h0);
      switch (n) {
        case 4:
          attend_block<Isa, K, V, 4>(qh, kh, vh, k_row, v_row, j0, nb, d, scale, hs, f0, f1);
          break;
        case 3:
          attend_block<Isa, K, V, 3>(qh, kh, vh, k_row, v_row, j0, nb, d, scale, hs, f0, f1);
          break;
        case 2:
          attend_block<Isa, K, V, 2>(qh, kh, vh, k_row, v_row, j0, nb, d, scale, hs, f0, f1);
          break;
        default:
          attend_block<Isa, K, V, 1>(qh, kh, vh, k_row, v_row, j0, nb, d, scale, hs, f0, f1);
      }
      h += n;
    }
  }
  for (int h = h0; h < h1; ++h) {
    const HeadState& st = heads[h - h0];
    const float inv = 1.0f / st.l;
    float* o = out + (t * n_head + h) * d;
    for (int i = 0; i < d; ++i) o[i] = st.acc[i] * inv;
  }
}

// Query rows [begin, end) of q[n_tok * n_head][head_dim], row i = token i / n_head, head i %
// n_head: the rows of each token sweep the cache together, as many at a time as fit.
template <class Isa, DType K, DType V>
void rows(const float* q, const KvCacheView& kv, int64_t pos0, int n_head, float scale, float* out,
          int64_t begin, int64_t end) {
  const int max_heads = std::clamp(kMaxSweepFloats / kv.head_dim, 1, kMaxSweepHeads);
  for (int64_t i = begin; i < end;) {
    const int64_t t = i / n_head;
    const int h0 = int(i % n_head);
    const int h1 = int(std::min<int64_t>({n_head, h0 + end - i, h0 + max_heads}));
    sweep<Isa, K, V>(q, kv, pos0, n_head, scale, out, t, h0, h1);
    i += h1 - h0;
  }
}

// Calls f.template operator()<K, V>() with the cache's key and value element types (F16, Q8_0,
// else F32) as template arguments: one instantiation per supported pair.
template <class F>
void with_cache_types(const KvCacheView& kv, F&& f) {
  auto with_v = [&]<DType K>() {
    switch (kv.v_type) {
      case DType::F16:
        return f.template operator()<K, DType::F16>();
      case DType::Q8_0:
        return f.template operator()<K, DType::Q8_0>();
      default:
        return f.template operator()<K, DType::F32>();
    }
  };
  switch (kv.k_type) {
    case DType::F16:
      return with_v.template operator()<DType::F16>();
    case DType::Q8_0:
      return with_v.template operator()<DType::Q8_0>();
    default:
      return with_v.template operator()<DType::F32>();
  }
}

// Attention for query rows [begin, end) (see rows) over a cache of any supported type pair.
template <class Isa>
void run(const float* q, const KvCacheView& kv, int64_t pos0, int n_head, float scale, float* out,
         int64_t begin, int64_t end) {
  with_cache_types(kv, [&]<DType K, DType V>() {
    rows<Isa, K, V>(q, kv, pos0, n_head, scale, out, begin, end);
  });
}

}  // namespace kz::online_attention
