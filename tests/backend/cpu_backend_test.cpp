// Every Backend op of CpuBackend against RefBackend (the oracle) on random inputs of model-like
// shapes, odd sizes included, for each kernel-table level the CPU has: scalar (reference kernels
// only, as with KAZEIA_CPU_FEATURES=scalar), avx2 (KAZEIA_CPU_FEATURES=avx2,fma,f16c) and
// avx512vnni. The levels are built in-process with build_kernel_table() from the CPU's features
// cut down, so one run of this binary covers every path the CPU can take; a level the CPU lacks
// is skipped. Each op is also run with 1 and 2 threads.
#include "backend/cpu_backend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "base/half.h"
#include "kernels/ref/vec_dot.h"
#include "quant/quant.h"
#include "testing/backend_conformance.h"

namespace kz {
namespace {

// Tolerances, as relative RMS over the output (and per element where noted).
// Same f32 operations as the reference, only the double-precision sum of squares is reordered.
constexpr double kSameOpsTol = 1e-6;
// Vector exp within a few ulp of std::exp.
constexpr double kExpTol = 1e-5;
// Dot products over up to 4096 keys / 256 dims summed in lanes with FMA, online softmax.
constexpr double kReorderedSumTol = 2e-5;
// Matmul against the reference dot products on the same rounded activations: f32 block sums in
// another order (tests/kernels/x86_matmul_test.cpp bounds them per element).
constexpr double kMatmulTol = 1e-5;

enum class Level { kScalar, kAvx2, kAvx512Vnni, kNeon, kNeonDotProd };

std::optional<CpuFeatures> features_for(Level level) {
  CpuFeatures f = cpu_features();
  if (level == Level::kScalar) return CpuFeatures{};
  if (level == Level::kNeon || level == Level::kNeonDotProd) {
    if (!f.neon || (level == Level::kNeonDotProd && !f.dotprod)) return std::nullopt;
    CpuFeatures arm;
    arm.neon = true;
    arm.dotprod = level == Level::kNeonDotProd;
    return arm;
  }
  if (!(f.avx2 && f.fma && f.f16c)) return std::nullopt;
  if (level == Level::kAvx2) {
    f.avx512f = f.avx512bw = f.avx512vl = f.avx512vnni = false;
    return f;
  }
  if (!(f.avx512f && f.avx512bw && f.avx512vl && f.avx512vnni)) return std::nullopt;
  return f;
}

using testing::random;

struct Param {
  Level level;
  int threads;
};

class CpuVsRef : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    auto f = features_for(GetParam().level);
    if (!f) GTEST_SKIP() << "CPU lacks this level";
    table_ = build_kernel_table(*f);
    cpu_.emplace(GetParam().threads, &table_);
  }
  KernelTable table_;
  std::optional<CpuBackend> cpu_;
  RefBackend ref_;
};

TEST_P(CpuVsRef, Matmul) {
  for (DType t : {DType::F32, DType::F16, DType::BF16, DType::Q4_0, DType::Q8_0, DType::Q4_K,
                  DType::Q5_K, DType::Q6_K}) {
    for (auto [cols, rows, n_tok] : {std::tuple<int64_t, int64_t, int64_t>{256, 37, 1},
                                     {512, 64, 5},
                                     // 8 rows over a multiple of 16: AVX-512's 16-row packed
                                     // Q4_0 / Q8_0 leave it to the unpacked kernels
                                     {256, 40, 3},
                                     {1024, 133, 9},
                                     {2048, 16, 2}}) {
      SCOPED_TRACE(std::string(dtype_name(t)) + " " + std::to_string(rows) + "x" +
                   std::to_string(cols) + " tokens " + std::to_string(n_tok));
      const uint64_t rb = row_bytes(t, cols);
      std::vector<uint8_t> w(rb * rows);
      for (int64_t r = 0; r < rows; ++r)
        quantize_row(t, random(cols, uint32_t(r + 1)).data(), w.data() + r * rb, cols);
      // With Matrix::derived (as models' weights have) the packed kernels take the matrices
      // whose rows they can group; twice, to use the packed weights made by the first call.
      Matrix m{t, cols, rows, w.data(), rb, "w", nullptr};
      const auto x = random(cols * n_tok, 99, 2.0f);
      std::vector<float> got(rows * n_tok), want(rows * n_tok), packed(rows * n_tok);
      cpu_->matmul(m, x.data(), n_tok, got.data());
      m.derived = std::make_shared<DerivedWeights>();
      cpu_->matmul(m, x.data(), n_tok, packed.data());
      cpu_->matmul(m, x.data(), n_tok, packed.data());
      // The reference dot products on activations rounded the same way.
      const DType at = ref::vec_dot_type(t);
      std::vector<uint8_t> act(row_bytes(at, cols));
      for (int64_t i = 0; i < n_tok; ++i) {
        ref::quantize_activation(at, x.data() + i * cols, act.data(), cols);
        for (int64_t r = 0; r < rows; ++r)
          want[i * rows + r] = ref::vec_dot(t, w.data() + r * rb, act.data(), cols);
      }
      KZ_EXPECT_CLOSE(got, want, kMatmulTol);
      KZ_EXPECT_CLOSE(packed, want, kMatmulTol);
    }
  }
}

