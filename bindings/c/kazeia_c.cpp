// The C ABI (include/kazeia.h) over kz::Engine / kz::Session. Each entry point is a boundary:
// every exception is caught here and turned into a kz_status plus a malloc'd message.
#include "kazeia.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "api/engine.h"
#include "base/error.h"

struct kz_engine {
  std::shared_ptr<kz::Engine> engine;
};

struct kz_session {
  std::unique_ptr<kz::Session> session;
  std::atomic<bool> busy{false};    // a call is running (the ABI allows one at a time)
  std::atomic<size_t> n_tokens{0};  // session->tokens().size(), readable while busy
  std::string piece;                // scratch: the callback's NUL-terminated piece
};

namespace {

// A failure detected by this layer (as opposed to the engine's kz::Error).
struct ArgumentError {
  std::string message;
};
struct BusyError {
  std::string message;
};

// True when the caller's struct (of the size it declares) holds `field`; fields beyond it keep
// their defaults, so older callers keep working when fields are appended.
#define KZ_HAS(p, field) \
  ((p)->struct_size >= offsetof(std::remove_cvref_t<decltype(*(p))>, field) + sizeof((p)->field))

// Size of kz_generate_result in API version 1; a caller's struct is never smaller than this.
constexpr size_t kResultSizeV1 = offsetof(kz_generate_result, decode_s) + sizeof(double);

char* dup_string(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out) std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

void set_error(char** error, const std::string& message) {
  if (!error) return;
  std::string line = message;
  std::replace(line.begin(), line.end(), '\n', ' ');  // the contract is one line
  *error = dup_string(line);
}

// Runs `body` and maps every exception to a status; nothing escapes.
template <class Body>
kz_status guarded(char** error, Body&& body) noexcept {
  if (error) *error = nullptr;
  try {
    body();
    return KZ_OK;
  } catch (const ArgumentError& e) {
    set_error(error, e.message);
    return KZ_ERR_INVALID_ARGUMENT;
  } catch (const BusyError& e) {
    set_error(error, e.message);
    return KZ_ERR_BUSY;
  } catch (const kz::Error& e) {
    set_error(error, e.what());
    return KZ_ERR_ENGINE;
  } catch (const std::bad_alloc&) {
    set_error(error, "out of memory");
    return KZ_ERR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    set_error(error, std::string("internal error: ") + e.what());
    return KZ_ERR_INTERNAL;
  } catch (...) {
    set_error(error, "internal error: unknown exception");
    return KZ_ERR_INTERNAL;
  }
}

template <class... Args>
[[noreturn]] void argument_error(Args&&... args) {
  throw ArgumentError{kz::cat(std::forward<Args>(args)...)};
}

template <class T>
void require(const T* p, const char* function, const char* name) {
  if (!p) argument_error(function, ": ", name, " is NULL");
}

// Holds the session's busy flag for the duration of one call.
class SessionUse {
 public:
  SessionUse(kz_session* s, const char* function) : s_(s) {
    require(s, function, "session");
    if (s->busy.exchange(true, std::memory_order_acquire)) {
      throw BusyError{kz::cat(function, ": the session is in use by another call")};
    }
  }
  ~SessionUse() {
    s_->n_tokens.store(s_->session->tokens().size(), std::memory_order_relaxed);
    s_->busy.store(false, std::memory_order_release);
  }
  SessionUse(const SessionUse&) = delete;
  SessionUse& operator=(const SessionUse&) = delete;
  kz::Session& operator*() const { return *s_->session; }
  kz::Session* operator->() const { return s_->session.get(); }

