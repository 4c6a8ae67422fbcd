// Shared setup of the cpu-backend micro-benchmarks: a CpuBackend over the kernel table of one
// level (0 = scalar reference kernels, 1 = the CPU's best), its configuration for the bench line.
#pragma once

#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu_backend.h"
#include "kernels/kernel_table.h"

namespace kz::bench {

inline const KernelTable& table_for_level(int64_t level) {
  static const KernelTable scalar = build_kernel_table(CpuFeatures{});
  return level == 0 ? scalar : kernel_table();
}

inline std::unique_ptr<CpuBackend> backend_for(benchmark::State& st, int64_t level,
                                               int64_t threads) {
  const KernelTable& t = table_for_level(level);
  st.SetLabel((level == 0 ? std::string("scalar") : t.isa) + " threads=" + std::to_string(threads));
  return std::make_unique<CpuBackend>(int(threads), &t);
}

inline std::vector<float> random_vec(int64_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace kz::bench
