#include "kernels/ref/delta_net.h"
#include "testing/metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace kz::ref {
namespace {

std::vector<float> uniform(int64_t n, float lo, float hi, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> x(n);
  for (float& e : x) e = dist(rng);
  return x;
}

// sqrt(Σ (a−b)²) / sqrt(Σ b²), in double.
using testing::rel_rms;

// ---------------------------------------------------------------------------------------------
// ssm_conv

// out[t][ch] = Σ_τ X[t+τ][ch] w[ch][τ] with X = [state | x], written out as a sequence.
void naive_conv(const std::vector<float>& x, int64_t n_tok, int64_t channels, int d_conv,
                const std::vector<float>& w, const std::vector<float>& state0,
                std::vector<double>& out, std::vector<float>& state1) {
  out.assign(n_tok * channels, 0.0);
  state1.assign(channels * (d_conv - 1), 0.0f);
  for (int64_t ch = 0; ch < channels; ++ch) {
    std::vector<float> seq;
    for (int tau = 0; tau < d_conv - 1; ++tau) seq.push_back(state0[ch * (d_conv - 1) + tau]);
    for (int64_t t = 0; t < n_tok; ++t) seq.push_back(x[t * channels + ch]);
    for (int64_t t = 0; t < n_tok; ++t) {
      for (int tau = 0; tau < d_conv; ++tau) {
        out[t * channels + ch] += double(seq[t + tau]) * w[ch * d_conv + tau];
      }
    }
    for (int tau = 0; tau < d_conv - 1; ++tau) {
      state1[ch * (d_conv - 1) + tau] = seq[seq.size() - (d_conv - 1) + tau];
    }
  }
}

// One conv1d problem from random inputs, run from its initial state as a sequence of calls.
struct ConvRun {
  std::vector<float> out, state;
};
struct ConvCase {
  int64_t channels, n_tok;
  int d_conv;
  std::vector<float> x, w, state0;
  ConvCase(int64_t channels_, int64_t n_tok_, int d_conv_, std::mt19937& rng)
      : channels(channels_),
        n_tok(n_tok_),
        d_conv(d_conv_),
        x(uniform(n_tok * channels, -2, 2, rng)),
        w(uniform(channels * d_conv, -1, 1, rng)),
        state0(uniform(channels * (d_conv - 1), -2, 2, rng)) {}
  // The tokens in calls of `sizes` tokens each (summing to n_tok).
  ConvRun in_calls(const std::vector<int64_t>& sizes) const {
    ConvRun r{std::vector<float>(n_tok * channels), state0};
    int64_t t = 0;
    for (int64_t n : sizes) {
      ssm_conv(x.data() + t * channels, n, channels, d_conv, w.data(), r.state.data(),
               r.out.data() + t * channels);
      t += n;
    }
    return r;
  }
  ConvRun one_call() const { return in_calls({n_tok}); }
  ConvRun token_by_token() const { return in_calls(std::vector<int64_t>(n_tok, 1)); }
};

void expect_same_bits(const ConvRun& got, const ConvRun& want, const std::string& what) {
  EXPECT_EQ(got.out, want.out) << what;
  EXPECT_EQ(got.state, want.state) << what;
}

TEST(SsmConv, MatchesNaiveFormula) {
  std::mt19937 rng(1);
  for (int d_conv : {4, 2, 5}) {
    for (int64_t n_tok : {1, 2, 3, 4, 17}) {
      const ConvCase c(37, n_tok, d_conv, rng);
      const ConvRun got = c.one_call();
      std::vector<double> want;
      std::vector<float> want_state;
      naive_conv(c.x, n_tok, c.channels, d_conv, c.w, c.state0, want, want_state);
      for (size_t i = 0; i < got.out.size(); ++i) {
        ASSERT_NEAR(got.out[i], want[i], 1e-5)
            << "d_conv " << d_conv << " n_tok " << n_tok << " i " << i;
      }
      EXPECT_EQ(got.state, want_state) << "d_conv " << d_conv << " n_tok " << n_tok;
    }
  }
}

// A prompt in one call (150 channels = 2 full blocks and a tail, 40 tokens = 2 full token
// blocks and a tail) gives the bits, and the state, of the same tokens one call each.
TEST(SsmConv, PrefillEqualsTokenByTokenBitForBit) {
  std::mt19937 rng(2);
  const ConvCase c(150, 40, 4, rng);
  expect_same_bits(c.token_by_token(), c.one_call(), "token by token");
}

TEST(SsmConv, CurrentTokenIsTheLastTap) {
  // One channel, zero state, w = e_{d_conv-1}: the output is the input itself.
  const float x[3] = {1.5f, -2.0f, 3.0f};
  const float w[4] = {0, 0, 0, 1};
  float state[3] = {0, 0, 0}, out[3];
  ssm_conv(x, 3, 1, 4, w, state, out);
  EXPECT_EQ(out[0], 1.5f);
  EXPECT_EQ(out[1], -2.0f);
  EXPECT_EQ(out[2], 3.0f);
  EXPECT_EQ(state[0], 1.5f);  // oldest first
  EXPECT_EQ(state[2], 3.0f);
}

// Channel ranges, as the cpu backend's threads split them: each range moves only its own rows
// of the state (kernels/ref/delta_net.cpp), so the pieces give the bits of one call.
TEST(SsmConv, ChannelRangesEqualOneCall) {
  std::mt19937 rng(3);
  for (int d_conv : {4, 1, 3}) {
    for (int64_t n_tok : {1, 2, 5}) {
      const ConvCase c(150, n_tok, d_conv, rng);
      ConvRun got{std::vector<float>(n_tok * c.channels), c.state0};
      for (auto [begin, end] : {std::pair<int64_t, int64_t>{0, 1}, {1, 70}, {70, 150}})
        ssm_conv_channels(c.x.data(), n_tok, c.channels, d_conv, c.w.data(), got.state.data(),
                          got.out.data(), begin, end);
      expect_same_bits(got, c.one_call(),
                       "d_conv " + std::to_string(d_conv) + " n_tok " + std::to_string(n_tok));
    }
  }
}

TEST(SsmConv, SplitCallsEqualOneCall) {
  std::mt19937 rng(2);
  const ConvCase c(19, 11, 4, rng);
  const ConvRun one = c.one_call();
  for (int64_t first : {1, 2, 5, 10})  // including pieces shorter than d_conv - 1
    expect_same_bits(c.in_calls({first, c.n_tok - first}), one, "first " + std::to_string(first));
  expect_same_bits(c.token_by_token(), one, "token by token, as decode does");
}

// ---------------------------------------------------------------------------------------------
// gates and norms

TEST(DeltaNetGates, MatchFormulas) {
  const int n_v = 4;
  const float alpha[2 * n_v] = {-3.0f, 0.0f, 1.5f, 25.0f, -30.0f, 19.0f, 21.0f, 0.5f};
  const float b[2 * n_v] = {0.0f, 1.0f, -2.0f, 40.0f, -40.0f, 3.0f, -0.5f, 0.25f};
  const float dt_bias[n_v] = {0.5f, -0.25f, 0.0f, 0.0f};
  const float a[n_v] = {-0.5f, -2.0f, -1.0f, -0.5f};
  float g[2 * n_v], beta[2 * n_v];
  delta_net_gates(alpha, b, dt_bias, a, 2, n_v, g, beta);
  for (int e = 0; e < 2 * n_v; ++e) {
    const double x = double(alpha[e]) + dt_bias[e % n_v];
    const double softplus = x > 20 ? x : std::log1p(std::exp(x));
    EXPECT_NEAR(g[e], softplus * a[e % n_v], 1e-6 * std::fabs(softplus * a[e % n_v]) + 1e-12) << e;
    EXPECT_NEAR(beta[e], 1.0 / (1.0 + std::exp(-double(b[e]))), 1e-7) << e;
    EXPECT_LE(g[e], 0.0f);
  }
  EXPECT_EQ(g[3], -12.5f);  // softplus(25) = 25 exactly (linear branch)
  EXPECT_EQ(beta[0], 0.5f);
}

TEST(L2Norm, MatchesFormula) {
  std::mt19937 rng(3);
  const int64_t n = 128, rows = 5;
  auto x = uniform(n * rows, -3, 3, rng);
  const auto x0 = x;
  l2_norm(x.data(), n, rows, 1e-6f);
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0.0;
    for (int64_t i = 0; i < n; ++i) ss += double(x0[r * n + i]) * x0[r * n + i];
    double out_ss = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_NEAR(x[r * n + i], x0[r * n + i] / std::sqrt(ss), 1e-6);
      out_ss += double(x[r * n + i]) * x[r * n + i];
    }
    EXPECT_NEAR(out_ss, 1.0, 1e-5);
  }
}

