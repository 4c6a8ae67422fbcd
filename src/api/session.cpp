// Session: one conversation's state and the generation loop. The app may pass the whole history
// every call; the session's Sequence keeps what it computed, so only new tokens are prefilled.
#include <algorithm>
#include <atomic>

#include "api/context_fit.h"
#include "api/engine.h"
#include "api/stop_strings.h"
#include "base/atomic_file.h"
#include "base/error.h"
#include "base/read_file.h"
#include "base/thread_pool.h"
#include "base/timer.h"
#include "model/model.h"
#include "runtime/devices.h"
#include "runtime/mtp_drafter.h"
#include "runtime/sequence.h"
#include "runtime/speculative.h"
#include "runtime/state_image.h"
#include "runtime/warm_up.h"
#include "text/detokenizer.h"
#include "text/tokenizer.h"

namespace kz {
namespace {

DeviceOptions device_options(const SessionParams& p) {
  DeviceOptions o;
  o.device = p.backend;
  o.prefill_device = p.prefill_device;
  o.decode_device = p.decode_device;
  o.prefill_min_tokens = p.prefill_min_tokens;
  o.device_layers = p.device_layers;
  o.repack = p.repack;
  o.op_filter = p.op_filter;
  o.cache_dir = p.cache_dir;
  o.n_threads = resolve_thread_count(p.n_threads, "thread count");
  o.k_type = parse_kv_cache_type(p.k_type, "K cache type");
  o.v_type = parse_kv_cache_type(p.v_type, "V cache type");
  return o;
}

}  // namespace

class SessionImpl {
 public:
  SessionImpl(std::shared_ptr<const Engine> engine, const SessionParams& p)
      : engine_(std::move(engine)),
        devices_(engine_->model(), device_options(p)),
        k_type_(parse_kv_cache_type(p.k_type, "K cache type")),
        v_type_(parse_kv_cache_type(p.v_type, "V cache type")),
        seq_(engine_->model(), p.n_ctx, k_type_, v_type_,
             CheckpointPolicy{p.checkpoint_interval, p.checkpoint_budget_bytes}),
        overflow_(p.context_overflow) {}

  GenerateResult generate(std::span<const int32_t> prompt, std::span<const int64_t> boundaries,
                          const GenerateParams& params, ReplyParser& reply,
                          const TokenCallback& on_text);
  // Up to `room` drafts to follow `next` from the chosen source (none: plain decoding).
  std::vector<int32_t> propose(const SpeculativeParams& spec, int32_t next, int64_t generated,
                               int room);
  // The MTP drafter, made on first use; null unless the source is MTP.
  MtpDrafter* mtp_drafter(const SpeculativeParams& spec);

