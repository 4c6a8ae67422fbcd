// The oracle: runs a model's prompt and a few decode steps through the checking backend and
// reports, per op shape and phase, the worst error of the device under test against `ref`
// (backend/checking_backend.h); and bisect, which runs the model on the device and on `ref`
// separately from the same tokens and names the first op whose output diverges.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "backend/checking_backend.h"
#include "backend/op_filter.h"
#include "model/model.h"

namespace kz {

class Progress;

// Part of the key of `auto` filter caches: bump it when the tolerances, the prompt or the op
// shapes change, so that no verdict of an older oracle is reused.
constexpr int kOracleVersion = 1;

struct OracleOptions {
  int prompt_tokens = 16;  // one prompt batch of this many tokens (at least 2)...
  int decode_steps = 2;    // ...then this many single tokens (greedy on the device's logits)
  DType k_type = DType::F16, v_type = DType::F16;
  uint64_t seed = 1;  // of the prompt's pseudo-random token ids
  // Advanced from 0 to 1 as the tokens are evaluated, and erased before run_oracle and bisect
  // return (may be null): a Progress of total 1.
  Progress* progress = nullptr;
};

struct OracleRow {
  OpShape shape;
  OpCheck check;
};

struct OracleReport {
  std::vector<OracleRow> rows;  // in op-shape order
  bool pass() const;
  // The failing shapes, each as an exact filter entry.
  OpFilter failing_filter() const;
};

// Throws kz::Error on bad options (fewer than 2 prompt tokens, a context the model cannot take).
OracleReport run_oracle(const Model& model, Backend& device, const OracleOptions& options);

struct BisectStep {
  int64_t index = 0;  // op number in the run, from 0
  int64_t layer = -1;
  OpShape shape;
  OpError error;
  double bound = 0;  // the divergence bound it was held to
};

struct BisectReport {
  int64_t ops = 0;                            // ops compared
  std::optional<BisectStep> first;            // the first op beyond its bound, if any
  std::optional<BisectStep> before_first;     // the op just before it, for context
  double worst_rel_rms = 0, worst_ratio = 0;  // over the ops compared: error, error / bound
};

BisectReport bisect(const Model& model, Backend& device, const OracleOptions& options);

// The oracle's prompt: `n` pseudo-random token ids of the model's vocabulary.
std::vector<int32_t> oracle_prompt(const Model& model, int n, uint64_t seed);

}  // namespace kz