TEST(L2Norm, EpsIsAFloorNotAnOffset) {
  float zero[8] = {};
  l2_norm(zero, 8, 1, 1e-6f);
  for (float e : zero) EXPECT_EQ(e, 0.0f);

  // A norm below eps divides by eps; a norm above it is not changed by eps at all.
  float tiny[2] = {3e-7f, 4e-7f};  // norm 5e-7 < eps
  l2_norm(tiny, 2, 1, 1e-6f);
  EXPECT_NEAR(tiny[0], 0.3f, 1e-6f);
  EXPECT_NEAR(tiny[1], 0.4f, 1e-6f);
  float big[2] = {3.0f, 4.0f};
  l2_norm(big, 2, 1, 1e-1f);
  EXPECT_FLOAT_EQ(big[0], 0.6f);
  EXPECT_FLOAT_EQ(big[1], 0.8f);
}

TEST(GatedRmsNorm, MatchesFormula) {
  std::mt19937 rng(4);
  const int64_t n = 128, rows = 3;
  const float eps = 1e-6f;
  const auto x = uniform(n * rows, -3, 3, rng);
  const auto z = uniform(n * rows, -6, 6, rng);
  const auto w = uniform(n, 0.5f, 1.5f, rng);
  std::vector<float> y(n * rows);
  gated_rms_norm(x.data(), z.data(), w.data(), n, rows, eps, y.data());
  std::vector<float> want(n * rows);
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0.0;
    for (int64_t i = 0; i < n; ++i) ss += double(x[r * n + i]) * x[r * n + i];
    const double inv = 1.0 / std::sqrt(ss / n + eps);
    for (int64_t i = 0; i < n; ++i) {
      const double zi = z[r * n + i];
      want[r * n + i] = float(x[r * n + i] * inv * w[i] * zi / (1.0 + std::exp(-zi)));
    }
  }
  EXPECT_LE(rel_rms(y, want), 1e-6);

  // eps sits inside the sqrt: a constant row c with z = w = 1 gives c / sqrt(c² + eps) · silu(1).
  const float xc[2] = {1e-3f, 1e-3f}, ones[2] = {1, 1};
  float yc[2];
  gated_rms_norm(xc, ones, ones, 2, 1, 1e-6f, yc);
  const double silu1 = 1.0 / (1.0 + std::exp(-1.0));
  EXPECT_NEAR(yc[0], 1e-3 / std::sqrt(1e-6 + 1e-6) * silu1, 1e-6);
}

