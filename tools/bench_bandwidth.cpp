#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "base/timer.h"
#include "bench.h"

namespace kz::cli {

BandwidthProbe::BandwidthProbe() : buf_(size_t(256) << 20 >> 3, 1) {}

double BandwidthProbe::measure(int n_threads) const {
  const std::vector<uint64_t>& buf = buf_;
  const size_t n = buf.size();
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    std::vector<uint64_t> sums(n_threads);
    Timer t;
    std::vector<std::thread> threads;
    for (int i = 0; i < n_threads; ++i)
      threads.emplace_back([&, i] {
        const size_t b = n * i / n_threads, e = n * (i + 1) / n_threads;
        // A cache line (8 values) per step, fetched 2 KB ahead as the decode kernels fetch
        // their weights: without it the hardware prefetchers stall at every 4 KB page, and the
        // probe reads slower than decode does (docs/benchmarks.md, "Prefetching weights and
        // K/V ahead").
        uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (size_t k = b; k + 8 <= e; k += 8) {
          __builtin_prefetch(buf.data() + std::min(k + 256, n - 1));
          s0 += buf[k] + buf[k + 4], s1 += buf[k + 1] + buf[k + 5];
          s2 += buf[k + 2] + buf[k + 6], s3 += buf[k + 3] + buf[k + 7];
        }
        sums[i] = s0 + s1 + s2 + s3;
      });
    for (auto& th : threads) th.join();
    const double s = t.seconds();
    uint64_t total = 0;
    for (auto x : sums) total += x;
    if (total == 0) return 0;  // keeps the reads alive
    best = std::max(best, double(n * sizeof(uint64_t)) / s);
  }
  return best;
}

}  // namespace kz::cli
