// Reads the fixtures' reference logits (../shared/fixtures/models/NAME.ref*.json) and compares
// logits vectors with the fixtures' tolerances: relative RMS <= 0.005 and identical arg-max.
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "testing/metrics.h"

namespace kz::testing {

inline std::string fixtures_dir() {
  return KAZEIA_FIXTURES_DIR;
}
inline std::string model_path(const std::string& name) {
  return fixtures_dir() + "/models/" + name + ".gguf";
}

struct ReferenceCase {
  std::string name;
  std::vector<int32_t> prompt, continuation;
  std::vector<float> prefill_logits_last;
  std::vector<std::vector<float>> continuation_logits;
};

inline std::vector<ReferenceCase> load_reference(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  const nlohmann::json j = nlohmann::json::parse(in);
  std::vector<ReferenceCase> cases;
  for (const auto& c : j.at("cases")) {
    ReferenceCase rc;
    rc.name = c.at("name").get<std::string>();
    rc.prompt = c.at("prompt").get<std::vector<int32_t>>();
    rc.continuation = c.at("continuation").get<std::vector<int32_t>>();
    rc.prefill_logits_last = c.at("prefill_logits_last").get<std::vector<float>>();
    rc.continuation_logits = c.at("continuation_logits").get<std::vector<std::vector<float>>>();
    cases.push_back(std::move(rc));
  }
  return cases;
}

struct LogitsError {
  double rel_rms = 0;
  bool same_argmax = false;
};

inline LogitsError compare_logits(const float* ours, const std::vector<float>& ref) {
  const auto ours_max = std::max_element(ours, ours + ref.size()) - ours;
  const auto ref_max = std::max_element(ref.begin(), ref.end()) - ref.begin();
  return {rel_rms(ours, ref), ours_max == ref_max};
}

constexpr double kMaxRelRms = 0.005;  // fixtures README: float paths and reference-rounding paths

// A GoogleTest parameter name from free text ("qwen35-tiny-f32" -> "qwen35_tiny_f32").
inline std::string test_name(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

}  // namespace kz::testing
