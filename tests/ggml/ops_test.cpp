// Every op through each ggml device (ggml_device.h: ggml's CPU and, here, Vulkan on Mesa's
// lavapipe) against RefBackend, the oracle, on random inputs of model shapes and edge sizes:
// tails, one token, GQA ratios, every weight and cache type the devices take. Each op runs as
// its own graph (the test reads the results at once, so the backend syncs).
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "backend/ref_backend.h"
#include "ggml_device.h"
#include "testing/backend_conformance.h"

namespace kz {
namespace {

// Tolerances (relative RMS over the output), from the devices' own arithmetic; `ref` keeps f32
// activations throughout. ggml's CPU quantizes a product's activations to 8 bits for quantized
// weights and rounds them to F16 for F16 weights, and its flash attention rounds the query to
// F16 (F16 caches) or Q8_0 (Q8_0 caches); ggml-vulkan rounds activations through F16 in every
// product. Measured worst cases over these shapes (tests run with the bounds lowered):
// CPU attention with Q8_0 caches 9.3e-3; Vulkan products with F32 weights 3e-4, F16 1.0e-2,
// quantized 1.1e-2. The other bounds are the ones the tests have passed at, not measured
// worst cases.
struct Tolerances {
  double matmul_f32, matmul_f16, matmul_quant, norm, transcendental, attention, attention_q8_0,
      delta_rule;
};
Tolerances tolerances(const std::string& device) {
  if (device.rfind("Vulkan", 0) == 0) return {1e-3, 2e-2, 2e-2, 1e-5, 1e-5, 1e-2, 2e-2, 1e-4};
  return {1e-5, 3e-3, 1e-2, 1e-5, 1e-5, 6e-3, 1.5e-2, 1e-4};
}

class GgmlVsRef : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { testing::open_ggml(be_, GetParam()); }
  std::unique_ptr<GgmlBackend> be_;
  RefBackend ref_;
  Tolerances tol_ = tolerances(GetParam());
};

constexpr DType kMatrixTypes[] = {DType::F32,  DType::F16,  DType::Q4_0, DType::Q8_0,
                                  DType::Q4_K, DType::Q5_K, DType::Q6_K};

TEST_P(GgmlVsRef, Matmul) {
  testing::expect_matmul_matches(
      *be_, ref_, kMatrixTypes,
      [&](DType t) {
        return t == DType::F32   ? tol_.matmul_f32
               : t == DType::F16 ? tol_.matmul_f16
                                 : tol_.matmul_quant;
      },
      [&] { be_->forget_weights(); });
}

TEST_P(GgmlVsRef, GetRowsIsExact) {
  testing::expect_get_rows_exact(*be_, ref_, kMatrixTypes, [&] { be_->forget_weights(); });
}

TEST_P(GgmlVsRef, Norms) {
  testing::expect_norms_match(*be_, ref_, tol_.norm, tol_.transcendental,
                              [&] { be_->forget_weights(); });
}

TEST_P(GgmlVsRef, RmsNormInPlace) {
  testing::expect_rms_norm_in_place_matches(*be_, ref_, tol_.norm);
}

TEST_P(GgmlVsRef, RopeNeox) {
  testing::expect_rope_matches(*be_, ref_, tol_.transcendental);
}

TEST_P(GgmlVsRef, Elementwise) {
  testing::expect_elementwise_matches(*be_, ref_, tol_.transcendental);
}

TEST_P(GgmlVsRef, SplitAndJoinHalvesAreExact) {
  testing::expect_split_halves_exact(*be_, ref_);
}

// The F32 / F16 bytes are the reference's, Q8_0 rows within one rounding step of a block's scale.
// The caches are not the model's shared memory: sync() waits for the copies.
TEST_P(GgmlVsRef, KvStore) {
  testing::expect_kv_store_matches(*be_, ref_, 1e-3, [&] { be_->sync(); });
}

TEST_P(GgmlVsRef, Attention) {
  testing::expect_attention_matches(
      *be_, ref_, [&](DType t) { return t == DType::Q8_0 ? tol_.attention_q8_0 : tol_.attention; });
}

TEST_P(GgmlVsRef, SsmConv) {
  testing::expect_ssm_conv_matches(*be_, ref_, 1e-6, [&] { be_->forget_weights(); });
}

TEST_P(GgmlVsRef, DeltaNetGates) {
  testing::expect_delta_net_gates_match(*be_, ref_, tol_.transcendental,
                                        [&] { be_->forget_weights(); });
}

TEST_P(GgmlVsRef, GatedDeltaRule) {
  for (auto [dims, n_tok] : {std::pair<DeltaNetDims, int64_t>{{2, 32, 4, 32}, 1},
                             {{2, 128, 4, 128}, 1},
                             {{2, 32, 4, 32}, 70},
                             {{16, 128, 16, 128}, 5},
                             {{2, 64, 4, 64}, 9},
                             {{2, 128, 4, 128}, 64},
                             {{3, 64, 3, 64}, 6}}) {  // the bundled models' prompt
    testing::expect_delta_rule_matches(*be_, ref_, dims, n_tok, tol_.delta_rule);
  }
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GgmlVsRef);
INSTANTIATE_TEST_SUITE_P(Devices, GgmlVsRef, ::testing::ValuesIn(testing::ggml_device_names()),
                         testing::device_test_name);

}  // namespace
}  // namespace kz
