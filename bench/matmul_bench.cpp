// cpu-backend matrix products per weight type at real layer shapes (rows x cols of Qwen-size
// projections). Decode (1 token) reports GB/s of weights streamed; prefill (64 tokens) reports
// tokens/s. Args: rows, cols, tokens, level (0 scalar reference, 1 best ISA), threads, pack (1:
// the weights may be repacked for the ISA's packed kernels, as models' weights are; Q4_0/Q8_0).
#include <cstdint>

#include "bench_util.h"
#include "quant/quant.h"

namespace kz::bench {
namespace {

template <DType T>
void BM_Matmul(benchmark::State& st) {
  const int64_t rows = st.range(0), cols = st.range(1), n_tok = st.range(2);
  auto be = backend_for(st, st.range(3), st.range(4));
  const uint64_t rb = row_bytes(T, cols);
  std::vector<uint8_t> w(rb * rows);
  const auto src = random_vec(cols, 1);
  for (int64_t r = 0; r < rows; ++r) quantize_row(T, src.data(), w.data() + r * rb, cols);
  Matrix m{T, cols, rows, w.data(), rb, "w", nullptr};
  if (st.range(5)) m.derived = std::make_shared<DerivedWeights>();
  const auto x = random_vec(cols * n_tok, 2);
  std::vector<float> y(rows * n_tok);
  for (auto _ : st) {
    be->matmul(m, x.data(), n_tok, y.data());
    benchmark::DoNotOptimize(y.data());
  }
  const double bytes = double(rb) * rows;
  st.counters["GB/s"] =
      benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  st.counters["tok/s"] =
      benchmark::Counter(double(n_tok), benchmark::Counter::kIsIterationInvariantRate);
}

void shapes_with(benchmark::internal::Benchmark* b, std::initializer_list<int64_t> packs) {
  for (int64_t level : {0, 1})
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1024, 3584}, {2048, 6144}})
      for (int64_t n_tok : {1, 5, 64, 256})
        for (int64_t threads : {1, 2})
          for (int64_t pack : packs) {
            if (level == 0 && (n_tok > 1 || threads > 1 || pack)) continue;  // scalar: decode
            b->Args({rows, cols, n_tok, level, threads, pack});
          }
  b->ArgNames({"rows", "cols", "tok", "lvl", "thr", "pack"})
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
}
void shapes(benchmark::internal::Benchmark* b) {
  shapes_with(b, {0});
}
void packable_shapes(benchmark::internal::Benchmark* b) {
  shapes_with(b, {0, 1});
}

BENCHMARK(BM_Matmul<DType::Q4_0>)->Apply(packable_shapes);
BENCHMARK(BM_Matmul<DType::Q8_0>)->Apply(packable_shapes);
BENCHMARK(BM_Matmul<DType::Q4_K>)->Apply(packable_shapes);
BENCHMARK(BM_Matmul<DType::Q5_K>)->Apply(packable_shapes);
BENCHMARK(BM_Matmul<DType::Q6_K>)->Apply(packable_shapes);
BENCHMARK(BM_Matmul<DType::F16>)->Apply(shapes);
BENCHMARK(BM_Matmul<DType::BF16>)->Apply(shapes);
BENCHMARK(BM_Matmul<DType::F32>)->Apply(shapes);

}  // namespace
}  // namespace kz::bench
