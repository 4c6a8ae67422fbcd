#include "model/model.h"

#include <algorithm>

#include "base/error.h"
#include "base/hash.h"
#include "model/qwen3.h"
#include "model/qwen35.h"

namespace kz {

namespace {

uint64_t fingerprint_of(const gguf::File& f) {
  const auto bytes = f.bytes();
  uint64_t h = fnv1a(bytes.data(), std::min<uint64_t>(f.data_offset(), bytes.size()));
  for (const auto& t : f.tensors()) h = fnv1a(t.data, std::min<uint64_t>(t.nbytes, 64), h);
  return h;
}

}  // namespace

Model::Model(gguf::File file) : file_(std::move(file)), fingerprint_(fingerprint_of(file_)) {}

std::unique_ptr<Model> Model::load(const std::string& path) {
  gguf::File file = gguf::File::open(path);
  const std::string arch = file.get_string("general.architecture");
  if (arch == "qwen3") return load_qwen3(std::move(file));
  if (arch == "qwen35") return load_qwen35(std::move(file));
  fail(path, ": unsupported architecture '", arch, "' (supported: qwen3, qwen35)");
}

template <class Pass>
void Model::run_batches(Backend& backend, SequenceState& state, std::span<const int32_t> tokens,
                        bool all_logits, std::vector<float>* logits, std::vector<float>* hidden,
                        std::span<Checkpoint> snapshots, Pass&& pass) const {
  if (tokens.empty()) fail("eval: no tokens to evaluate");
  const int64_t end = state.n_past + int64_t(tokens.size());
  if (end > state.n_ctx)
    fail("context overflow: ", state.n_past, " tokens in context + ", tokens.size(),
         " new > context size ", state.n_ctx);
  for (size_t k = 0; k < snapshots.size(); ++k) {
    const int64_t p = snapshots[k].n_past, prev = k ? snapshots[k - 1].n_past : state.n_past;
    if (p <= prev || p > end)
      fail("eval: snapshot position ", p, " not in (", prev, ", ", end, "]");
    if (snapshots[k].recur.bytes() != state.recur.bytes())
      fail("eval: a snapshot of ", snapshots[k].recur.bytes(), " bytes of recurrent state, not ",
           state.recur.bytes());
  }
  for (int32_t t : tokens)
    if (t < 0 || t >= info_.n_vocab) fail("token id ", t, " out of range [0, ", info_.n_vocab, ")");
  if (logits) logits->resize((all_logits ? tokens.size() : 1) * info_.n_vocab);
  if (hidden) hidden->resize(tokens.size() * info_.n_embd);
  size_t next_snapshot = 0;
  for (size_t i = 0; i < tokens.size(); i += kMaxBatch) {
    const size_t n = std::min<size_t>(kMaxBatch, tokens.size() - i);
    const bool last = i + n == tokens.size();
    // Only the batch holding the last token produces logits unless all are wanted.
    ForwardOutputs out;
    out.all_logits = all_logits;
    if (logits && (all_logits || last))
      out.logits = logits->data() + (all_logits ? i * info_.n_vocab : 0);
    if (hidden) out.hidden = hidden->data() + i * info_.n_embd;
    size_t in_batch = 0;
    while (next_snapshot + in_batch < snapshots.size() &&
           snapshots[next_snapshot + in_batch].n_past <= state.n_past + int64_t(n))
      ++in_batch;
    out.snapshots = snapshots.subspan(next_snapshot, in_batch);
    next_snapshot += in_batch;
    Backend& be = backend.for_batch(int64_t(n));
    be.begin_batch(int64_t(n));
    // The end of a batch, or an error in it: the state is the host's again, for whichever device
    // is next (or a reset, a checkpoint restored).
    run_and_sync(be, [&] { pass(be, i, tokens.subspan(i, n), out); });
    state.n_past += n;
  }
}

void Model::eval(Backend& backend, SequenceState& state, Scratch& scratch,
                 std::span<const int32_t> tokens, bool all_logits, std::vector<float>& logits,
                 std::vector<float>* hidden, std::span<Checkpoint> snapshots) const {
  run_batches(backend, state, tokens, all_logits, &logits, hidden, snapshots,
              [&](Backend& be, size_t, std::span<const int32_t> batch, const ForwardOutputs& out) {
                forward(be, state, scratch, batch, out);
              });
}

void Model::advance(Backend& backend, SequenceState& state, Scratch& scratch,
                    std::span<const int32_t> tokens) const {
  run_batches(backend, state, tokens, false, nullptr, nullptr, {},
              [&](Backend& be, size_t, std::span<const int32_t> batch, const ForwardOutputs& out) {
                forward(be, state, scratch, batch, out);
              });
}

SequenceState Model::new_mtp_state(int64_t, DType, DType) const {
  fail(file_.path(), ": the model has no multi-token-prediction (MTP) layer");
}

void Model::mtp_forward(Backend&, SequenceState&, Scratch&, std::span<const int32_t>, const float*,
                        const ForwardOutputs&) const {
  fail(file_.path(), ": the model has no multi-token-prediction (MTP) layer");
}

void Model::mtp_eval(Backend& backend, SequenceState& state, Scratch& scratch,
                     std::span<const int32_t> tokens, std::span<const float> hidden,
                     bool all_logits, std::vector<float>& logits,
                     std::vector<float>* mtp_hidden) const {
  if (!has_mtp()) fail(file_.path(), ": the model has no multi-token-prediction (MTP) layer");
  if (hidden.size() != tokens.size() * info_.n_embd)
    fail("mtp_eval: ", hidden.size(), " hidden values for ", tokens.size(), " tokens of ",
         info_.n_embd);
  run_batches(
      backend, state, tokens, all_logits, &logits, mtp_hidden, {},
      [&](Backend& be, size_t first, std::span<const int32_t> batch, const ForwardOutputs& out) {
        mtp_forward(be, state, scratch, batch, hidden.data() + first * info_.n_embd, out);
      });
}

}  // namespace kz
