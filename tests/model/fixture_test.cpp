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
#include "testing/reference_logits.h"

namespace kz {
namespace {

using testing::compare_logits;
using testing::kMaxRelRms;
using testing::ReferenceCase;

// Per vector: |cpu - exact| <= kRoundingFactor * |reference - exact| + kMaxRelRms. The reference
// is one sample of "8-bit activations, some f32 order"; we are another, so we should land at a
// comparable distance from the exact result. Measured worst ratio on the fixtures: 1.18. A wrong
// head mapping or an off-by-one moves logits by 0.5-1.0 (README), far past this bound.
constexpr double kRoundingFactor = 1.5;
// Over all vectors of a model: median |cpu - reference| <= kCloserFactor * median
// |reference - exact|, i.e. we round like the reference rather than computing in float.
// Measured: 0.0-0.35 of the reference's own distance.
constexpr double kCloserFactor = 0.5;
// Arg-max: ours must be the exact result's top token, or a near tie of it: a token whose exact
// logit is within kTieFactor x (the reference's largest logit shift from the exact result) of
// the top. Such ties flip under any 8-bit rounding; the reference's own arg-max flips too.
constexpr double kTieFactor = 2.0;

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(double(a[i]) - b[i]));
  return m;
}

struct FixtureParam {
  std::string model;
  std::string backend;
};

bool is_f32_model(const std::string& m) {
  return m.find("-f32") != std::string::npos;
}

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

std::vector<ReferenceCase> reference(const std::string& model, const char* suffix) {
  return testing::load_reference(testing::fixtures_dir() + "/models/" + model + suffix);
}

// Runs every case and calls check(ours, case index, vector index) for each logits vector
// (vector 0 is the prefill, vector i > 0 the (i-1)-th continuation step).
template <class Check>
void run_cases(const std::string& model_name, const std::string& backend_name,
               const std::vector<ReferenceCase>& cases, Check check) {
  auto model = Model::load(testing::model_path(model_name));
  auto backend = backend_named(backend_name);
  for (size_t c = 0; c < cases.size(); ++c) {
    const ReferenceCase& rc = cases[c];
    SequenceState state =
        model->new_state(rc.prompt.size() + rc.continuation.size(), DType::F32, DType::F32);
    Scratch scratch;
    std::vector<float> logits;
    model->eval(*backend, state, scratch, rc.prompt, false, logits);
    check(logits.data(), c, 0);
    for (size_t i = 0; i < rc.continuation.size(); ++i) {
      model->eval(*backend, state, scratch, std::span(&rc.continuation[i], 1), false, logits);
      check(logits.data(), c, i + 1);
    }
  }
}

const std::vector<float>& vec(const ReferenceCase& c, size_t i) {
  return i == 0 ? c.prefill_logits_last : c.continuation_logits[i - 1];
}

class FixtureModel : public ::testing::TestWithParam<FixtureParam> {};

TEST_P(FixtureModel, MatchesReferenceLogits) {
  const FixtureParam& p = GetParam();
  const bool tight = p.backend == "ref" || is_f32_model(p.model);
  if (tight) {
    const auto cases = reference(p.model, is_f32_model(p.model) ? ".ref.json" : ".ref-f32act.json");
    run_cases(p.model, p.backend, cases, [&](const float* ours, size_t c, size_t i) {
      const auto err = compare_logits(ours, vec(cases[c], i));
      EXPECT_LE(err.rel_rms, kMaxRelRms) << cases[c].name << " vector " << i;
      EXPECT_TRUE(err.same_argmax) << cases[c].name << " vector " << i;
    });
    return;
  }
  const auto rounded = reference(p.model, ".ref.json");
  const auto exact = reference(p.model, ".ref-f32act.json");
  std::vector<double> ours_to_rounded, rounded_to_exact;
  run_cases(p.model, p.backend, rounded, [&](const float* ours, size_t c, size_t i) {
    const auto& r = vec(rounded[c], i);
    const auto& e = vec(exact[c], i);
    const auto to_exact = compare_logits(ours, e);
    const auto to_rounded = compare_logits(ours, r);
    const auto reference_to_exact = compare_logits(r.data(), e);
    EXPECT_LE(to_exact.rel_rms, kRoundingFactor * reference_to_exact.rel_rms + kMaxRelRms)
        << rounded[c].name << " vector " << i;
    const size_t ours_top = std::max_element(ours, ours + e.size()) - ours;
    const double exact_top = *std::max_element(e.begin(), e.end());
    EXPECT_GE(e[ours_top], exact_top - kTieFactor * max_abs_diff(r, e))
        << rounded[c].name << " vector " << i << ": arg-max " << ours_top
        << " is not the exact top token nor a near tie of it";
    ours_to_rounded.push_back(to_rounded.rel_rms);
    rounded_to_exact.push_back(reference_to_exact.rel_rms);
  });
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