// ---------------------------------------------------------------------------------------------
// gated delta rule

constexpr float kEps = 1e-6f;

struct DeltaNetCase {
  DeltaNetDims dims;
  int64_t n_tok = 0;
  std::vector<float> qkv, g, beta, state0;
};

// Random inputs: q, k, v as after the convolution and silu, beta in (0, 1), g in [g_lo, g_hi],
// a non-zero initial state.
DeltaNetCase make_case(DeltaNetDims dims, int64_t n_tok, float g_lo, float g_hi, uint32_t seed) {
  std::mt19937 rng(seed);
  DeltaNetCase c;
  c.dims = dims;
  c.n_tok = n_tok;
  c.qkv = uniform(n_tok * dims.conv_dim(), -0.3f, 1.5f, rng);
  c.g = uniform(n_tok * dims.n_v, g_lo, g_hi, rng);
  c.beta = uniform(n_tok * dims.n_v, 0.01f, 0.99f, rng);
  c.state0 = uniform(dims.state_floats(), -0.5f, 0.5f, rng);
  return c;
}

struct DeltaNetResult {
  std::vector<float> out, state;
};

template <typename Fn>
DeltaNetResult run(const DeltaNetCase& c, Fn fn) {
  DeltaNetResult r;
  r.out.assign(c.n_tok * c.dims.value_dim(), NAN);
  r.state = c.state0;
  fn(c.dims, c.n_tok, c.qkv.data(), c.g.data(), c.beta.data(), kEps, r.state.data(), r.out.data());
  return r;
}

