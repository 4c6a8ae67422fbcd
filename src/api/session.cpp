// Session: one conversation's state and the generation loop. The app may pass the whole history
// every call; the session's Sequence keeps what it computed, so only new tokens are prefilled.
#include <algorithm>
#include <atomic>
#include <fstream>
#include <sstream>

#include "api/engine.h"
#include "api/stop_strings.h"
#include "base/atomic_file.h"
#include "base/error.h"
#include "base/thread_pool.h"
#include "base/timer.h"
#include "model/model.h"
#include "runtime/devices.h"
#include "runtime/sequence.h"
#include "runtime/state_image.h"
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
        seq_(engine_->model(), p.n_ctx, parse_kv_cache_type(p.k_type, "K cache type"),
             parse_kv_cache_type(p.v_type, "V cache type"),
             CheckpointPolicy{p.checkpoint_interval, p.checkpoint_budget_bytes}) {}

  GenerateResult generate(std::span<const int32_t> prompt, std::span<const int64_t> boundaries,
                          const GenerateParams& params, ReplyParser& reply,
                          const TokenCallback& on_text);

  std::shared_ptr<const Engine> engine_;
  Devices devices_;
  Sequence seq_;
  Scratch scratch_;
  std::vector<float> logits_;
  std::atomic<bool> cancel_{false};
};

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
  if (int64_t(prompt.size()) >= seq_.n_ctx())
    fail("context overflow: the prompt is ", prompt.size(), " tokens, the context holds ",
         seq_.n_ctx());
  Sampler sampler(params.sampling, int(model.info().n_vocab));
  StopStringFilter stops(params.stop);

  Timer timer;
  GenerateResult res;
  res.prompt_tokens = int64_t(prompt.size());
  if (!params.reuse_prefix) seq_.reset();
  res.cached_tokens = seq_.resume(prompt);
  res.prefill_tokens = res.prompt_tokens - res.cached_tokens;
  // Also checkpoint one token before the end of the prompt, so a call with the same history
  // (a regenerated answer) recomputes only the last token.
  std::vector<int64_t> marks(boundaries.begin(), boundaries.end());
  marks.push_back(res.prompt_tokens - 1);
  seq_.append(devices_.backend(), scratch_, prompt.subspan(res.cached_tokens), marks, logits_);
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
  res.stop = StopReason::MaxTokens;
  while (int64_t(res.tokens.size()) < params.max_tokens) {
    if (cancel_.load()) {
      res.stop = StopReason::Cancelled;
      break;
    }
    const int32_t next = sampler.sample(logits_);
    sampler.accept(next);
    if (res.tokens.empty()) res.ttft_s = timer.seconds();
    res.tokens.push_back(next);
    if (tok.is_end_of_generation(next)) {
      res.stop = StopReason::EndOfTurn;
      break;
    }
    if (!emit(stops.push(detok.push(next)))) {
      res.stop = StopReason::Cancelled;
      break;
    }
    if (stops.stopped()) {
      res.stop = StopReason::StopString;
      break;
    }
    if (int64_t(res.tokens.size()) == params.max_tokens) break;
    if (seq_.n_past() + 1 > seq_.n_ctx()) {
      res.stop = StopReason::ContextFull;
      break;
    }
    seq_.append(devices_.backend(), scratch_, std::span(&next, 1), {}, logits_);
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
  const std::vector<int32_t> prompt = engine.encode_chat(messages, params);
  // Every message starts with <|im_start|>: checkpoint there, where histories branch.
  std::vector<int64_t> boundaries;
  const int32_t im_start = engine.tokenizer().find_token("<|im_start|>");
  for (size_t i = 0; i < prompt.size(); ++i)
    if (prompt[i] == im_start) boundaries.push_back(int64_t(i));
  // Qwen3.5's generation prompt with thinking on ends inside <think>: the reply starts there.
  const bool thinking_open = engine.chat_format() == ChatFormat::Qwen35 &&
                             params.add_generation_prompt && params.enable_thinking;
  ReplyParser reply(engine.chat_format(), thinking_open, !params.tools.empty());
  return impl_->generate(prompt, boundaries, params, reply, on_text);
}

GenerateResult Session::generate_tokens(std::span<const int32_t> prompt,
                                        const GenerateParams& params,
                                        const TokenCallback& on_text) {
  ReplyParser reply(ChatFormat::ChatML, false, false);  // no template: only <think> is read
  return impl_->generate(prompt, {}, params, reply, on_text);
}

void Session::cancel() {
  impl_->cancel_.store(true);
}

void Session::reset() {
  impl_->seq_.reset();
}

std::vector<uint8_t> Session::save_state() const {
  return save_state_image(impl_->engine_->model(), impl_->seq_.state(), impl_->seq_.tokens(),
                          impl_->seq_.checkpoints());
}

void Session::load_state(std::span<const uint8_t> image) {
  RestoredState r = load_state_image(impl_->engine_->model(), image, impl_->seq_.n_ctx());
  impl_->seq_.replace(std::move(r.state), std::move(r.tokens), std::move(r.checkpoints));
}

void Session::save_state_file(const std::string& path) const {
  const auto image = save_state();
  write_file_atomically(path,
                        std::string_view(reinterpret_cast<const char*>(image.data()), image.size()),
                        "state file");
}

void Session::load_state_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, ": cannot open state file");
  std::ostringstream s;
  s << in.rdbuf();
  const std::string bytes = s.str();
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
