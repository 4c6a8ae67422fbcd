#include "sampling/sampler.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"

namespace kz {
namespace {

void validate(const SamplingParams& p, int n_vocab) {
  if (n_vocab <= 0) fail("Sampler: n_vocab must be > 0 (got ", n_vocab, ")");
  if (!(p.temperature >= 0.0f) || !std::isfinite(p.temperature))
    fail("SamplingParams.temperature must be finite and >= 0 (got ", p.temperature, ")");
  if (p.top_k < 0) fail("SamplingParams.top_k must be >= 0 (got ", p.top_k, ")");
  if (!(p.top_p > 0.0f && p.top_p <= 1.0f))
    fail("SamplingParams.top_p must be in (0, 1] (got ", p.top_p, ")");
  if (!(p.min_p >= 0.0f && p.min_p <= 1.0f))
    fail("SamplingParams.min_p must be in [0, 1] (got ", p.min_p, ")");
  if (!(p.repeat_penalty > 0.0f) || !std::isfinite(p.repeat_penalty))
    fail("SamplingParams.repeat_penalty must be finite and > 0 (got ", p.repeat_penalty, ")");
  if (p.repeat_last_n < 0)
    fail("SamplingParams.repeat_last_n must be >= 0 (got ", p.repeat_last_n, ")");
  if (!std::isfinite(p.presence_penalty))
    fail("SamplingParams.presence_penalty must be finite (got ", p.presence_penalty, ")");
}

// Tokens of the repetition window reserved by the constructor (1 MiB).
constexpr size_t kMaxReservedWindow = size_t(1) << 18;

// splitmix64 (Steele, Lea, Flood 2014): tiny, fast, passes BigCrush, identical everywhere.
uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

Sampler::Sampler(const SamplingParams& params, int n_vocab) : params_(params), n_vocab_(n_vocab) {
  validate(params, n_vocab);
  // The window's room up front, so decoding does not allocate, but not a window of billions:
  // a longer one (past any real context) grows as tokens come.
  const size_t reserved = std::min<size_t>(size_t(params.repeat_last_n), kMaxReservedWindow);
  recent_.reserve(reserved);
  distinct_.reserve(reserved);
  cand_.resize(n_vocab);
  weight_.resize(n_vocab);
  reset();
}

void Sampler::reset() {
  recent_.clear();
  recent_head_ = 0;
  rng_state_ = params_.seed;
}

void Sampler::accept(int32_t token) {
  if (token < 0 || token >= n_vocab_)
    fail("Sampler::accept: token ", token, " outside [0, ", n_vocab_, ")");
  const size_t window = params_.repeat_last_n;
  if (window == 0) return;
  if (recent_.size() < window) {
    recent_.push_back(token);  // within the capacity reserved by the constructor, mostly
  } else {
    recent_[recent_head_] = token;
    recent_head_ = (recent_head_ + 1) % window;
  }
}

double Sampler::next_uniform() {
  // The top 53 bits as a double in [0, 1): std::uniform_real_distribution's output is
  // implementation-defined, this is not.
  return static_cast<double>(splitmix64(rng_state_) >> 11) * 0x1.0p-53;
}

// Each distinct token of the window is penalized once, however often it occurs (llama.cpp's
// penalties sampler with frequency_penalty = 0). cand_[i].id == i still holds here.
void Sampler::apply_penalties() {
  const bool repeat = params_.repeat_penalty != 1.0f;
  const bool presence = params_.presence_penalty != 0.0f;
  if (recent_.empty() || (!repeat && !presence)) return;
  distinct_.assign(recent_.begin(), recent_.end());
  std::sort(distinct_.begin(), distinct_.end());
  distinct_.erase(std::unique(distinct_.begin(), distinct_.end()), distinct_.end());
  for (int32_t token : distinct_) {
    float& logit = cand_[token].logit;
    if (repeat)
      logit = logit > 0.0f ? logit / params_.repeat_penalty : logit * params_.repeat_penalty;
    logit -= params_.presence_penalty;
  }
}

size_t Sampler::distribution(std::span<const float> logits) {
  if (logits.size() != static_cast<size_t>(n_vocab_))
    fail("Sampler::sample: got ", logits.size(), " logits, expected n_vocab = ", n_vocab_);
  for (int32_t i = 0; i < n_vocab_; ++i) cand_[i] = {logits[i], i};
  apply_penalties();

  if (params_.temperature == 0.0f) {
    // strict > keeps the lowest index on ties
    size_t best = 0;
    for (size_t i = 1; i < cand_.size(); ++i)
      if (cand_[i].logit > cand_[best].logit) best = i;
    cand_[0] = cand_[best];
    weight_[0] = 1.0;
    return 1;
  }

  // Total order: higher logit first, lower id on ties. Sorting with it gives one answer on every
  // standard library, which keeps seeded draws reproducible across platforms.
  auto better = [](const Candidate& a, const Candidate& b) {
    return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
  };
  // The kept candidates are always cand_[0, n), either in id order or sorted by better().
  size_t n = cand_.size();
  bool sorted = false;
  if (params_.top_k > 0 && static_cast<size_t>(params_.top_k) < n) {
    n = params_.top_k;
    std::nth_element(cand_.begin(), cand_.begin() + (n - 1), cand_.end(), better);
    std::sort(cand_.begin(), cand_.begin() + n, better);
    sorted = true;
  }

  float max_logit = cand_[0].logit;
  for (size_t i = 1; i < n; ++i) max_logit = std::max(max_logit, cand_[i].logit);
  if (max_logit == -INFINITY) fail("Sampler::sample: every logit is -inf");

  // llama.cpp filters on probabilities at temperature 1 and applies temperature last. Top-p and
  // min-p each keep a prefix of the sorted candidates, so top-p-then-min-p keeps the shorter
  // prefix; running min-p first (O(n), order-preserving) means only its survivors get sorted.
  double z = 0.0;  // softmax normalizer of the top-k set, which top-p is measured against
  if (params_.top_p < 1.0f)
    for (size_t i = 0; i < n; ++i) z += std::exp(double(cand_[i].logit) - max_logit);
  if (params_.min_p > 0.0f) {
    const float threshold = max_logit + std::log(params_.min_p);
    size_t kept = 0;
    for (size_t i = 0; i < n; ++i)
      if (cand_[i].logit >= threshold) cand_[kept++] = cand_[i];
    n = kept;
  }
  if (params_.top_p < 1.0f) {
    if (!sorted) std::sort(cand_.begin(), cand_.begin() + n, better);
    double cumulative = 0.0;
    for (size_t i = 0; i < n; ++i) {
      cumulative += std::exp(double(cand_[i].logit) - max_logit) / z;
      if (cumulative >= params_.top_p) {
        n = i + 1;
        break;
      }
    }
  }

  const double inv_temp = 1.0 / params_.temperature;
  for (size_t i = 0; i < n; ++i)
    weight_[i] = std::exp((double(cand_[i].logit) - max_logit) * inv_temp);
  return n;
}

int32_t Sampler::draw(size_t n, double total) {
  const double target = next_uniform() * total;
  double cumulative = 0.0;
  for (size_t i = 0; i < n; ++i) {
    cumulative += weight_[i];
    if (target < cumulative) return cand_[i].id;
  }
  // Rounding can leave target == total; the last candidate with any weight takes it.
  for (size_t i = n; i-- > 0;)
    if (weight_[i] > 0.0) return cand_[i].id;
  return cand_[0].id;
}

int32_t Sampler::sample(std::span<const float> logits) {
  const size_t n = distribution(logits);
  if (params_.temperature == 0.0f) return cand_[0].id;
  double total = 0.0;
  for (size_t i = 0; i < n; ++i) total += weight_[i];
  return draw(n, total);
}

int32_t Sampler::sample_against(std::span<const float> logits, int32_t draft) {
  const size_t n = distribution(logits);
  if (params_.temperature == 0.0f) return cand_[0].id;
  double total = 0.0, draft_weight = 0.0;
  for (size_t i = 0; i < n; ++i) {
    total += weight_[i];
    if (cand_[i].id == draft) draft_weight = weight_[i];
  }
  if (next_uniform() * total < draft_weight) return draft;
  // Rejected: the residual max(p - q, 0) of a one-hot q is p without the draft.
  for (size_t i = 0; i < n; ++i)
    if (cand_[i].id == draft) weight_[i] = 0.0;
  return draw(n, total - draft_weight);
}

}  // namespace kz