DeltaNetResult run_recurrent(const DeltaNetCase& c) {
  return run(c, gated_delta_rule_recurrent);
}

DeltaNetResult run_chunked(const DeltaNetCase& c, int chunk) {
  return run(c, [chunk](const DeltaNetDims& d, int64_t n, const float* qkv, const float* g,
                        const float* beta, float eps, float* state, float* out) {
    gated_delta_rule_chunked(d, n, qkv, g, beta, eps, state, out, chunk);
  });
}

// The recurrence written from the math in double, with the matrix M = Sᵀ (d_v × d_k) held as
// m[h][j][i]: M ← e^g M; δ = β(v − M k); M ← M + δ kᵀ; o = M q / sqrt(d_k). Value head h reads
// q/k head h % n_k (tiled).
DeltaNetResult naive_recurrence(const DeltaNetCase& c) {
  const DeltaNetDims& d = c.dims;
  std::vector<double> m(c.state0.begin(), c.state0.end());
  std::vector<double> out(c.n_tok * d.value_dim());
  auto normalized = [&](const float* x) {
    double ss = 0.0;
    for (int i = 0; i < d.d_k; ++i) ss += double(x[i]) * x[i];
    const double div = std::max(std::sqrt(ss), double(kEps));
    std::vector<double> y(d.d_k);
    for (int i = 0; i < d.d_k; ++i) y[i] = x[i] / div;
    return y;
  };
  for (int64_t t = 0; t < c.n_tok; ++t) {
    const float* row = c.qkv.data() + t * d.conv_dim();
    for (int h = 0; h < d.n_v; ++h) {
      const int kh = h % d.n_k;
      const auto q = normalized(row + kh * d.d_k);
      const auto k = normalized(row + d.key_dim() + kh * d.d_k);
      const float* v = row + 2 * d.key_dim() + h * d.d_v;
      const double decay = std::exp(double(c.g[t * d.n_v + h]));
      const double beta = c.beta[t * d.n_v + h];
      double* mh = m.data() + int64_t(h) * d.d_v * d.d_k;
      for (int64_t e = 0; e < int64_t(d.d_v) * d.d_k; ++e) mh[e] *= decay;
      for (int j = 0; j < d.d_v; ++j) {
        double mk = 0.0;
        for (int i = 0; i < d.d_k; ++i) mk += mh[j * d.d_k + i] * k[i];
        const double delta = beta * (v[j] - mk);
        for (int i = 0; i < d.d_k; ++i) mh[j * d.d_k + i] += delta * k[i];
        double mq = 0.0;  // row j is final once updated: o[j] uses the updated state
        for (int i = 0; i < d.d_k; ++i) mq += mh[j * d.d_k + i] * q[i];
        out[(t * d.n_v + h) * d.d_v + j] = mq / std::sqrt(double(d.d_k));
      }
    }
  }
  return {std::vector<float>(out.begin(), out.end()), std::vector<float>(m.begin(), m.end())};
}