TEST_P(CpuVsRef, Norms) {
  testing::expect_norms_match(*cpu_, ref_, kSameOpsTol, kExpTol);
}

TEST_P(CpuVsRef, RopeNeox) {
  testing::expect_rope_matches(*cpu_, ref_, kSameOpsTol);
}

TEST_P(CpuVsRef, Elementwise) {
  testing::expect_elementwise_matches(*cpu_, ref_, kExpTol);
}

TEST_P(CpuVsRef, Attention) {
  for (DType kv_type : {DType::F32, DType::F16}) {
    for (auto [n_ctx_used, n_tok, n_head, n_kv, d] :
         {std::tuple<int64_t, int64_t, int, int, int>{1, 1, 4, 2, 32},
          {37, 1, 16, 8, 128},
          {300, 5, 8, 2, 64},
          {20, 20, 4, 1, 256},
          {9, 3, 6, 3, 36}}) {
      SCOPED_TRACE(std::string(dtype_name(kv_type)) + " ctx " + std::to_string(n_ctx_used));
      const int64_t n_ctx = n_ctx_used, pos0 = n_ctx_used - n_tok;
      const int64_t row = int64_t(n_kv) * d;
      std::vector<uint8_t> k(n_ctx * row * 4), v(n_ctx * row * 4);
      const KvCacheView kv{kv_type, kv_type, k.data(), v.data(), n_ctx, n_kv, d};
      const auto kf = random(n_ctx * row, 11), vf = random(n_ctx * row, 12);
      ref_.kv_store(kv, 0, n_ctx, kf.data(), vf.data());
      const auto q = random(n_tok * n_head * d, 13, 2.0f);
      std::vector<float> got(q.size()), want(q.size());
      cpu_->attention(q.data(), kv, pos0, n_tok, n_head, 1.0f / std::sqrt(float(d)), got.data());
      ref_.attention(q.data(), kv, pos0, n_tok, n_head, 1.0f / std::sqrt(float(d)), want.data());
      KZ_EXPECT_CLOSE(got, want, kReorderedSumTol);
    }
  }
}

