// The engine API: load a model once (memory-mapped, shared by every session), open sessions, and
// generate from a whole conversation. A session remembers what it computed last time, so each
// call costs only the tokens that differ from its previous call (runtime/sequence.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/speculative.h"
#include "sampling/sampler.h"
#include "text/chat.h"
#include "text/reply_parser.h"
#include "text/tool_call.h"

namespace kz {

class Model;
class Tokenizer;
class SessionImpl;

// What generate() does with a conversation whose prompt does not fit the context
// (src/api/context_fit.h).
enum class ContextOverflow {
  Error,            // a kz::Error naming the prompt's and the context's sizes
  DropOldestTurns,  // drop the oldest whole turns after the system message until it fits
};

struct SessionParams {
  int64_t n_ctx = 4096;
  std::string k_type = "f16", v_type = "f16";  // KV cache element types: f32, f16 or q8_0
  int n_threads = 0;                           // 0: all hardware threads
  std::string backend = "cpu";  // the device (backend/device_registry.h): cpu, ref, opencl:N,
                                // ggml:NAME
  // Ops to run on the CPU instead of the device (runtime/devices.h): a list, a file or `auto`;
  // empty: $KAZEIA_OPFILTER, else none. `auto` keeps its results under cache_dir (empty:
  // $KAZEIA_CACHE_DIR, $XDG_CACHE_HOME/kazeia or $HOME/.cache/kazeia).
  std::string op_filter;
  std::string cache_dir;
  // Split execution (runtime/devices.h): prompt batches of at least prefill_min_tokens tokens on
  // prefill_device, decode and shorter batches on decode_device; empty: `backend`.
  std::string prefill_device, decode_device;
  int64_t prefill_min_tokens = 32;
  // Trunk layers whose prompt ops run on the device: the first N, the rest of the model on the
  // CPU, so that the device holds only their weights (llama.cpp's -ngl, counted from the first
  // layer); -1: all.
  int64_t device_layers = -1;
  // CPU weight repacking: "auto" (off beside an OpenCL device, so one copy of the weights
  // serves both), "on" or "off" (runtime/devices.h).
  std::string repack = "auto";
  // Prefix reuse: recurrent-state checkpoints at message boundaries and every N tokens
  // (0 = only at boundaries), within a memory budget (oldest dropped first).
  int64_t checkpoint_interval = 256;
  uint64_t checkpoint_budget_bytes = 256ull << 20;
  ContextOverflow context_overflow = ContextOverflow::Error;
};

struct GenerateParams {
  SamplingParams sampling;
  int max_tokens = 256;
  std::vector<std::string> stop;  // stop strings (not included in the returned text)
  bool enable_thinking = true;    // chat templates' enable_thinking
  bool add_generation_prompt = true;
  bool reuse_prefix = true;  // false: recompute the whole history (for comparisons)
  bool ignore_eos = false;   // keep generating past end-of-turn tokens (kazeia run --ignore-eos)
  // Tool definitions (JSON objects; parse_tools reads a JSON array of them), rendered in the
  // system turn as the template does. With tools, tool calls are parsed out of the reply.
  std::vector<Json> tools;
  // Speculative decoding (runtime/speculative.h): drafts verified in one batch each. The output
  // is the model's own: greedy, the same tokens as without it; sampling, the same distribution.
  SpeculativeParams speculative;
};

enum class StopReason { EndOfTurn, StopString, MaxTokens, ContextFull, Cancelled };
std::string_view stop_reason_name(StopReason r);

struct GenerateResult {
  std::string text;  // everything generated (after stop strings), markup included
  // `text` read back (text/reply_parser.h): the answer without reasoning and tool calls, the
  // reasoning, the calls; tool_call_malformed when a <tool_call> block did not parse (its text
  // is then in `content`). Tool calls are parsed only when GenerateParams::tools is not empty.
  std::string content;
  std::string reasoning;
  std::vector<ToolCall> tool_calls;
  bool tool_call_malformed = false;
  std::vector<int32_t> tokens;  // generated token ids
  StopReason stop = StopReason::MaxTokens;
  int64_t prompt_tokens = 0;     // tokens of the rendered history
  int64_t cached_tokens = 0;     // of which reused from the session's previous state
  int64_t prefill_tokens = 0;    // of which computed now (prompt_tokens - cached_tokens)
  int64_t dropped_messages = 0;  // left out to fit the context (ContextOverflow::DropOldestTurns)
  SpeculativeStats speculative;  // verification passes, drafted and accepted tokens
  double ttft_s = 0;             // call start to first generated token
  double prefill_s = 0, decode_s = 0;
  double decode_tok_s() const { return decode_s > 0 ? (tokens.size() - 1) / decode_s : 0; }
};

// Receives each piece of generated text (complete UTF-8 only); return false to stop. With tools,
// tool-call markup is never shown: the calls arrive in GenerateResult::tool_calls.
using TokenCallback = std::function<bool(std::string_view piece)>;

class Engine {
 public:
  // Throws kz::Error naming the file and the key or tensor at fault.
  static std::shared_ptr<Engine> load(const std::string& path);
  ~Engine();