const DeltaNetDims kSmall{.n_k = 2, .d_k = 16, .n_v = 4, .d_v = 16};

TEST(GatedDeltaRule, RecurrentMatchesDoublePrecisionMath) {
  for (auto [g_lo, g_hi] : {std::pair{-5.0f, 0.0f}, std::pair{-0.05f, 0.0f}}) {
    const auto c = make_case(kSmall, 13, g_lo, g_hi, 5);
    const auto qkv_before = c.qkv;
    const auto got = run_recurrent(c);
    const auto want = naive_recurrence(c);
    EXPECT_LE(rel_rms(got.out, want.out), 1e-6) << "g in [" << g_lo << ", " << g_hi << "]";
    EXPECT_LE(rel_rms(got.state, want.state), 1e-6) << "g in [" << g_lo << ", " << g_hi << "]";
    EXPECT_EQ(c.qkv, qkv_before);
  }
}

TEST(GatedDeltaRule, RecurrentHandlesUnequalHeadSizes) {
  const DeltaNetDims dims{.n_k = 3, .d_k = 8, .n_v = 6, .d_v = 12};
  const auto c = make_case(dims, 9, -2.0f, 0.0f, 6);
  const auto got = run_recurrent(c);
  const auto want = naive_recurrence(c);
  EXPECT_LE(rel_rms(got.out, want.out), 1e-6);
  EXPECT_LE(rel_rms(got.state, want.state), 1e-6);
}

TEST(GatedDeltaRule, RecurrentFirstTokenFromZeroState) {
  // One head, one token, zero state: S = β k vᵀ, so o = β (k·q) v / sqrt(d_k) with unit q, k.
  const DeltaNetDims dims{.n_k = 1, .d_k = 4, .n_v = 1, .d_v = 2};
  const float qkv[10] = {2, 0, 0, 0, /*k*/ 0.6f, 0.8f, 0, 0, /*v*/ 3, -1};
  const float g = -1.0f, beta = 0.5f;
  float state[8] = {}, out[2];
  gated_delta_rule_recurrent(dims, 1, qkv, &g, &beta, kEps, state, out);
  // q = e_0, k = (0.6, 0.8, 0, 0): o = 0.5 · 0.6 · v / 2.
  EXPECT_FLOAT_EQ(out[0], 0.15f * 3);
  EXPECT_FLOAT_EQ(out[1], -0.15f);
  EXPECT_FLOAT_EQ(state[0 * 4 + 1], 0.5f * 0.8f * 3);   // S[i=1][j=0] at j·d_k + i
  EXPECT_FLOAT_EQ(state[1 * 4 + 0], 0.5f * 0.6f * -1);  // S[i=0][j=1]
}

struct ChunkedParam {
  int chunk;
  int64_t n_tok;
  float g_lo, g_hi;
};

void PrintTo(const ChunkedParam& p, std::ostream* os) {
  *os << "chunk " << p.chunk << ", n_tok " << p.n_tok << ", g in [" << p.g_lo << ", " << p.g_hi
      << "]";
}

class ChunkedDeltaRule : public ::testing::TestWithParam<ChunkedParam> {};

TEST_P(ChunkedDeltaRule, EqualsRecurrent) {
  const ChunkedParam p = GetParam();
  for (const DeltaNetDims& dims : {kSmall, DeltaNetDims{.n_k = 1, .d_k = 8, .n_v = 2, .d_v = 12}}) {
    const auto c = make_case(dims, p.n_tok, p.g_lo, p.g_hi, 7 + uint32_t(p.n_tok));
    const auto want = run_recurrent(c);
    const auto got = run_chunked(c, p.chunk);
    EXPECT_LE(rel_rms(got.out, want.out), 1e-5) << "d_v " << dims.d_v;
    EXPECT_LE(rel_rms(got.state, want.state), 1e-5) << "d_v " << dims.d_v;
  }
}