 private:
  kz_session* s_;
};

kz::ContextOverflow to_cpp(int32_t overflow) {
  switch (overflow) {
    case KZ_OVERFLOW_ERROR:
      return kz::ContextOverflow::Error;
    case KZ_OVERFLOW_DROP_OLDEST_TURNS:
      return kz::ContextOverflow::DropOldestTurns;
  }
  argument_error("kz_session_new: params->context_overflow is ", overflow,
                 " (expected KZ_OVERFLOW_ERROR or KZ_OVERFLOW_DROP_OLDEST_TURNS)");
}

kz::SessionParams to_cpp(const kz_session_params* p) {
  kz::SessionParams out;
  if (!p) return out;
  if (p->struct_size == 0) {
    argument_error("kz_session_new: params->struct_size is 0 (use kz_session_params_default)");
  }
  if (KZ_HAS(p, n_ctx)) out.n_ctx = p->n_ctx;
  if (KZ_HAS(p, n_threads)) out.n_threads = p->n_threads;
  if (KZ_HAS(p, k_type) && p->k_type) out.k_type = p->k_type;
  if (KZ_HAS(p, v_type) && p->v_type) out.v_type = p->v_type;
  if (KZ_HAS(p, backend) && p->backend) out.backend = p->backend;
  if (KZ_HAS(p, checkpoint_interval)) out.checkpoint_interval = p->checkpoint_interval;
  if (KZ_HAS(p, checkpoint_budget_bytes)) out.checkpoint_budget_bytes = p->checkpoint_budget_bytes;
  if (KZ_HAS(p, op_filter) && p->op_filter) out.op_filter = p->op_filter;
  if (KZ_HAS(p, cache_dir) && p->cache_dir) out.cache_dir = p->cache_dir;
  if (KZ_HAS(p, prefill_device) && p->prefill_device) out.prefill_device = p->prefill_device;
  if (KZ_HAS(p, decode_device) && p->decode_device) out.decode_device = p->decode_device;
  if (KZ_HAS(p, prefill_min_tokens)) out.prefill_min_tokens = p->prefill_min_tokens;
  if (KZ_HAS(p, repack) && p->repack) out.repack = p->repack;
  if (KZ_HAS(p, context_overflow)) out.context_overflow = to_cpp(p->context_overflow);
  if (KZ_HAS(p, device_layers)) out.device_layers = p->device_layers;
  return out;
}

kz::GenerateParams to_cpp(const kz_generate_params* p, const char* function) {
  kz::GenerateParams out;
  if (!p) return out;
  if (p->struct_size == 0) {
    argument_error(function, ": params->struct_size is 0 (use kz_generate_params_default)");
  }
  kz::SamplingParams& s = out.sampling;
  if (KZ_HAS(p, temperature)) s.temperature = p->temperature;
  if (KZ_HAS(p, top_k)) s.top_k = p->top_k;
  if (KZ_HAS(p, top_p)) s.top_p = p->top_p;
  if (KZ_HAS(p, min_p)) s.min_p = p->min_p;
  if (KZ_HAS(p, repeat_penalty)) s.repeat_penalty = p->repeat_penalty;
  if (KZ_HAS(p, repeat_last_n)) s.repeat_last_n = p->repeat_last_n;
  if (KZ_HAS(p, presence_penalty)) s.presence_penalty = p->presence_penalty;
  if (KZ_HAS(p, seed)) s.seed = p->seed;
  if (KZ_HAS(p, max_tokens)) out.max_tokens = p->max_tokens;
  if (KZ_HAS(p, n_stop) && p->n_stop > 0) {
    if (!p->stop) argument_error(function, ": params->stop is NULL but n_stop is ", p->n_stop);
    for (size_t i = 0; i < p->n_stop; ++i) {
      if (!p->stop[i]) argument_error(function, ": params->stop[", i, "] is NULL");
      out.stop.emplace_back(p->stop[i]);
    }
  }
  if (KZ_HAS(p, enable_thinking)) out.enable_thinking = p->enable_thinking != 0;
  if (KZ_HAS(p, add_generation_prompt)) out.add_generation_prompt = p->add_generation_prompt != 0;
  if (KZ_HAS(p, reuse_prefix)) out.reuse_prefix = p->reuse_prefix != 0;
  if (KZ_HAS(p, tools) && p->tools) out.tools = kz::parse_tools(p->tools);
  if (KZ_HAS(p, speculative) && p->speculative)
    out.speculative.source = kz::parse_draft_source(p->speculative, "params->speculative");
  if (KZ_HAS(p, max_draft)) {
    kz::check_max_draft(p->max_draft, "params->max_draft");
    out.speculative.max_draft = p->max_draft;
  }
  if (out.speculative.source == kz::DraftSource::Replay)
    argument_error(function, ": params->speculative 'replay' is for benchmarks only");
  return out;
}

// Element i of an array whose elements declare their size (all the same), read into the
// library's layout: fields the caller's version lacks stay zero. A real array's stride is a
// multiple of the struct's alignment; any other size is refused before an element is read at a
// misaligned address or a field is taken in part (half a pointer).
kz_chat_message chat_message_at(const kz_chat_message* messages, size_t i, const char* fn) {
  const size_t size = messages[0].struct_size;
  constexpr size_t min_size = offsetof(kz_chat_message, role) + sizeof(const char*);
  if (size < min_size || size % alignof(kz_chat_message) != 0)
    argument_error(fn, ": messages[0].struct_size is ", size,
                   " (set every element's to sizeof(kz_chat_message))");
  const auto* at =
      reinterpret_cast<const kz_chat_message*>(reinterpret_cast<const char*>(messages) + i * size);
  if (at->struct_size != size)
    argument_error(fn, ": messages[", i, "].struct_size is ", at->struct_size,
                   " (set every element's to sizeof(kz_chat_message))");
  kz_chat_message m{};
  std::memcpy(&m, at, std::min(size, sizeof m));
  return m;
}

kz::ChatMessage to_cpp(const kz_chat_message& m, size_t i, const char* fn) {
  if (!m.role) argument_error(fn, ": messages[", i, "].role is NULL");
  kz::ChatMessage out(m.role, m.content ? m.content : "",
                      m.reasoning_content ? m.reasoning_content : "");
  if (m.n_tool_calls > 0 && !m.tool_calls)
    argument_error(fn, ": messages[", i, "].tool_calls is NULL but n_tool_calls is ",
                   m.n_tool_calls);
  for (size_t k = 0; k < m.n_tool_calls; ++k) {
    const kz_tool_call& c = m.tool_calls[k];
    if (!c.name) argument_error(fn, ": messages[", i, "].tool_calls[", k, "].name is NULL");
    const std::string where = kz::cat("messages[", i, "].tool_calls[", k, "].arguments");
    out.tool_calls.push_back({c.name,
                              c.arguments ? kz::parse_json(c.arguments, where) : kz::Json::object(),
                              c.id ? c.id : ""});
  }
  if (m.tool_call_id) out.tool_call_id = m.tool_call_id;
  if (m.name) out.name = m.name;
  return out;
}

void check_result(const kz_generate_result* out, const char* function) {
  if (out && out->struct_size < kResultSizeV1) {
    argument_error(function, ": out->struct_size is ", out->struct_size,
                   " (set it to sizeof(kz_generate_result))");
  }
}

kz_stop_reason to_c(kz::StopReason r) {
  switch (r) {
    case kz::StopReason::EndOfTurn:
      return KZ_STOP_END_OF_TURN;
    case kz::StopReason::StopString:
      return KZ_STOP_STOP_STRING;
    case kz::StopReason::MaxTokens:
      return KZ_STOP_MAX_TOKENS;
    case kz::StopReason::ContextFull:
      return KZ_STOP_CONTEXT_FULL;
    case kz::StopReason::Cancelled:
      return KZ_STOP_CANCELLED;
  }
  return KZ_STOP_CANCELLED;
}

// Frees what a result in the library's layout owns.
void free_owned(kz_generate_result& r) {
  std::free(r.text);
  std::free(r.tokens);
  std::free(r.content);
  std::free(r.reasoning);
  for (size_t k = 0; r.tool_calls && k < r.n_tool_calls; ++k) {
    std::free(const_cast<char*>(r.tool_calls[k].id));
    std::free(const_cast<char*>(r.tool_calls[k].name));
    std::free(const_cast<char*>(r.tool_calls[k].arguments));
  }
  std::free(r.tool_calls);
}

// Copies the result into the caller's struct, as much of it as the caller's version holds.
void fill_result(kz_generate_result* out, const kz::GenerateResult& r) {
  if (!out) return;
  kz_generate_result full{};
  full.struct_size = out->struct_size;
  const bool has_parts = KZ_HAS(out, tool_call_malformed);  // else nothing to allocate for them
  const size_t n_calls = has_parts ? r.tool_calls.size() : 0;
  full.text = dup_string(r.text);
  full.tokens =
      static_cast<int32_t*>(std::malloc(std::max<size_t>(1, r.tokens.size()) * sizeof(int32_t)));
  bool ok = full.text && full.tokens;
  if (has_parts) {
    full.content = dup_string(r.content);
    full.reasoning = dup_string(r.reasoning);
    full.tool_calls =
        static_cast<kz_tool_call*>(std::calloc(std::max<size_t>(1, n_calls), sizeof(kz_tool_call)));
    ok = ok && full.content && full.reasoning && full.tool_calls;
    for (size_t k = 0; ok && k < n_calls; ++k) {
      full.n_tool_calls = k + 1;
      kz_tool_call& c = full.tool_calls[k];
      c.id = dup_string(r.tool_calls[k].id);
      c.name = dup_string(r.tool_calls[k].name);
      c.arguments = dup_string(kz::to_json_text(r.tool_calls[k].arguments));
      ok = c.id && c.name && c.arguments;
    }
  }
  if (!ok) {
    free_owned(full);
    throw std::bad_alloc();
  }
  full.n_tool_calls = n_calls;
  full.tool_call_malformed = r.tool_call_malformed;
  std::copy(r.tokens.begin(), r.tokens.end(), full.tokens);
  full.text_len = r.text.size();
  full.n_tokens = r.tokens.size();
  full.stop_reason = to_c(r.stop);
  full.prompt_tokens = r.prompt_tokens;
  full.cached_tokens = r.cached_tokens;
  full.prefill_tokens = r.prefill_tokens;
  full.generated_tokens = static_cast<int64_t>(r.tokens.size());
  full.ttft_s = r.ttft_s;
  full.prefill_s = r.prefill_s;
  full.decode_s = r.decode_s;
  full.spec_passes = r.speculative.passes;
  full.spec_drafted = r.speculative.drafted;
  full.spec_accepted = r.speculative.accepted;
  full.dropped_messages = r.dropped_messages;
  std::memcpy(out, &full, std::min(out->struct_size, sizeof full));
}

void clear_result(kz_generate_result* out) {
  if (!out) return;
  const size_t size = out->struct_size;
  std::memset(out, 0, std::min(size, sizeof *out));
  out->struct_size = size;
}

// The value a C caller passed for an enum. C allows any int there, which a C++ enum without a
// fixed type need not hold (reading it as the enum is undefined), so the bits are read as an int.
template <class Enum>
int passed_value(const Enum& e) {
  static_assert(sizeof(Enum) == sizeof(int));
  int value;
  std::memcpy(&value, &e, sizeof value);
  return value;
}

kz::TokenCallback to_cpp(kz_session* s, kz_token_callback callback, void* user_data) {
  if (!callback) return {};
  return [s, callback, user_data](std::string_view piece) {
    s->piece.assign(piece);  // NUL-terminated for the caller's convenience
    return callback(s->piece.c_str(), s->piece.size(), user_data) != 0;
  };
}

}  // namespace