  const Model& model() const { return *model_; }
  const Tokenizer& tokenizer() const { return *tokenizer_; }
  ChatFormat chat_format() const { return chat_format_; }
  // Renders messages in the model's chat format (validates roles and UTF-8), with the spans of
  // the template's markup: only those may become control tokens (no role spoofing).
  RenderedChat render(std::span<const ChatMessage> messages, const GenerateParams& params) const;
  // The rendered messages as tokens: markup's control tokens, message text as plain text.
  std::vector<int32_t> encode_chat(std::span<const ChatMessage> messages,
                                   const GenerateParams& params) const;

 private:
  Engine() = default;
  std::unique_ptr<Model> model_;
  std::unique_ptr<Tokenizer> tokenizer_;
  ChatFormat chat_format_ = ChatFormat::ChatML;
};

class Session {
 public:
  Session(std::shared_ptr<const Engine> engine, const SessionParams& params);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Renders the conversation, reuses the longest prefix this session already holds, prefills the
  // rest and samples until an end-of-turn token, a stop string, max_tokens or a cancel. After the
  // answer (the last callback), it makes the buffers of the next turn's checkpoints, within the
  // checkpoint budget, so that they cost nothing before that turn's first token.
  GenerateResult generate(std::span<const ChatMessage> messages, const GenerateParams& params,
                          const TokenCallback& on_text = {});
  // The same from token ids (no chat formatting).
  GenerateResult generate_tokens(std::span<const int32_t> prompt, const GenerateParams& params,
                                 const TokenCallback& on_text = {});

  // Pays the weights' first-use costs now (runtime/warm_up.h: page faults, the CPU's repacked
  // layouts) with one token through the session's decode device on a scratch state, so that the
  // first answer's time to first token is the prompt's own; on_layer(done, total) as each layer
  // passes, for a progress line. The conversation is untouched.
  void warm_up(const std::function<void(int64_t done, int64_t total)>& on_layer = {});

  // Thread-safe: makes a running generate() stop at the next token with StopReason::Cancelled.
  // A cancel that arrives between calls stops the next call before its first token.
  void cancel();
  // Forgets everything (next call recomputes from scratch).
  void reset();

  // State save/restore: a versioned, checksummed image bound to the model; restoring a bad or
  // foreign image throws kz::Error and leaves the session untouched.
  std::vector<uint8_t> save_state() const;
  void load_state(std::span<const uint8_t> image);
  // Writes a temporary file beside `path`, flushes it and renames it over `path`: a failed save
  // (full disk, read-only folder) throws with the reason and leaves the previous file intact.
  void save_state_file(const std::string& path) const;
  void load_state_file(const std::string& path);

  const std::vector<int32_t>& tokens() const;  // tokens the state holds
  // The device and op filter in force, e.g. "device cpu/avx2, op filter none".
  std::string devices() const;
  uint64_t checkpoint_bytes() const;  // memory held by prefix-reuse checkpoints

 private:
  std::unique_ptr<SessionImpl> impl_;
};

}  // namespace kz