std::vector<ChunkedParam> chunked_params() {
  std::vector<ChunkedParam> ps;
  const std::pair<float, float> gate_ranges[] = {
      {-5.0f, 0.0f},     // realistic
      {-0.05f, 0.0f},    // almost no decay: the state and T carry information furthest
      {-21.0f, -19.0f},  // strong decay: G reaches −1300 within a chunk of 64
  };
  for (int chunk : {64, 8}) {
    for (int64_t n_tok : {int64_t(1), int64_t(chunk - 1), int64_t(chunk), int64_t(chunk + 1),
                          int64_t(3 * chunk + 5)}) {
      for (auto [lo, hi] : gate_ranges) ps.push_back({chunk, n_tok, lo, hi});
    }
  }
  return ps;
}

INSTANTIATE_TEST_SUITE_P(Shapes, ChunkedDeltaRule, ::testing::ValuesIn(chunked_params()),
                         [](const ::testing::TestParamInfo<ChunkedParam>& param_info) {
                           const ChunkedParam& p = param_info.param;
                           const char* gates = p.g_lo < -10  ? "strong"
                                               : p.g_lo > -1 ? "mild"
                                                             : "realistic";
                           return "chunk" + std::to_string(p.chunk) + "_tok" +
                                  std::to_string(p.n_tok) + "_" + gates;
                         });

TEST(GatedDeltaRule, ChunkOfOneIsTheRecurrence) {
  const auto c = make_case(kSmall, 10, -3.0f, 0.0f, 8);
  const auto want = run_recurrent(c);
  const auto got = run_chunked(c, 1);
  EXPECT_LE(rel_rms(got.out, want.out), 1e-6);
  EXPECT_LE(rel_rms(got.state, want.state), 1e-6);
}

// A prompt processed in two calls, the state carried between them, equals one call.
TEST(GatedDeltaRule, SplitPromptEqualsOneCall) {
  const auto c = make_case(kSmall, 150, -2.0f, 0.0f, 9);
  const int64_t first = 70;  // not a multiple of the chunk: the chunk boundaries move
  const int64_t conv_dim = c.dims.conv_dim(), n_v = c.dims.n_v, value_dim = c.dims.value_dim();

  using Fn = void (*)(const DeltaNetDims&, int64_t, const float*, const float*, const float*, float,
                      float*, float*);
  auto chunked64 = [](const DeltaNetDims& d, int64_t n, const float* qkv, const float* g,
                      const float* beta, float eps, float* state, float* out) {
    gated_delta_rule_chunked(d, n, qkv, g, beta, eps, state, out);
  };
  for (Fn fn : {Fn(gated_delta_rule_recurrent), Fn(chunked64)}) {
    const auto one = run(c, fn);
    std::vector<float> state = c.state0, out(c.n_tok * value_dim);
    fn(c.dims, first, c.qkv.data(), c.g.data(), c.beta.data(), kEps, state.data(), out.data());
    fn(c.dims, c.n_tok - first, c.qkv.data() + first * conv_dim, c.g.data() + first * n_v,
       c.beta.data() + first * n_v, kEps, state.data(), out.data() + first * value_dim);
    if (fn == Fn(gated_delta_rule_recurrent)) {  // token by token either way: bit-identical
      EXPECT_EQ(out, one.out);
      EXPECT_EQ(state, one.state);
    } else {
      EXPECT_LE(rel_rms(out, one.out), 1e-5);
      EXPECT_LE(rel_rms(state, one.state), 1e-5);
    }
  }
}

}  // namespace
}  // namespace kz::ref
