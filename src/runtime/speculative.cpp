#include "runtime/speculative.h"

#include <algorithm>

#include "base/error.h"

namespace kz {

DraftSource parse_draft_source(std::string_view name, std::string_view what) {
  for (DraftSource s :
       {DraftSource::None, DraftSource::Ngram, DraftSource::Mtp, DraftSource::Replay})
    if (name == draft_source_name(s)) return s;
  fail(what, ": unknown draft source '", name, "' (none, ngram, mtp, replay)");
}

std::string_view draft_source_name(DraftSource source) {
  switch (source) {
    case DraftSource::None:
      return "none";
    case DraftSource::Ngram:
      return "ngram";
    case DraftSource::Mtp:
      return "mtp";
    case DraftSource::Replay:
      return "replay";
  }
  return "?";
}

void check_max_draft(int max_draft, std::string_view what) {
  if (max_draft < 1 || max_draft > kMaxDraft)
    fail(what, ": drafted tokens per step must be 1..", kMaxDraft, ", got ", max_draft);
}

std::vector<int32_t> ngram_draft(std::span<const int32_t> history, int32_t next, int max_tokens) {
  const int64_t len = int64_t(history.size()) + 1;
  auto at = [&](int64_t i) { return i < len - 1 ? history[i] : next; };
  for (int n = kNgramMax; n >= kNgramMin; --n) {
    if (len <= n) continue;
    // The most recent earlier occurrence: its continuation is the likeliest to repeat.
    for (int64_t start = len - n - 1; start >= 0; --start) {
      int matched = 0;
      while (matched < n && at(start + matched) == at(len - n + matched)) ++matched;
      if (matched < n) continue;
      std::vector<int32_t> drafts;
      for (int64_t i = start + n; i < len && int64_t(drafts.size()) < max_tokens; ++i)
        drafts.push_back(at(i));
      return drafts;
    }
  }
  return {};
}

Verified verify_drafts(Sequence& seq, Backend& backend, Scratch& scratch, Sampler& sampler,
                       int32_t next, std::span<const int32_t> drafts, std::vector<float>& logits,
                       std::vector<float>* hidden) {
  std::vector<int32_t> batch{next};
  batch.insert(batch.end(), drafts.begin(), drafts.end());
  seq.verify(backend, scratch, batch, logits, hidden);
  const size_t n_vocab = logits.size() / batch.size();
  Verified v;
  for (size_t row = 0; row < batch.size(); ++row) {
    const std::span<const float> row_logits(logits.data() + row * n_vocab, n_vocab);
    // Past the last draft, the model's own token: a plain draw.
    const int32_t token = row < drafts.size() ? sampler.sample_against(row_logits, drafts[row])
                                              : sampler.sample(row_logits);
    v.tokens.push_back(token);
    if (row == drafts.size() || token != drafts[row]) break;
    sampler.accept(token);
    ++v.accepted;
  }
  return v;
}

}  // namespace kz
