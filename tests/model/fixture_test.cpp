// Every fixture model, on both CPU backends, against the reference implementation's logits:
// the prompt as one batch (prefill), then the continuation one token at a time (decode).
//
// `ref` computes in f32 and must match ref-f32act.json (ref.json for F32 models) within the
// fixtures' tight tolerance. `cpu` rounds activations to 8-bit blocks like the reference, but
// sums in its own f32 order; on these random models a last-bit difference can flip a rounding
// and is amplified (fixtures/README.md), so against quantized models it is checked as the README
// asks: against the exact result (ref-f32act.json) with the reference's own distance from it as
// the yardstick. `cpu_reference_order` (the cpu kernels that keep the reference's x86 summation
// order: no packed weights, no ARM i8mm) must moreover sit much closer to ref.json than the
// exact result does; the production kernels sum whole blocks in integers first (e.g.
// x86/matmul_packed_avx2.cpp), another sample of the same rounding, which on these models can
// drift as far as 0.66 of the reference's own distance (qwen3-small-q8_0).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "backend/cpu_backend.h"
#include "backend/factory.h"
#include "kernels/kernel_table.h"
#include "model/model.h"
#include "testing/fixture_checks.h"

namespace kz {
namespace {

// Over all vectors of a model: median |cpu - reference| <= kCloserFactor * median
// |reference - exact|, i.e. we round like the reference rather than computing in float.
// Measured: 0.0-0.35 of the reference's own distance.
constexpr double kCloserFactor = 0.5;

struct FixtureParam {
  std::string model;
  std::string backend;
};

// The cpu kernels in the reference's summation order: the packed x86 forms and ARM's i8mm
// kernels left out.
const KernelTable& reference_order_table() {
  static const KernelTable table = [] {
    CpuFeatures f = cpu_features();
    f.i8mm = false;
    KernelTable t = build_kernel_table(f);
    for (MatmulKernel& k : t.matmul) k.packed = {};
    return t;
  }();
  return table;
}

std::unique_ptr<Backend> backend_named(const std::string& name) {
  if (name == "cpu_reference_order")
    return std::make_unique<CpuBackend>(2, &reference_order_table());
  return make_backend(name, 2);
}

class FixtureModel : public ::testing::TestWithParam<FixtureParam> {};

TEST_P(FixtureModel, MatchesReferenceLogits) {
  const FixtureParam& p = GetParam();
  auto backend = backend_named(p.backend);
  if (p.backend == "ref" || testing::is_f32_model(p.model)) {
    testing::expect_tight_match(p.model, *backend);
    return;
  }
  auto [ours_to_rounded, rounded_to_exact] =
      testing::expect_rounded_like_reference(p.model, *backend);
  auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  if (p.backend == "cpu_reference_order") {
    EXPECT_LE(median(ours_to_rounded), kCloserFactor * median(rounded_to_exact));
  }
}

std::vector<FixtureParam> all_params() {
  std::vector<FixtureParam> params;
  for (const char* m : {"qwen3-tiny-f32", "qwen3-tiny-q8_0", "qwen3-small-q8_0",
                        "qwen3-small-q4_k_m", "qwen35-tiny-f32", "qwen35-tiny-q4_0",
                        "qwen35-small-q8_0", "qwen35-small-q4_0", "qwen35-small-q4_k_m"})
    for (const char* b : {"ref", "cpu", "cpu_reference_order"}) params.push_back({m, b});
  return params;
}

INSTANTIATE_TEST_SUITE_P(All, FixtureModel, ::testing::ValuesIn(all_params()),
                         [](const auto& info) {
                           return testing::test_name(info.param.model + "_" + info.param.backend);
                         });

}  // namespace
}  // namespace kz
