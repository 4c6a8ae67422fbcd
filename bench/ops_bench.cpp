// cpu-backend non-matmul ops and the thread pool's dispatch cost. Attention is one decode query
// over contexts 128..4096 with an F32, F16 or Q8_0 cache, in the Qwen3-0.6B head shape (16 query
// heads, 8 KV heads of 128) or the Qwen3.5 one (8 query heads, 2 KV heads of 256); GB/s counts
// the K and V bytes read. Level 0 = scalar reference kernels, 1 = best ISA.
#include <array>
#include <cmath>
#include <cstdint>

#include "base/thread_pool.h"
#include "bench_util.h"
#include "kernels/ref/delta_net.h"

namespace kz::bench {
namespace {

void BM_PoolDispatch(benchmark::State& st) {
  ThreadPool pool(int(st.range(0)));
  int64_t sink = 0;
  for (auto _ : st) {
    pool.parallel_for(1024, 1,
                      [&](int64_t b, int64_t e, int) { benchmark::DoNotOptimize(sink += e - b); });
  }
}
BENCHMARK(BM_PoolDispatch)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_Attention(benchmark::State& st) {
  const int64_t ctx = st.range(0);
  const DType type = std::array{DType::F32, DType::F16, DType::Q8_0}[st.range(1)];
  const bool qwen35 = st.range(2);
  auto be = backend_for(st, st.range(3), 2);
  const int n_head = qwen35 ? 8 : 16, n_kv = qwen35 ? 2 : 8, d = qwen35 ? 256 : 128;
  const int64_t row = int64_t(n_kv) * d;
  const uint64_t row_size = row_bytes(type, row);
  std::vector<uint8_t> k(ctx * row_size), v(ctx * row_size);
  const KvCacheView kv{type, type, k.data(), v.data(), ctx, n_kv, d};
  const auto kf = random_vec(ctx * row, 1), vf = random_vec(ctx * row, 2);
  be->kv_store(kv, 0, ctx, kf.data(), vf.data());
  const auto q = random_vec(n_head * d, 3);
  std::vector<float> out(n_head * d);
  for (auto _ : st) {
    be->attention(q.data(), kv, ctx - 1, 1, n_head, 1.0f / std::sqrt(float(d)), out.data());
    benchmark::DoNotOptimize(out.data());
  }
  st.counters["GB/s"] = benchmark::Counter(double(2 * ctx * row_size) * 1e-9,
                                           benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Attention)
    ->ArgsProduct({{128, 512, 1024, 4096, 16384}, {0, 1, 2}, {0, 1}, {0, 1}})
    ->ArgNames({"ctx", "type", "qwen35", "lvl"})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

void BM_RmsNorm(benchmark::State& st) {
  auto be = backend_for(st, st.range(1), 2);
  const int64_t n = st.range(0);
  const auto x = random_vec(n, 1), w = random_vec(n, 2);
  std::vector<float> y(n);
  for (auto _ : st) {
    be->rms_norm(x.data(), w.data(), n, 1, 1e-6f, y.data());
    benchmark::DoNotOptimize(y.data());
  }
}
BENCHMARK(BM_RmsNorm)->ArgsProduct({{2048}, {0, 1}})->ArgNames({"n", "lvl"})->UseRealTime();

// The delta rule's q and k normalization for a prompt tile: 32 rows of 128 (ref::l2_norm at
// lvl 0, the kernel table's l2_norm at lvl 1), one thread.
void BM_L2Norm(benchmark::State& st) {
  const KernelTable& t = table_for_level(st.range(0));
  auto* l2_norm = st.range(0) && t.ops.l2_norm ? t.ops.l2_norm : &ref::l2_norm;
  st.SetLabel(st.range(0) ? t.isa : "scalar");
  auto x = random_vec(32 * 128, 1);
  for (auto _ : st) {
    l2_norm(x.data(), 128, 32, 1e-6f);
    benchmark::DoNotOptimize(x.data());
  }
}
BENCHMARK(BM_L2Norm)->Arg(0)->Arg(1)->ArgNames({"lvl"})->UseRealTime();

// Qwen3.5-0.8B's conv1d: 6144 channels, 4 taps; tokens = st.range(0).
void BM_SsmConv(benchmark::State& st) {
  auto be = backend_for(st, st.range(1), 2);
  const int64_t n_tok = st.range(0), channels = 6144;
  const int d_conv = 4;
  const auto x = random_vec(n_tok * channels, 1), w = random_vec(channels * d_conv, 2);
  auto state = random_vec(channels * (d_conv - 1), 3);
  std::vector<float> y(n_tok * channels);
  for (auto _ : st) {
    be->ssm_conv(x.data(), n_tok, channels, d_conv, w.data(), state.data(), y.data());
    benchmark::DoNotOptimize(y.data());
  }
}
BENCHMARK(BM_SsmConv)
    ->ArgsProduct({{1, 256}, {0, 1}})
    ->ArgNames({"tok", "lvl"})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

void BM_Swiglu(benchmark::State& st) {
  auto be = backend_for(st, st.range(1), 2);
  const int64_t n = st.range(0);
  const auto g = random_vec(n, 1), u = random_vec(n, 2);
  std::vector<float> y(n);
  for (auto _ : st) {
    be->swiglu(g.data(), u.data(), n, y.data());
    benchmark::DoNotOptimize(y.data());
  }
}
BENCHMARK(BM_Swiglu)
    ->ArgsProduct({{6144, 6144 * 64}, {0, 1}})
    ->ArgNames({"n", "lvl"})
    ->UseRealTime();

// Tokens of a Qwen3.5-0.8B DeltaNet layer (16 heads of 128 x 128 state): one (decode) or a
// prompt's 64; counter tok/s.
void BM_DeltaRule(benchmark::State& st) {
  auto be = backend_for(st, st.range(1), st.range(2));
  const DeltaNetDims dims{16, 128, 16, 128};
  const int64_t n_tok = st.range(0);
  const auto qkv = random_vec(dims.conv_dim() * n_tok, 1);
  std::vector<float> g(dims.n_v * n_tok, -0.1f), beta(g.size(), 0.5f);
  auto state = random_vec(dims.state_floats(), 2, 0.01f);
  std::vector<float> out(dims.value_dim() * n_tok);
  for (auto _ : st) {
    be->gated_delta_rule(dims, n_tok, qkv.data(), g.data(), beta.data(), 1e-6f, state.data(),
                         out.data());
    benchmark::DoNotOptimize(out.data());
  }
  st.counters["tok/s"] =
      benchmark::Counter(double(n_tok), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_DeltaRule)
    ->ArgsProduct({{1, 64}, {0, 1}, {1, 2}})
    ->ArgNames({"tok", "lvl", "thr"})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace kz::bench
