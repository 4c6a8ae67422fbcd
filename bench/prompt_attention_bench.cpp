// Prompt attention on the cpu backend's best kernels, 2 threads: a prompt of n_tok tokens
// appended at pos0 to an F16 or Q8_0 cache, in the Qwen3-0.6B head shape (16 query heads, 8 KV
// heads of 128) or the Qwen3.5 one (8 query heads, 2 KV heads of 256). tok/s counts the prompt's
// tokens, GFLOP/s the two products' multiply-adds (two flops each) over its causal (query row,
// key) pairs (BM_Attention in ops_bench.cpp is the one-token decode query).
#include <array>
#include <cmath>
#include <cstdint>

#include "bench_util.h"

namespace kz::bench {
namespace {

void BM_PromptAttention(benchmark::State& st) {
  const int64_t n_tok = st.range(0), pos0 = st.range(1);
  const DType type = std::array{DType::F16, DType::Q8_0}[st.range(2)];
  const bool qwen35 = st.range(3);
  auto be = backend_for(st, 1, 2);
  const int n_head = qwen35 ? 8 : 16, n_kv = qwen35 ? 2 : 8, d = qwen35 ? 256 : 128;
  const int64_t ctx = pos0 + n_tok, row = int64_t(n_kv) * d;
  std::vector<uint8_t> k(ctx * row_bytes(type, row)), v(k.size());
  const KvCacheView kv{type, type, k.data(), v.data(), ctx, n_kv, d};
  be->kv_store(kv, 0, ctx, random_vec(ctx * row, 1).data(), random_vec(ctx * row, 2).data());
  const auto q = random_vec(n_tok * n_head * d, 3);
  std::vector<float> out(q.size());
  for (auto _ : st) {
    be->attention(q.data(), kv, pos0, n_tok, n_head, 1.0f / std::sqrt(float(d)), out.data());
    benchmark::DoNotOptimize(out.data());
  }
  st.counters["tok/s"] =
      benchmark::Counter(double(n_tok), benchmark::Counter::kIsIterationInvariantRate);
  // Two products (q.k and p.v) of d multiply-adds for each (query row, key) pair, causal.
  const double pairs = double(n_head) * (n_tok * pos0 + n_tok * (n_tok + 1) / 2);
  st.counters["GFLOP/s"] =
      benchmark::Counter(4.0 * d * pairs * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_PromptAttention)
    ->ArgsProduct({{512}, {0}, {0, 1}, {0, 1}})
    ->Args({2048, 0, 0, 0})
    ->Args({64, 4000, 0, 0})
    // `bench --chat 5 --chat-tokens 184`'s fifth turn: its new tokens at position 0, and after
    // the cached prefix.
    ->Args({211, 0, 0, 1})
    ->Args({211, 925, 0, 1})
    ->ArgNames({"n_tok", "pos0", "type", "qwen35"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace kz::bench
