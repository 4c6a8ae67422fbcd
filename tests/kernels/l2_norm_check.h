// The check every ISA's L2 norm (OpKernels::l2_norm, also the delta-rule kernels' q and k
// normalization) passes: the bits of ref::l2_norm, for row lengths around the vector widths and
// row counts around its groups of 4, with all-zero and tiny rows (where eps decides) and rows
// whose squares span far more than a double's precision (so that any other summation order
// rounds differently).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/kernel_table.h"
#include "kernels/ref/delta_net.h"

namespace kz::testing {

inline void check_l2_norm(decltype(OpKernels::l2_norm) l2_norm) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const float eps = 1e-6f;
  for (int64_t n : {1, 3, 4, 5, 7, 8, 9, 16, 31, 128, 130, 257}) {
    for (int64_t rows : {1, 2, 3, 4, 5, 7, 9}) {
      std::vector<float> x(n * rows);
      std::uniform_real_distribution<float> exponent(-12.0f, 6.0f);
      for (int64_t r = 0; r < rows; ++r) {
        const float scale = r == 1 ? 0.0f : r == 2 ? 1e-9f : float(r + 1);  // zero, tiny rows
        for (int64_t i = 0; i < n; ++i)
          x[r * n + i] = scale * normal(rng) * (r % 2 ? std::pow(10.0f, exponent(rng)) : 1.0f);
      }
      std::vector<float> got = x, want = x;
      l2_norm(got.data(), n, rows, eps);
      ref::l2_norm(want.data(), n, rows, eps);
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(got[i], want[i]) << "n " << n << " rows " << rows << " at " << i;
    }
  }
}

}  // namespace kz::testing
