#include "runtime/oracle.h"

#include <algorithm>
#include <random>

#include "backend/ref_backend.h"
#include "base/error.h"
#include "base/progress.h"
#include "kernels/ref/ops.h"

namespace kz {
namespace {

// Bisect compares whole runs, so an op's output differs from ref's by its own error plus what the
// ops before it passed on, which on these random models grows with depth (fixtures/README.md).
// The yardstick is ref's own drift: the same run with the activations of every matrix product
// rounded as the reference implementation rounds them, whose distance from ref grows the same
// way. The drift of one op is noisy (a delta-rule gate has 4 outputs a token), so the yardstick
// is the largest drift of the run so far. An op diverges when the device is further from ref
// than kRoundingDrift times that plus kOwnError times the op's own tolerance.
constexpr double kRoundingDrift = 2.0;
constexpr double kOwnError = 4.0;

void check_options(const OracleOptions& o) {
  constexpr int kMaxTokens = 1 << 20;
  if (o.prompt_tokens < 2 || o.prompt_tokens > kMaxTokens)
    fail("oracle: the prompt needs at least 2 tokens (and at most ", kMaxTokens, "), got ",
         o.prompt_tokens);
  if (o.decode_steps < 0 || o.decode_steps > kMaxTokens)
    fail("oracle: invalid number of decode steps ", o.decode_steps);
}

int32_t argmax(const std::vector<float>& logits) {
  return int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

// Runs the prompt as one batch, then `steps` tokens one at a time: the given ones, or greedy on
// the logits when `continuation` is shorter. Returns every token evaluated after the prompt.
// This is run `run` (from 0) of `runs`, for o.progress, which counts tokens.
std::vector<int32_t> run_tokens(const Model& model, Backend& be, const OracleOptions& o,
                                const std::vector<int32_t>& prompt,
                                std::vector<int32_t> continuation, int run = 0, int runs = 1) {
  const double tokens = o.prompt_tokens + o.decode_steps;
  auto progress = [&](int done) {
    if (o.progress) o.progress->update((run * tokens + done) / (runs * tokens));
  };
  SequenceState st = model.new_state(o.prompt_tokens + o.decode_steps, o.k_type, o.v_type);
  Scratch scratch;
  std::vector<float> logits;
  progress(0);
  model.eval(be, st, scratch, prompt, false, logits);
  for (int i = 0; i < o.decode_steps; ++i) {
    progress(o.prompt_tokens + i);
    if (size_t(i) == continuation.size()) continuation.push_back(argmax(logits));
    model.eval(be, st, scratch, std::span(&continuation[i], 1), false, logits);
  }
  progress(o.prompt_tokens + o.decode_steps);
  return continuation;
}

// ref with the activations of every matrix product rounded as the reference implementation's
// CPU backend rounds them (the fixtures' ref.json semantics).
class RoundedRefBackend final : public RefBackend {
 public:
  void matmul(const Matrix& w, const float* x, int64_t n_tok, float* y) override {
    ref::matmul_rounded_act(w, x, n_tok, y);
  }
};

struct RecordedOp {
  OpShape shape;
  int64_t layer;
  std::vector<float> output;  // kept by a recording run
  OpError error;              // a comparing run's distance from the recorded output
};

// Runs another backend and keeps each op's output, or, given a recorded run, only each op's
// distance from it (so that bisect holds one run's activations, not three).
class Recorder final : public InterceptingBackend {
 public:
  Recorder(Backend& inner, const std::vector<RecordedOp>* recorded = nullptr)
      : InterceptingBackend({&inner}), inner_(inner), recorded_(recorded) {}
  std::string_view name() const override { return inner_.name(); }
  const std::vector<RecordedOp>& ops() const { return ops_; }

 protected:
  void dispatch(OpCall& call) override {
    run_synced(call, inner_);
    std::vector<float> out = region_floats(call.written[0]);
    if (!recorded_) return ops_.push_back({call.shape, layer(), std::move(out), {}});
    const size_t i = ops_.size();
    if (i >= recorded_->size() || (*recorded_)[i].shape != call.shape ||
        (*recorded_)[i].output.size() != out.size())
      fail("bisect: op #", i, " (", call.shape.to_string(), ") on ", inner_.name(),
           " is not the op ref ran there; the two runs cannot be compared");
    ops_.push_back({call.shape, layer(), {}, op_error(out, (*recorded_)[i].output)});
  }

 private:
  Backend& inner_;
  const std::vector<RecordedOp>* recorded_;
  std::vector<RecordedOp> ops_;
};

}  // namespace

bool OracleReport::pass() const {
  return std::all_of(rows.begin(), rows.end(), [](const OracleRow& r) { return r.check.pass(); });
}

OpFilter OracleReport::failing_filter() const {
  OpFilter f;
  for (const OracleRow& r : rows)
    if (!r.check.pass()) f.add(OpFilterEntry::of(r.shape));
  return f;
}

std::vector<int32_t> oracle_prompt(const Model& model, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int32_t> id(0, int32_t(model.info().n_vocab - 1));
  std::vector<int32_t> out(n);
  for (int32_t& t : out) t = id(rng);
  return out;
}

OracleReport run_oracle(const Model& model, Backend& device, const OracleOptions& o) {
  check_options(o);
  CheckingBackend checking(device);
  run_tokens(model, checking, o, oracle_prompt(model, o.prompt_tokens, o.seed), {});
  if (o.progress) o.progress->clear();  // before the caller prints
  OracleReport report;
  for (const auto& [shape, check] : checking.results()) report.rows.push_back({shape, check});
  return report;
}

BisectReport bisect(const Model& model, Backend& device, const OracleOptions& o) {
  check_options(o);
  const std::vector<int32_t> prompt = oracle_prompt(model, o.prompt_tokens, o.seed);
  RefBackend ref;
  RoundedRefBackend rounded;
  Recorder on_ref(ref);
  const std::vector<int32_t> continuation = run_tokens(model, on_ref, o, prompt, {}, 0, 3);
  Recorder on_rounded(rounded, &on_ref.ops()), on_device(device, &on_ref.ops());
  run_tokens(model, on_rounded, o, prompt, continuation, 1, 3);
  run_tokens(model, on_device, o, prompt, continuation, 2, 3);
  if (o.progress) o.progress->clear();

  BisectReport report;
  double drift = 0;
  for (size_t i = 0; i < on_device.ops().size(); ++i) {
    const RecordedOp& got = on_device.ops()[i];
    drift = std::max(drift, on_rounded.ops()[i].error.rel_rms);
    BisectStep step{int64_t(i), got.layer, got.shape, got.error,
                    kOwnError * op_tolerance(got.shape).rel_rms + kRoundingDrift * drift};
    report.ops = int64_t(i) + 1;
    report.worst_rel_rms = std::max(report.worst_rel_rms, step.error.rel_rms);
    report.worst_ratio = std::max(report.worst_ratio, step.error.rel_rms / step.bound);
    if (step.error.rel_rms > step.bound) {
      report.first = step;
      return report;
    }
    report.before_first = step;
  }
  report.before_first.reset();
  return report;
}

}  // namespace kz
