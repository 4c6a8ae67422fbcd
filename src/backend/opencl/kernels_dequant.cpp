#include "backend/opencl/kernel_sources.h"

namespace kz::opencl {

// dq8_T(row, chunk, part, cols): elements chunk*32 + part*8 .. +7 of a weight row (part 0..3),
// dequantized with the same f32 operations as quant/*.cpp, so the values are the reference's
// bits. The K-quants' 256-element super-blocks are 8 chunks of 32. Only the float formats may
// have a partial last chunk (cols % 32 != 0); its missing elements read as 0.
const char* const kDequantSource = R"CLC(
float8 dq8_f32(__global const uchar* row, int chunk, int part, int cols) {
  const int i = chunk * 32 + part * 8;
  __global const float* r = (__global const float*)row;
  if (i + 8 <= cols) return vload8(0, r + i);
  float v[8];
  for (int j = 0; j < 8; ++j) v[j] = i + j < cols ? r[i + j] : 0.0f;
  return (float8)(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
}

float8 dq8_f16(__global const uchar* row, int chunk, int part, int cols) {
  const int i = chunk * 32 + part * 8;
  __global const half* r = (__global const half*)row;
  if (i + 8 <= cols) return vload_half8(0, r + i);
  float v[8];
  for (int j = 0; j < 8; ++j) v[j] = i + j < cols ? vload_half(i + j, r) : 0.0f;
  return (float8)(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
}

float8 dq8_bf16(__global const uchar* row, int chunk, int part, int cols) {
  const int i = chunk * 32 + part * 8;
  __global const ushort* r = (__global const ushort*)row;
  if (i + 8 <= cols) return as_float8(convert_uint8(vload8(0, r + i)) << 16);
  float v[8];
  for (int j = 0; j < 8; ++j) v[j] = i + j < cols ? as_float((uint)r[i + j] << 16) : 0.0f;
  return (float8)(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
}

// Block: d (fp16), 16 bytes; element j: low nibble of byte j, element j+16: high nibble.
float8 dq8_q4_0(__global const uchar* row, int chunk, int part, int cols) {
  __global const uchar* b = row + chunk * 18;
  const float d = vload_half(0, (__global const half*)b);
  const uchar8 q = vload8(0, b + 2 + (part & 1) * 8);
  const uchar8 nib = part < 2 ? (q & (uchar8)15) : (q >> (uchar8)4);
  return convert_float8(convert_int8(nib) - 8) * d;
}

float8 dq8_q8_0(__global const uchar* row, int chunk, int part, int cols) {
  __global const uchar* b = row + chunk * 34;
  const float d = vload_half(0, (__global const half*)b);
  return convert_float8(vload8(0, (__global const char*)(b + 2) + part * 8)) * d;
}

// 6-bit scale and min of sub-block s of Q4_K / Q5_K (quant/blocks.h: scale_min_k4).
void scale_min_k4(int s, __global const uchar* q, float* sc, float* m) {
  if (s < 4) {
    *sc = q[s] & 63;
    *m = q[s + 4] & 63;
  } else {
    *sc = (q[s + 4] & 0xF) | ((q[s - 4] >> 6) << 4);
    *m = (q[s + 4] >> 4) | ((q[s] >> 6) << 4);
  }
}

// Super-block: d, dmin (fp16), scales[12], qs[128]; sub-block s's nibbles are the low (s even)
// or high (s odd) halves of qs[32*(s/2) ..].
float8 dq8_q4_k(__global const uchar* row, int chunk, int part, int cols) {
  __global const uchar* b = row + (chunk >> 3) * 144;
  const int s = chunk & 7;
  float sc, m;
  scale_min_k4(s, b + 4, &sc, &m);
  const float d1 = vload_half(0, (__global const half*)b) * sc;
  const float m1 = vload_half(1, (__global const half*)b) * m;
  const uchar8 q = vload8(0, b + 16 + 32 * (s >> 1) + part * 8);
  const uchar8 nib = (s & 1) ? (q >> (uchar8)4) : (q & (uchar8)15);
  return d1 * convert_float8(nib) - m1;
}

// Super-block: d, dmin, scales[12], qh[32] (bit s of qh[e % 32]: bit 4 of element e), qs[128].
float8 dq8_q5_k(__global const uchar* row, int chunk, int part, int cols) {
  __global const uchar* b = row + (chunk >> 3) * 176;
  const int s = chunk & 7;
  float sc, m;
  scale_min_k4(s, b + 4, &sc, &m);
  const float d1 = vload_half(0, (__global const half*)b) * sc;
  const float m1 = vload_half(1, (__global const half*)b) * m;
  const uchar8 q = vload8(0, b + 48 + 32 * (s >> 1) + part * 8);
  const uchar8 nib = (s & 1) ? (q >> (uchar8)4) : (q & (uchar8)15);
  const uchar8 high = (vload8(0, b + 16 + part * 8) >> (uchar8)s) & (uchar8)1;
  return d1 * convert_float8(nib | (high << (uchar8)4)) - m1;
}

// Super-block: ql[128], qh[64], scales[16] (int8, one per 16 elements), d. Element e = 128h +
// 32g + l: low 4 bits from ql[64h + l + 32(g%2)] (low nibble for g < 2), high 2 bits from
// qh[32h + l] >> 2g; value (d * scale) * (q - 32).
float8 dq8_q6_k(__global const uchar* row, int chunk, int part, int cols) {
  __global const uchar* b = row + (chunk >> 3) * 210;
  const int s = chunk & 7, h = s >> 2, g = s & 3, l = part * 8;
  const uchar8 byte = vload8(0, b + 64 * h + l + 32 * (g & 1));
  const uchar8 low = g < 2 ? (byte & (uchar8)15) : (byte >> (uchar8)4);
  const uchar8 high = (vload8(0, b + 128 + 32 * h + l) >> (uchar8)(2 * g)) & (uchar8)3;
  const int8 q = convert_int8(low | (high << (uchar8)4)) - 32;
  const float scale = (float)((__global const char*)b)[192 + 2 * s + (part >> 1)];
  const float d = vload_half(0, (__global const half*)(b + 208)) * scale;
  return d * convert_float8(q);
}
)CLC";

}  // namespace kz::opencl
