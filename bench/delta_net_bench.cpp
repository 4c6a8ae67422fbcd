// Reference gated delta rule, chunked vs recurrent prefill, on the Qwen3.5-0.8B DeltaNet layer
// shape (n_k = n_v = 16, d_k = d_v = 128). Reports tokens/s and seconds per token.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/ref/delta_net.h"

namespace kz::ref {
namespace {

const DeltaNetDims kQwen35_0_8B{.n_k = 16, .d_k = 128, .n_v = 16, .d_v = 128};

template <bool kChunked>
void BM_GatedDeltaRuleRef(benchmark::State& st) {
  const DeltaNetDims dims = kQwen35_0_8B;
  const int64_t n_tok = st.range(0);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> act(-0.3f, 1.5f), gate(-5.0f, 0.0f), wr(0.01f, 0.99f);
  std::vector<float> qkv(n_tok * dims.conv_dim()), g(n_tok * dims.n_v), beta(n_tok * dims.n_v);
  for (float& e : qkv) e = act(rng);
  for (float& e : g) e = gate(rng);
  for (float& e : beta) e = wr(rng);
  std::vector<float> state(dims.state_floats()), out(n_tok * dims.value_dim());

  for (auto _ : st) {
    std::fill(state.begin(), state.end(), 0.0f);
    if (kChunked) {
      gated_delta_rule_chunked(dims, n_tok, qkv.data(), g.data(), beta.data(), 1e-6f, state.data(),
                               out.data());
    } else {
      gated_delta_rule_recurrent(dims, n_tok, qkv.data(), g.data(), beta.data(), 1e-6f,
                                 state.data(), out.data());
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  const double tokens = double(n_tok) * double(st.iterations());
  st.counters["tok/s"] = benchmark::Counter(tokens, benchmark::Counter::kIsRate);
  st.counters["s/tok"] =
      benchmark::Counter(tokens, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Scalar reference code runs ~0.1-1 s per 2048-token call: a few iterations suffice.
BENCHMARK(BM_GatedDeltaRuleRef<false>)
    ->Name("gated_delta_rule/ref_recurrent")
    ->Arg(128)
    ->Arg(512)
    ->Arg(2048)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GatedDeltaRuleRef<true>)
    ->Name("gated_delta_rule/ref_chunked")
    ->Arg(128)
    ->Arg(512)
    ->Arg(2048)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace kz::ref