  std::shared_ptr<const Engine> engine_;
  Devices devices_;
  DType k_type_, v_type_;
  Sequence seq_;
  Scratch scratch_;
  std::vector<float> logits_, hidden_;
  std::unique_ptr<MtpDrafter> mtp_;
  std::atomic<bool> cancel_{false};
  ContextOverflow overflow_;
};

MtpDrafter* SessionImpl::mtp_drafter(const SpeculativeParams& spec) {
  if (spec.source != DraftSource::Mtp) return nullptr;
  if (!mtp_) mtp_ = std::make_unique<MtpDrafter>(engine_->model(), seq_.n_ctx(), k_type_, v_type_);
  return mtp_.get();
}

std::vector<int32_t> SessionImpl::propose(const SpeculativeParams& spec, int32_t next,
                                          int64_t generated, int room) {
  if (room <= 0) return {};
  switch (spec.source) {
    case DraftSource::None:
      return {};
    case DraftSource::Ngram:
      return ngram_draft(seq_.tokens(), next, room);
    case DraftSource::Mtp:
      return mtp_->draft(devices_.backend(), scratch_, next, room);
    case DraftSource::Replay: {
      const int64_t from = std::min<int64_t>(generated, spec.replay.size());
      const int64_t n = std::min<int64_t>(room, int64_t(spec.replay.size()) - from);
      return {spec.replay.begin() + from, spec.replay.begin() + from + n};
    }
  }
  return {};
}

GenerateResult SessionImpl::generate(std::span<const int32_t> prompt,
                                     std::span<const int64_t> boundaries,
                                     const GenerateParams& params, ReplyParser& reply,
                                     const TokenCallback& on_text) {
  const Model& model = engine_->model();
  const Tokenizer& tok = engine_->tokenizer();
  if (prompt.empty()) fail("the prompt is empty");
  if (params.max_tokens < 0) fail("invalid max_tokens ", params.max_tokens);
  for (int32_t t : prompt)
    if (t < 0 || t >= model.info().n_vocab) fail("token id ", t, " out of range");
  if (int64_t(prompt.size()) >= seq_.n_ctx()) fail_context_overflow(prompt.size(), seq_.n_ctx());
  const SpeculativeParams& spec = params.speculative;
  if (spec.source != DraftSource::None) check_max_draft(spec.max_draft, "speculative max_draft");
  Sampler sampler(params.sampling, int(model.info().n_vocab));
  StopStringFilter stops(params.stop);
  Backend& backend = devices_.backend();
  MtpDrafter* mtp = mtp_drafter(spec);
  std::vector<float>* hidden = mtp ? &hidden_ : nullptr;  // the MTP layer reads the trunk's

  Timer timer;
  GenerateResult res;
  res.prompt_tokens = int64_t(prompt.size());
  if (!params.reuse_prefix) seq_.reset();
  res.cached_tokens = seq_.resume(prompt);
  res.prefill_tokens = res.prompt_tokens - res.cached_tokens;
  if (mtp) mtp->rewind(res.cached_tokens);
  // Also checkpoint one token before the end of the prompt, so a call with the same history
  // (a regenerated answer) recomputes only the last token.
  std::vector<int64_t> marks(boundaries.begin(), boundaries.end());
  marks.push_back(res.prompt_tokens - 1);
  seq_.append(backend, scratch_, prompt.subspan(res.cached_tokens), marks, logits_, hidden);
  if (mtp) mtp->observe(backend, scratch_, seq_.tokens(), hidden_);
  seq_.checkpoint();  // the end of the prompt: where the next turn's history diverges
  res.prefill_s = timer.seconds();
  const size_t window = std::max(0, params.sampling.repeat_last_n);
  for (size_t i = prompt.size() > window ? prompt.size() - window : 0; i < prompt.size(); ++i)
    sampler.accept(prompt[i]);

  Detokenizer detok(tok);
  Timer decode_timer;
  bool listening = bool(on_text);  // until the callback asks to stop
  auto show = [&](const std::string& shown) {
    if (listening && !shown.empty()) listening = on_text(shown);
    return listening || !on_text;
  };
  auto emit = [&](const std::string& text) {
    if (text.empty()) return true;
    res.text += text;
    return show(reply.push(text));  // the parser holds back tool-call markup
  };
  // Takes a produced token; false when generation ends with it (res.stop says why).
  auto take = [&](int32_t token) {
    if (res.tokens.empty()) res.ttft_s = timer.seconds();
    res.tokens.push_back(token);
    if (!params.ignore_eos && tok.is_end_of_generation(token)) {
      res.stop = StopReason::EndOfTurn;
      return false;
    }
    if (!emit(stops.push(detok.push(token)))) {
      res.stop = StopReason::Cancelled;
      return false;
    }
    if (stops.stopped()) {
      res.stop = StopReason::StopString;
      return false;
    }
    return int64_t(res.tokens.size()) < params.max_tokens;
  };
  res.stop = StopReason::MaxTokens;
  int32_t next = -1;  // produced but not evaluated yet; -1: to be sampled from logits_
  while (int64_t(res.tokens.size()) < params.max_tokens) {
    if (cancel_.load()) {
      res.stop = StopReason::Cancelled;
      break;
    }
    if (next < 0) {
      next = sampler.sample(logits_);
      sampler.accept(next);
    }
    if (!take(next)) break;
    if (seq_.n_past() + 1 > seq_.n_ctx()) {
      res.stop = StopReason::ContextFull;
      break;
    }
    // Drafts beyond what max_tokens or the context allow would only be thrown away.
    const int room =
        int(std::min<int64_t>({spec.max_draft, params.max_tokens - int64_t(res.tokens.size()) - 1,
                               seq_.n_ctx() - seq_.n_past() - 1}));
    const std::vector<int32_t> drafts = propose(spec, next, int64_t(res.tokens.size()), room);
    if (drafts.empty()) {
      seq_.append(backend, scratch_, std::span(&next, 1), {}, logits_, hidden);
      if (mtp) mtp->observe(backend, scratch_, seq_.tokens(), hidden_);
      next = -1;
      continue;
    }
    const Verified v =
        verify_drafts(seq_, backend, scratch_, sampler, next, drafts, logits_, hidden);
    res.speculative.passes += 1;
    res.speculative.drafted += int64_t(drafts.size());
    res.speculative.accepted += v.accepted;
    int64_t kept = 1;  // `next`, then the accepted drafts taken
    bool going = true;
    for (int i = 0; i < v.accepted && going; ++i) {
      going = take(v.tokens[i]);
      if (going) ++kept;
    }
    // A draft that ended generation is not evaluated, as a plain last token is not.
    seq_.keep_verified(backend, scratch_, kept);
    if (mtp)
      mtp->observe(backend, scratch_, seq_.tokens(),
                   std::span(hidden_).first(kept * model.info().n_embd));
    if (!going) break;
    next = v.tokens.back();
    sampler.accept(next);
  }
  if (res.stop != StopReason::StopString && res.stop != StopReason::Cancelled)
    emit(stops.push(detok.flush()) + stops.flush());
  show(reply.finish());
  ParsedReply parsed = reply.reply();
  res.content = std::move(parsed.content);
  res.reasoning = std::move(parsed.reasoning);
  res.tool_calls = std::move(parsed.tool_calls);
  res.tool_call_malformed = parsed.tool_call_malformed;
  seq_.checkpoint();  // the end of the answer
  res.decode_s = decode_timer.seconds();
  cancel_.store(false);  // a cancel is consumed by the call it stopped (or the next one)
  return res;
}

Session::Session(std::shared_ptr<const Engine> engine, const SessionParams& params)
    : impl_(std::make_unique<SessionImpl>(std::move(engine), params)) {}

Session::~Session() = default;

GenerateResult Session::generate(std::span<const ChatMessage> messages,
                                 const GenerateParams& params, const TokenCallback& on_text) {
  const Engine& engine = *impl_->engine_;
  const FittedPrompt fitted =
      fit_to_context(engine, messages, params, impl_->seq_.n_ctx(), impl_->overflow_);
  const std::vector<int32_t>& prompt = fitted.tokens;
  // Every message starts with <|im_start|>: checkpoint there, where histories branch.
  std::vector<int64_t> boundaries;
  const int32_t im_start = engine.tokenizer().find_token("<|im_start|>");
  for (size_t i = 0; i < prompt.size(); ++i)
    if (prompt[i] == im_start) boundaries.push_back(int64_t(i));
  // Qwen3.5's generation prompt with thinking on ends inside <think>: the reply starts there.
  const bool thinking_open = engine.chat_format() == ChatFormat::Qwen35 &&
                             params.add_generation_prompt && params.enable_thinking;
  ReplyParser reply(engine.chat_format(), thinking_open, !params.tools.empty());
  GenerateResult res = impl_->generate(prompt, boundaries, params, reply, on_text);
  res.dropped_messages = fitted.dropped_messages;
  // A conversation goes on: the answer is out, so the next turn's buffers are made now, off its
  // time to first token (generate_tokens, one-shot, leaves this).
  impl_->seq_.prepare_checkpoint_buffers();
  return res;
}

GenerateResult Session::generate_tokens(std::span<const int32_t> prompt,
                                        const GenerateParams& params,
                                        const TokenCallback& on_text) {
  ReplyParser reply(ChatFormat::ChatML, false, false);  // no template: only <think> is read
  return impl_->generate(prompt, {}, params, reply, on_text);
}

void Session::warm_up(const std::function<void(int64_t done, int64_t total)>& on_layer) {
  SessionImpl& s = *impl_;
  kz::warm_up(s.engine_->model(), s.devices_.backend(), s.k_type_, s.v_type_, on_layer);
}

void Session::cancel() {
  impl_->cancel_.store(true);
}

void Session::reset() {
  impl_->seq_.reset();
  if (impl_->mtp_) impl_->mtp_->rewind(0);
}

std::vector<uint8_t> Session::save_state() const {
  return save_state_image(impl_->engine_->model(), impl_->seq_.state(), impl_->seq_.tokens(),
                          impl_->seq_.checkpoints());
}

void Session::load_state(std::span<const uint8_t> image) {
  RestoredState r = load_state_image(impl_->engine_->model(), image, impl_->seq_.n_ctx());
  impl_->seq_.replace(std::move(r.state), std::move(r.tokens), std::move(r.checkpoints));
  // The image holds no MTP rows: the next call rebuilds them (runtime/mtp_drafter.h).
  if (impl_->mtp_) impl_->mtp_->rewind(0);
}

void Session::save_state_file(const std::string& path) const {
  const auto image = save_state();
  write_file_atomically(path,
                        std::string_view(reinterpret_cast<const char*>(image.data()), image.size()),
                        "state file");
}

void Session::load_state_file(const std::string& path) {
  const std::string bytes = read_file(path, "state file");
  try {
    load_state(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  } catch (const Error& e) {
    fail(path, ": ", e.what());
  }
}

const std::vector<int32_t>& Session::tokens() const {
  return impl_->seq_.tokens();
}

std::string Session::devices() const {
  return impl_->devices_.describe();
}

uint64_t Session::checkpoint_bytes() const {
  return impl_->seq_.checkpoint_bytes();
}

}  // namespace kz
