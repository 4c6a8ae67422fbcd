// Speculative decoding: a few tokens drafted cheaply, then verified by the model in one batch
// (the weights read once for all of them), accepted by a rule that keeps the output exactly the
// model's own (docs/architecture.md, "Speculative decoding").
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/sequence.h"
#include "sampling/sampler.h"

namespace kz {

enum class DraftSource {
  None,
  Ngram,   // prompt lookup: what followed an earlier occurrence of the last few tokens
  Mtp,     // the model's multi-token-prediction layer (Qwen3.5's NextN)
  Replay,  // a given continuation (benchmarks: the cost of verification at full acceptance)
};

struct SpeculativeParams {
  DraftSource source = DraftSource::None;
  int max_draft = 4;            // drafted tokens per verification, 1..kMaxDraft
  std::vector<int32_t> replay;  // Replay: the continuation proposed, from the first new token
};

constexpr int kMaxDraft = 16;

// "none", "ngram", "mtp" or "replay"; otherwise throws naming `what` (e.g. "--spec").
DraftSource parse_draft_source(std::string_view name, std::string_view what);
std::string_view draft_source_name(DraftSource source);
// Throws naming `what` unless 1 <= max_draft <= kMaxDraft.
void check_max_draft(int max_draft, std::string_view what);

// Prompt lookup over `history` followed by `next` (passed apart, so a decode step copies nothing):
// the (up to max_tokens) tokens that followed the most recent earlier occurrence of its last
// kNgramMax tokens, else of its last kNgramMin; none if neither occurs.
std::vector<int32_t> ngram_draft(std::span<const int32_t> history, int32_t next, int max_tokens);
constexpr int kNgramMax = 3, kNgramMin = 2;

// What verify_drafts() decided: the drafts accepted, in order, then the model's own next token.
struct Verified {
  std::vector<int32_t> tokens;
  int accepted = 0;  // tokens.size() - 1
};

// Evaluates `next` (produced, not yet evaluated) and the drafts after it in one batch
// (Sequence::verify) and accepts drafts in order while the sampler agrees: greedy, while each is
// the arg-max; sampling, by Sampler::sample_against. The sampler records the accepted drafts,
// not the returned next token. The sequence then holds next and all drafts: the caller keeps
// what it uses with Sequence::keep_verified. `hidden`: the batch's hidden rows (Model::eval).
Verified verify_drafts(Sequence& seq, Backend& backend, Scratch& scratch, Sampler& sampler,
                       int32_t next, std::span<const int32_t> drafts, std::vector<float>& logits,
                       std::vector<float>* hidden = nullptr);

// Counts for benchmarks and results.
struct SpeculativeStats {
  int64_t passes = 0;    // verification batches
  int64_t drafted = 0;   // tokens proposed
  int64_t accepted = 0;  // of which accepted
};

}  // namespace kz
