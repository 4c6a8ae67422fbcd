// Block layouts of the quantized formats (spec/quants.md §3-§4), byte-compatible with the
// reference structs in ggml-common.h. fp16 fields are raw uint16_t bits (base/half.h converts).
// Rows are arrays of these blocks; every struct but BlockQ8K has 2-byte alignment.
#pragma once

#include <cstdint>

#include "quant/types.h"

namespace kz {

constexpr int kQK = 32;  // block size of the 32-element formats

struct BlockQ4_0 {
  uint16_t d;
  uint8_t qs[16];  // element j: low nibble of qs[j]; element j+16: high nibble
};
struct BlockQ4_1 {
  uint16_t d, m;
  uint8_t qs[16];
};
struct BlockQ5_0 {
  uint16_t d;
  uint8_t qh[4];  // bit j = bit 4 of element j (little-endian uint32)
  uint8_t qs[16];
};
struct BlockQ5_1 {
  uint16_t d, m;
  uint8_t qh[4];
  uint8_t qs[16];
};
struct BlockQ8_0 {
  uint16_t d;
  int8_t qs[32];
};
struct BlockQ8_1 {
  uint16_t d, s;  // s = fp16(d_f32 * sum(qs))
  int8_t qs[32];
};
struct BlockIQ4NL {
  uint16_t d;
  uint8_t qs[16];  // indices into kIQ4NLValues, nibble order as Q4_0
};

struct BlockQ2K {
  uint8_t scales[16];  // low nibble: scale, high nibble: min, one per 16 elements
  uint8_t qs[64];      // 2-bit quants
  uint16_t d, dmin;
};
struct BlockQ3K {
  uint8_t hmask[32];   // high bit of each quant
  uint8_t qs[64];      // low 2 bits
  uint8_t scales[12];  // 16 6-bit scales (offset 32)
  uint16_t d;
};
struct BlockQ4K {
  uint16_t d, dmin;
  uint8_t scales[12];  // 8 6-bit scales and mins (§4.1)
  uint8_t qs[128];
};
struct BlockQ5K {
  uint16_t d, dmin;
  uint8_t scales[12];
  uint8_t qh[32];
  uint8_t qs[128];
};
struct BlockQ6K {
  uint8_t ql[128];
  uint8_t qh[64];
  int8_t scales[16];
  uint16_t d;
};
struct BlockQ8K {
  float d;  // f32; usually negative (the extreme element maps to -127)
  int8_t qs[256];
  int16_t bsums[16];  // sums of 16 consecutive quants
};
struct BlockIQ4XS {
  uint16_t d;
  uint16_t scales_h;    // high 2 bits of the 8 6-bit scales
  uint8_t scales_l[4];  // low 4 bits
  uint8_t qs[128];
};

static_assert(sizeof(BlockQ4_0) == 18 && sizeof(BlockQ4_1) == 20);
static_assert(sizeof(BlockQ5_0) == 22 && sizeof(BlockQ5_1) == 24);
static_assert(sizeof(BlockQ8_0) == 34 && sizeof(BlockQ8_1) == 36 && sizeof(BlockIQ4NL) == 18);
static_assert(sizeof(BlockQ2K) == 84 && sizeof(BlockQ3K) == 110 && sizeof(BlockQ4K) == 144);
static_assert(sizeof(BlockQ5K) == 176 && sizeof(BlockQ6K) == 210 && sizeof(BlockQ8K) == 292);
static_assert(sizeof(BlockIQ4XS) == 136);

// Non-linear 4-bit grid of IQ4_NL / IQ4_XS (ggml-common.h: kvalues_iq4nl).
inline constexpr int8_t kIQ4NLValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                            1,    13,   25,  38,  53,  69,  89,  113};

// 6-bit scale and min of sub-block j (0..7) of Q4_K / Q5_K (§4.1).
inline void scale_min_k4(int j, const uint8_t* q, uint8_t* sc, uint8_t* m) {
  if (j < 4) {
    *sc = q[j] & 63;
    *m = q[j + 4] & 63;
  } else {
    *sc = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
    *m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
  }
}

// Signed 6-bit scale (-32..31) of sub-block j (0..15) of Q3_K.
inline int q3k_scale(const uint8_t* scales, int j) {
  const int low = j < 8 ? scales[j] & 0xF : scales[j - 8] >> 4;
  const int high = (scales[8 + j % 4] >> (2 * (j / 4))) & 3;
  return (low | (high << 4)) - 32;
}

// Signed 6-bit scale (-32..31) of sub-block ib (0..7) of IQ4_XS.
inline int iq4xs_scale(const BlockIQ4XS& b, int ib) {
  const int low = (b.scales_l[ib / 2] >> (4 * (ib % 2))) & 0xF;
  const int high = (b.scales_h >> (2 * ib)) & 3;
  return (low | (high << 4)) - 32;
}

}  // namespace kz