extern "C" {

int kz_api_version(void) {
  return KAZEIA_API_VERSION;
}

const char* kz_status_name(kz_status status) {
  switch (passed_value(status)) {
    case KZ_OK:
      return "ok";
    case KZ_ERR_INVALID_ARGUMENT:
      return "invalid argument";
    case KZ_ERR_ENGINE:
      return "engine error";
    case KZ_ERR_OUT_OF_MEMORY:
      return "out of memory";
    case KZ_ERR_BUSY:
      return "busy";
    case KZ_ERR_INTERNAL:
      return "internal error";
  }
  return "unknown status";
}

const char* kz_stop_reason_name(kz_stop_reason reason) {
  switch (passed_value(reason)) {
    case KZ_STOP_END_OF_TURN:
      return "end_of_turn";
    case KZ_STOP_STOP_STRING:
      return "stop_string";
    case KZ_STOP_MAX_TOKENS:
      return "max_tokens";
    case KZ_STOP_CONTEXT_FULL:
      return "context_full";
    case KZ_STOP_CANCELLED:
      return "cancelled";
  }
  return "unknown";
}

void kz_string_free(char* s) {
  std::free(s);
}
void kz_buffer_free(void* data) {
  std::free(data);
}

kz_status kz_engine_load(const char* path, kz_engine** out, char** error) {
  return guarded(error, [&] {
    require(out, "kz_engine_load", "out");
    *out = nullptr;
    require(path, "kz_engine_load", "path");
    auto engine = std::make_unique<kz_engine>();
    engine->engine = kz::Engine::load(path);
    *out = engine.release();
  });
}

void kz_engine_free(kz_engine* engine) {
  delete engine;
}

kz_session_params kz_session_params_default(void) {
  const kz::SessionParams d;
  kz_session_params p{};
  p.struct_size = sizeof p;
  p.n_ctx = d.n_ctx;
  p.n_threads = d.n_threads;
  p.k_type = nullptr;  // the defaults are owned by the library: NULL selects them
  p.v_type = nullptr;
  p.backend = nullptr;
  p.checkpoint_interval = d.checkpoint_interval;
  p.checkpoint_budget_bytes = d.checkpoint_budget_bytes;
  p.op_filter = nullptr;
  p.cache_dir = nullptr;
  p.prefill_device = nullptr;
  p.decode_device = nullptr;
  p.prefill_min_tokens = d.prefill_min_tokens;
  p.repack = nullptr;
  p.context_overflow = KZ_OVERFLOW_ERROR;
  p.device_layers = d.device_layers;
  return p;
}

kz_status kz_session_new(kz_engine* engine, const kz_session_params* params, kz_session** out,
                         char** error) {
  return guarded(error, [&] {
    require(out, "kz_session_new", "out");
    *out = nullptr;
    require(engine, "kz_session_new", "engine");
    auto session = std::make_unique<kz_session>();
    session->session = std::make_unique<kz::Session>(engine->engine, to_cpp(params));
    *out = session.release();
  });
}

void kz_session_free(kz_session* session) {
  delete session;
}

kz_generate_params kz_generate_params_default(void) {
  const kz::GenerateParams d;
  kz_generate_params p{};
  p.struct_size = sizeof p;
  p.temperature = d.sampling.temperature;
  p.top_k = d.sampling.top_k;
  p.top_p = d.sampling.top_p;
  p.min_p = d.sampling.min_p;
  p.repeat_penalty = d.sampling.repeat_penalty;
  p.repeat_last_n = d.sampling.repeat_last_n;
  p.presence_penalty = d.sampling.presence_penalty;
  p.seed = d.sampling.seed;
  p.max_tokens = d.max_tokens;
  p.stop = nullptr;
  p.n_stop = 0;
  p.enable_thinking = d.enable_thinking;
  p.add_generation_prompt = d.add_generation_prompt;
  p.reuse_prefix = d.reuse_prefix;
  p.tools = nullptr;
  p.speculative = nullptr;
  p.max_draft = d.speculative.max_draft;
  return p;
}

void kz_result_free(kz_generate_result* result) {
  if (!result || result->struct_size < kResultSizeV1) return;
  kz_generate_result full{};  // the caller's fields, in the library's layout
  std::memcpy(&full, result, std::min(result->struct_size, sizeof full));
  free_owned(full);
  clear_result(result);
}

kz_status kz_generate(kz_session* session, const kz_message* messages, size_t n_messages,
                      const kz_generate_params* params, kz_token_callback callback, void* user_data,
                      kz_generate_result* out, char** error) {
  return guarded(error, [&] {
    constexpr const char* fn = "kz_generate";
    check_result(out, fn);
    clear_result(out);
    if (n_messages > 0) require(messages, fn, "messages");
    std::vector<kz::ChatMessage> history;
    for (size_t i = 0; i < n_messages; ++i) {
      const kz_message& m = messages[i];
      history.push_back(to_cpp(kz_chat_message{sizeof(kz_chat_message), m.role, m.content,
                                               m.reasoning_content, nullptr, 0, nullptr, nullptr},
                               i, fn));
    }
    const kz::GenerateParams cpp_params = to_cpp(params, fn);
    SessionUse use(session, fn);
    fill_result(out, use->generate(history, cpp_params, to_cpp(session, callback, user_data)));
  });
}

kz_status kz_generate_chat(kz_session* session, const kz_chat_message* messages, size_t n_messages,
                           const kz_generate_params* params, kz_token_callback callback,
                           void* user_data, kz_generate_result* out, char** error) {
  return guarded(error, [&] {
    constexpr const char* fn = "kz_generate_chat";
    check_result(out, fn);
    clear_result(out);
    if (n_messages > 0) require(messages, fn, "messages");
    std::vector<kz::ChatMessage> history;
    for (size_t i = 0; i < n_messages; ++i)
      history.push_back(to_cpp(chat_message_at(messages, i, fn), i, fn));
    const kz::GenerateParams cpp_params = to_cpp(params, fn);
    SessionUse use(session, fn);
    fill_result(out, use->generate(history, cpp_params, to_cpp(session, callback, user_data)));
  });
}

kz_status kz_generate_tokens(kz_session* session, const int32_t* prompt, size_t n_prompt,
                             const kz_generate_params* params, kz_token_callback callback,
                             void* user_data, kz_generate_result* out, char** error) {
  return guarded(error, [&] {
    constexpr const char* fn = "kz_generate_tokens";
    check_result(out, fn);
    clear_result(out);
    if (n_prompt > 0) require(prompt, fn, "prompt");
    const kz::GenerateParams cpp_params = to_cpp(params, fn);
    SessionUse use(session, fn);
    const std::span<const int32_t> tokens(prompt, n_prompt);
    fill_result(out,
                use->generate_tokens(tokens, cpp_params, to_cpp(session, callback, user_data)));
  });
}

void kz_session_cancel(kz_session* session) {
  if (!session) return;
  try {
    session->session->cancel();
  } catch (...) {  // cancel() sets a flag and does not throw; the ABI promises nothing escapes
  }
}

kz_status kz_session_reset(kz_session* session, char** error) {
  return guarded(error, [&] {
    SessionUse use(session, "kz_session_reset");
    use->reset();
  });
}

kz_status kz_session_warm_up(kz_session* session, kz_progress_callback callback, void* user_data,
                             char** error) {
  return guarded(error, [&] {
    SessionUse use(session, "kz_session_warm_up");
    use->warm_up([&](int64_t done, int64_t total) {
      if (callback) callback(done, total, user_data);
    });
  });
}

size_t kz_session_n_tokens(const kz_session* session) {
  return session ? session->n_tokens.load(std::memory_order_relaxed) : 0;
}

kz_status kz_session_save_state(kz_session* session, uint8_t** data, size_t* size, char** error) {
  return guarded(error, [&] {
    constexpr const char* fn = "kz_session_save_state";
    require(data, fn, "data");
    require(size, fn, "size");
    *data = nullptr;
    *size = 0;
    SessionUse use(session, fn);
    const std::vector<uint8_t> image = use->save_state();
    auto* buffer = static_cast<uint8_t*>(std::malloc(std::max<size_t>(1, image.size())));
    if (!buffer) throw std::bad_alloc();
    std::copy(image.begin(), image.end(), buffer);
    *data = buffer;
    *size = image.size();
  });
}

kz_status kz_session_load_state(kz_session* session, const uint8_t* data, size_t size,
                                char** error) {
  return guarded(error, [&] {
    constexpr const char* fn = "kz_session_load_state";
    if (size > 0) require(data, fn, "data");
    SessionUse use(session, fn);
    use->load_state(std::span<const uint8_t>(data, size));
  });
}

kz_status kz_session_save_state_file(kz_session* session, const char* path, char** error) {
  return guarded(error, [&] {
    constexpr const char* fn = "kz_session_save_state_file";
    require(path, fn, "path");
    SessionUse use(session, fn);
    use->save_state_file(path);
  });
}

kz_status kz_session_load_state_file(kz_session* session, const char* path, char** error) {
  return guarded(error, [&] {
    constexpr const char* fn = "kz_session_load_state_file";
    require(path, fn, "path");
    SessionUse use(session, fn);
    use->load_state_file(path);
  });
}

}  // extern "C"
