#include "backend/opencl/kernel_sources.h"

namespace kz::opencl {

const char* const kCommonSource = R"CLC(
// Exactness: a*b+c is never fused unless a kernel asks for mad() (the matrix products do).
#pragma OPENCL FP_CONTRACT OFF

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)

float sum16(float16 a) {
  const float8 b = a.lo + a.hi;
  const float4 c = b.lo + b.hi;
  return (c.x + c.y) + (c.z + c.w);
}

// Sum of squares of a row of n, in 16 lanes (then the lanes summed).
float sum_squares(__global const float* x, int n) {
  float16 acc = 0.0f;
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    const float16 v = vload16(0, x + i);
    acc += v * v;
  }
  float tail = 0.0f;
  for (; i < n; ++i) tail += x[i] * x[i];
  return sum16(acc) + tail;
}

float silu_f(float x) { return x / (1.0f + exp(-x)); }
float sigmoid_f(float x) { return 1.0f / (1.0f + exp(-x)); }
)CLC";

}  // namespace kz::opencl
