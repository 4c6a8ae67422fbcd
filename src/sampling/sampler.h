// Token sampling: repetition/presence penalties, top-k, top-p, min-p, temperature and a seeded
// draw, in llama.cpp's default chain order. The same seed and logits give the same tokens on
// every platform (own PRNG, own uniform float, deterministic candidate order).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace kz {

struct SamplingParams {
  float temperature = 0.8f;       // 0 = greedy (argmax of the penalized logits)
  int top_k = 40;                 // 0 = off
  float top_p = 0.95f;            // 1 = off; must be in (0, 1]
  float min_p = 0.05f;            // 0 = off; relative to the most likely token
  float repeat_penalty = 1.0f;    // 1 = off; logit > 0 ? logit / p : logit * p
  int repeat_last_n = 64;         // window of accepted tokens the penalties look at; 0 = off
  float presence_penalty = 0.0f;  // subtracted once from each distinct token in the window
  uint64_t seed = 0;
};

class Sampler {
 public:
  // Throws kz::Error naming the first invalid parameter.
  Sampler(const SamplingParams& params, int n_vocab);

  // logits: [n_vocab]. Does not record the token; call accept() with what is kept.
  int32_t sample(std::span<const float> logits);
  // Speculative sampling against a token drafted with certainty (n-gram and greedy MTP drafts
  // are one-hot): returns `draft` with its probability p(draft) under the distribution sample()
  // draws from, else a draw from that distribution with the draft removed. The result is
  // distributed exactly as sample(logits) (Leviathan et al. 2023, Chen et al. 2023); greedy
  // returns the arg-max, as sample() does.
  int32_t sample_against(std::span<const float> logits, int32_t draft);
  // Records a token (prompt or generated) in the penalty window.
  void accept(int32_t token);
  // Empties the penalty window and restarts the RNG from the seed.
  void reset();

  const SamplingParams& params() const { return params_; }

 private:
  struct Candidate {
    float logit;
    int32_t id;
  };

  void apply_penalties();
  // The candidates sample() draws from: cand_[0, n) with weights weight_[0, n); returns n.
  // Greedy (temperature 0): the arg-max alone.
  size_t distribution(std::span<const float> logits);
  // A draw from the weights of cand_[0, n) whose sum is `total`.
  int32_t draw(size_t n, double total);
  double next_uniform();  // [0, 1)

  SamplingParams params_;
  int n_vocab_;
  uint64_t rng_state_ = 0;
  std::vector<int32_t> recent_;    // ring of the last repeat_last_n accepted tokens
  size_t recent_head_ = 0;         // next slot to overwrite once the ring is full
  std::vector<int32_t> distinct_;  // scratch: distinct tokens of the window [<= repeat_last_n]
  std::vector<Candidate> cand_;    // scratch: [n_vocab]
  std::vector<double> weight_;     // scratch: [n_vocab] unnormalized probabilities of the draw
};

}  // namespace kz