// The stored K/V bytes are the reference's for every cache type pair, from a position on, for a
// few rows and for enough to split over the threads; the rows hold NaN, infinities and values
// that round to F16's extremes as well.
TEST_P(CpuVsRef, KvStoreWritesTheReferenceBytes) {
  for (auto [n_ctx, pos0, n_tok, n_kv, d] :
       {std::tuple<int64_t, int64_t, int64_t, int, int>{23, 4, 19, 3, 96}, {310, 5, 300, 4, 128}}) {
    for (DType kt : {DType::F16, DType::F32, DType::Q8_0})
      for (DType vt : {DType::F16, DType::Q8_0}) {
        SCOPED_TRACE(std::string(dtype_name(kt)) + "/" + std::string(dtype_name(vt)) + " tokens " +
                     std::to_string(n_tok));
        const int64_t row = int64_t(n_kv) * d;
        auto kf = random(n_tok * row, 31, 3.0f), vf = random(n_tok * row, 32, 3.0f);
        kf[5] = NAN, kf[17] = INFINITY, kf[40] = -65520.0f, vf[9] = 65519.0f, vf[100] = 3e-8f;
        const uint64_t kb = row_bytes(kt, d) * n_kv * n_ctx, vb = row_bytes(vt, d) * n_kv * n_ctx;
        std::vector<uint8_t> k_got(kb, 0xAB), v_got(vb, 0xAB), k_want(kb, 0xAB), v_want(vb, 0xAB);
        const KvCacheView got{kt, vt, k_got.data(), v_got.data(), n_ctx, n_kv, d};
        const KvCacheView want{kt, vt, k_want.data(), v_want.data(), n_ctx, n_kv, d};
        cpu_->kv_store(got, pos0, n_tok, kf.data(), vf.data());
        ref_.kv_store(want, pos0, n_tok, kf.data(), vf.data());
        EXPECT_EQ(k_got, k_want);
        EXPECT_EQ(v_got, v_want);
      }
  }
}

TEST_P(CpuVsRef, SsmConvAndDeltaNetGates) {
  const int64_t channels = 1031, n_tok = 6;
  const int d_conv = 4;
  const auto x = random(n_tok * channels, 21), w = random(channels * d_conv, 22);
  auto s_got = random(channels * (d_conv - 1), 23), s_want = s_got;
  std::vector<float> got(n_tok * channels), want(got.size());
  cpu_->ssm_conv(x.data(), n_tok, channels, d_conv, w.data(), s_got.data(), got.data());
  ref_.ssm_conv(x.data(), n_tok, channels, d_conv, w.data(), s_want.data(), want.data());
  KZ_EXPECT_CLOSE(got, want, kSameOpsTol);
  KZ_EXPECT_CLOSE(s_got, s_want, kSameOpsTol);
  const int n_v = 5;
  const auto alpha = random(n_tok * n_v, 24), b = random(n_tok * n_v, 25);
  const auto dt_bias = random(n_v, 26), a = random(n_v, 27);
  std::vector<float> g1(n_tok * n_v), b1(g1.size()), g2(g1.size()), b2(g1.size());
  cpu_->delta_net_gates(alpha.data(), b.data(), dt_bias.data(), a.data(), n_tok, n_v, g1.data(),
                        b1.data());
  ref_.delta_net_gates(alpha.data(), b.data(), dt_bias.data(), a.data(), n_tok, n_v, g2.data(),
                       b2.data());
  EXPECT_EQ(g1, g2);
  EXPECT_EQ(b1, b2);
}

TEST_P(CpuVsRef, GatedDeltaRule) {
  for (auto [dims, n_tok] : {std::pair<DeltaNetDims, int64_t>{{2, 32, 4, 32}, 1},
                             {{2, 128, 4, 128}, 1},
                             {{1, 128, 3, 64}, 1},
                             {{2, 32, 4, 32}, 70},
                             {{2, 64, 4, 64}, 9}}) {
    // The chunked form (prefill) differs from the recurrence by its own rounding (its tests in
    // delta_net_test.cpp bound it at 1e-4); decode uses reordered sums only.
    testing::expect_delta_rule_matches(*cpu_, ref_, dims, n_tok,
                                       n_tok > 1 ? 1e-4 : kReorderedSumTol);
  }
}

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  static const char* const kNames[] = {"scalar", "avx2", "avx512vnni", "neon", "neon_dotprod"};
  return std::string(kNames[int(info.param.level)]) + "_" + std::to_string(info.param.threads) +
         "threads";
}

INSTANTIATE_TEST_SUITE_P(Levels, CpuVsRef,
                         ::testing::Values(Param{Level::kScalar, 1}, Param{Level::kScalar, 2},
                                           Param{Level::kAvx2, 1}, Param{Level::kAvx2, 2},
                                           Param{Level::kAvx512Vnni, 2}, Param{Level::kNeon, 2},
                                           Param{Level::kNeonDotProd, 1},
                                           Param{Level::kNeonDotProd, 2}),
                         param_name);

}  // namespace
}  // namespace kz
