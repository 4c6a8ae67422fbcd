// Error measures shared by the tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace kz::testing {

// RMS(got - want) / RMS(want), in double; against an all-zero `want`, the RMS of the difference.
inline double rel_rms(const float* got, const std::vector<float>& want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    num += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
    den += double(want[i]) * want[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}
inline double rel_rms(const std::vector<float>& got, const std::vector<float>& want) {
  return rel_rms(got.data(), want);
}

// The index of the largest value (the first of equals): a greedy pick.
inline int argmax(const std::vector<float>& x) {
  return int(std::max_element(x.begin(), x.end()) - x.begin());
}

}  // namespace kz::testing
