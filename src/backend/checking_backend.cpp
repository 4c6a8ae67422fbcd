#include "backend/checking_backend.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kz {
namespace {

std::vector<uint8_t> copy_bytes(const WrittenRegion& r) {
  const auto* p = static_cast<const uint8_t*>(r.data);
  return {p, p + r.bytes()};
}

void restore(const WrittenRegion& r, const std::vector<uint8_t>& bytes) {
  std::memcpy(r.data, bytes.data(), bytes.size());
}

// Rows of `got` whose arg-max is not the reference's, unless the two are a near tie: the
// reference's logits for both within `margin` of each other.
int64_t argmax_mismatches(const std::vector<float>& got, const std::vector<float>& want,
                          int64_t rows, double margin) {
  const int64_t n = int64_t(want.size()) / rows;
  int64_t bad = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* g = got.data() + r * n;
    const float* w = want.data() + r * n;
    const int64_t ig = std::max_element(g, g + n) - g, iw = std::max_element(w, w + n) - w;
    if (ig != iw && double(w[iw]) - w[ig] > margin) ++bad;
  }
  return bad;
}

// The LM head's matrix product (the tied embedding included).
bool is_lm_head(const OpCall& call) {
  return call.shape.kind == "matmul" &&
         (call.weight == "output.weight" || call.weight == "token_embd.weight");
}

double rms(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += double(x) * x;
  return v.empty() ? 0 : std::sqrt(s / double(v.size()));
}

}  // namespace

OpError op_error(const std::vector<float>& got, const std::vector<float>& want) {
  double num = 0, den = 0, max_abs = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double d = double(got[i]) - want[i];
    num += d * d;
    den += double(want[i]) * want[i];
    max_abs = std::max(max_abs, std::abs(d));
  }
  // NaN or infinity anywhere is the worst error there is.
  if (!std::isfinite(num)) return {INFINITY, INFINITY};
  return {den > 0 ? std::sqrt(num / den) : std::sqrt(num), max_abs};
}

CheckingBackend::CheckingBackend(Backend& device)
    : InterceptingBackend({&device}), device_(device) {}

void CheckingBackend::dispatch(OpCall& call) {
  if (!device_.supports(call)) {  // it would run on the CPU: nothing of the device's to check
    OpCheck& check = results_[call.shape];
    check.refused = true;
    ++check.count;
    run_synced(call, ref_);
    return;
  }
  std::vector<std::vector<uint8_t>> before, on_device;
  for (const WrittenRegion& r : call.written) before.push_back(copy_bytes(r));
  run_synced(call, device_);
  for (const WrittenRegion& r : call.written) on_device.push_back(copy_bytes(r));
  std::vector<std::vector<float>> got;
  for (const WrittenRegion& r : call.written) got.push_back(region_floats(r));

  for (size_t i = 0; i < call.written.size(); ++i) restore(call.written[i], before[i]);
  run_synced(call, ref_);

  OpCheck& check = results_[call.shape];
  check.tolerance = device_.tolerance(call.shape);
  ++check.count;
  for (size_t i = 0; i < call.written.size(); ++i) {
    const std::vector<float> want = region_floats(call.written[i]);
    double bound = check.tolerance.rel_rms;
    if (i == 0 && check.tolerance.rounding_factor > 0 && call.rounded_reference) {
      std::vector<float> rounded(want.size());
      call.rounded_reference(rounded.data());
      bound += check.tolerance.rounding_factor * op_error(rounded, want).rel_rms;
    }
    const OpError e = op_error(got[i], want);
    const double ratio = e.rel_rms / bound;
    if (ratio >= check.worst_ratio) {
      check.worst_ratio = ratio;
      check.bound = bound;
      check.worst_layer = layer();
    }
    check.worst_rel_rms = std::max(check.worst_rel_rms, e.rel_rms);
    check.worst_max_abs = std::max(check.worst_max_abs, e.max_abs);
    if (i == 0 && is_lm_head(call)) {
      check.argmax_rows += call.output_rows;
      check.argmax_mismatches +=
          argmax_mismatches(got[0], want, call.output_rows, bound * rms(want));
    }
    restore(call.written[i], on_device[i]);
  }
}

}  // namespace kz
