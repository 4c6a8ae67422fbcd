// The fixtures' checks of a backend's logits (../shared/fixtures/README.md), shared by the CPU
// backends' fixture test (tests/model/fixture_test.cpp) and the devices' (tests/ggml): the prompt
// as one batch, then the continuation one token at a time, every logits vector checked.
//
// `tight`: a computation in float against ref-f32act.json (ref.json for F32 models): relative
// RMS <= kMaxRelRms and the same arg-max. Otherwise a path that rounds activations (8-bit blocks,
// F16) is one more sample of that rounding: per vector, its distance to the exact result may be
// kRoundingFactor times the reference's own plus kMaxRelRms, and its arg-max must be the exact
// top token or a near tie of it.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "model/model.h"
#include "testing/reference_logits.h"

namespace kz::testing {

// Measured worst ratio on the fixtures for the CPU's 8-bit path: 1.18. A wrong head mapping or an
// off-by-one moves logits by 0.5-1.0 (README), far past this bound.
constexpr double kRoundingFactor = 1.5;
// A token whose exact logit is within kTieFactor x (the reference's largest logit shift from the
// exact result) of the top is a near tie: such ties flip under any rounding.
constexpr double kTieFactor = 2.0;

inline bool is_f32_model(const std::string& m) {
  return m.find("-f32") != std::string::npos;
}

inline std::vector<ReferenceCase> reference(const std::string& model, const char* suffix) {
  return load_reference(fixtures_dir() + "/models/" + model + suffix);
}

inline const std::vector<float>& logits_vector(const ReferenceCase& c, size_t i) {
  return i == 0 ? c.prefill_logits_last : c.continuation_logits[i - 1];
}

// Runs every case on `be` (F32 K/V caches) and calls check(ours, case index, vector index) for each
// logits vector (vector 0 is the prefill, vector i > 0 the (i-1)-th continuation step).
template <class Check>
void run_cases(const std::string& model_name, Backend& be, const std::vector<ReferenceCase>& cases,
               Check check) {
  auto model = Model::load(model_path(model_name));
  for (size_t c = 0; c < cases.size(); ++c) {
    const ReferenceCase& rc = cases[c];
    SequenceState state =
        model->new_state(rc.prompt.size() + rc.continuation.size(), DType::F32, DType::F32);
    Scratch scratch;
    std::vector<float> logits;
    model->eval(be, state, scratch, rc.prompt, false, logits);
    check(logits.data(), c, 0);
    for (size_t i = 0; i < rc.continuation.size(); ++i) {
      model->eval(be, state, scratch, std::span(&rc.continuation[i], 1), false, logits);
      check(logits.data(), c, i + 1);
    }
  }
}

inline double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(double(a[i]) - b[i]));
  return m;
}

inline void expect_tight_match(const std::string& model, Backend& be) {
  const auto cases = reference(model, is_f32_model(model) ? ".ref.json" : ".ref-f32act.json");
  run_cases(model, be, cases, [&](const float* ours, size_t c, size_t i) {
    const auto err = compare_logits(ours, logits_vector(cases[c], i));
    EXPECT_LE(err.rel_rms, kMaxRelRms) << cases[c].name << " vector " << i;
    EXPECT_TRUE(err.same_argmax) << cases[c].name << " vector " << i;
  });
}

// The rounded check; returns, per vector, the distances (ours to ref.json, ref.json to exact).
inline std::pair<std::vector<double>, std::vector<double>> expect_rounded_like_reference(
    const std::string& model, Backend& be) {
  const auto rounded = reference(model, ".ref.json");
  const auto exact = reference(model, ".ref-f32act.json");
  std::vector<double> ours_to_rounded, rounded_to_exact;
  run_cases(model, be, rounded, [&](const float* ours, size_t c, size_t i) {
    const auto& r = logits_vector(rounded[c], i);
    const auto& e = logits_vector(exact[c], i);
    const auto to_exact = compare_logits(ours, e);
    const auto reference_to_exact = compare_logits(r.data(), e);
    EXPECT_LE(to_exact.rel_rms, kRoundingFactor * reference_to_exact.rel_rms + kMaxRelRms)
        << rounded[c].name << " vector " << i;
    const size_t ours_top = std::max_element(ours, ours + e.size()) - ours;
    const double exact_top = *std::max_element(e.begin(), e.end());
    EXPECT_GE(e[ours_top], exact_top - kTieFactor * max_abs_diff(r, e))
        << rounded[c].name << " vector " << i << ": arg-max " << ours_top
        << " is not the exact top token nor a near tie of it";
    ours_to_rounded.push_back(compare_logits(ours, r).rel_rms);
    rounded_to_exact.push_back(reference_to_exact.rel_rms);
  });
  return {ours_to_rounded, rounded_to_exact};
}

// Step by step, `got` (e.g. a device's prompt then the CPU's decode) chooses the greedy token
// `want` (the CPU alone) chooses, or a near tie of it: a top-2 gap below kTieFactor x the
// reference's own largest logit shift (ref.json against ref-f32act.json at that step, `rounded`
// and `exact`), which rounding may flip. Returns the steps that chose another token.
inline int expect_same_choices_or_near_ties(const std::vector<std::vector<float>>& got,
                                            const std::vector<std::vector<float>>& want,
                                            const ReferenceCase& rounded,
                                            const ReferenceCase& exact) {
  int flips = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const auto& w = want[i];
    const size_t top = std::max_element(w.begin(), w.end()) - w.begin();
    const size_t ours = std::max_element(got[i].begin(), got[i].end()) - got[i].begin();
    if (ours == top) continue;
    ++flips;
    EXPECT_LE(w[top] - w[ours],
              kTieFactor * max_abs_diff(logits_vector(rounded, i), logits_vector(exact, i)))
        << "step " << i << ": not a near tie";
  }
  return flips;
}

}  // namespace kz::testing
