/* Kazeia-Engine C API: a stable C ABI over the engine (src/api/engine.h).
 *
 * Rules of the ABI:
 * - Handles are opaque (kz_engine, kz_session); free each with its own *_free function.
 * - Every call that can fail returns a kz_status. On failure it also stores a malloc'd one-line
 *   message in *error (when error is not NULL), to be freed with kz_string_free; on success
 *   *error is set to NULL. No C++ exception ever crosses this interface.
 * - Parameter structs begin with struct_size and are filled by kz_*_params_default(); the
 *   library reads only the fields that fit in struct_size, so a program built against an older
 *   header keeps working when fields are appended. Result structs work the same way in the
 *   other direction: set struct_size = sizeof(kz_generate_result) before the call.
 * - Strings are UTF-8 and NUL-terminated; invalid UTF-8 in a message is an error, not UB.
 * - Threading: a session is used by one thread at a time (a second concurrent call fails with
 *   KZ_ERR_BUSY); kz_session_cancel may be called from any thread. Sessions of one engine may
 *   run on different threads at once. A session keeps its engine alive: kz_engine_free may be
 *   called while sessions are still open.
 */
#ifndef KAZEIA_H
#define KAZEIA_H

#include <stddef.h>
#include <stdint.h>

#define KAZEIA_API_VERSION 4

#if defined(_WIN32)
#if defined(KAZEIA_BUILDING)
#define KAZEIA_API __declspec(dllexport)
#else
#define KAZEIA_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define KAZEIA_API __attribute__((visibility("default")))
#else
#define KAZEIA_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kz_engine kz_engine;
typedef struct kz_session kz_session;

typedef enum kz_status {
  KZ_OK = 0,
  KZ_ERR_INVALID_ARGUMENT = 1, /* a NULL handle or pointer, a struct_size too small */
  KZ_ERR_ENGINE = 2,           /* the engine refused: bad file, bad message, bad state, ... */
  KZ_ERR_OUT_OF_MEMORY = 3,
  KZ_ERR_BUSY = 4, /* the session is already in use by another call */
  KZ_ERR_INTERNAL = 5
} kz_status;

typedef enum kz_stop_reason {
  KZ_STOP_END_OF_TURN = 0,
  KZ_STOP_STOP_STRING = 1,
  KZ_STOP_MAX_TOKENS = 2,
  KZ_STOP_CONTEXT_FULL = 3,
  KZ_STOP_CANCELLED = 4 /* kz_session_cancel, or the callback returned 0 */
} kz_stop_reason;

/* KAZEIA_API_VERSION of the library actually loaded (compare with the header's). */
KAZEIA_API int kz_api_version(void);
/* Static strings: "ok", "invalid argument", ...; "end_of_turn", "cancelled", ... */
KAZEIA_API const char* kz_status_name(kz_status status);
KAZEIA_API const char* kz_stop_reason_name(kz_stop_reason reason);

/* Frees a string returned by the library (error messages). NULL is ignored. */
KAZEIA_API void kz_string_free(char* s);
/* Frees a buffer returned by kz_session_save_state. NULL is ignored. */
KAZEIA_API void kz_buffer_free(void* data);

/* ---- Engine: one loaded model, memory-mapped, shared by all its sessions ---- */

/* Errors name the file and the key or tensor at fault. */
KAZEIA_API kz_status kz_engine_load(const char* path, kz_engine** out, char** error);
KAZEIA_API void kz_engine_free(kz_engine* engine);

/* ---- Session: a conversation's state (KV cache, recurrent state, prefix checkpoints) ---- */

/* What generation does with a conversation whose prompt does not fit the context. */
typedef enum kz_context_overflow {
  KZ_OVERFLOW_ERROR = 0, /* KZ_ERR_ENGINE naming the prompt's and the context's sizes */
  /* Drop the oldest whole turns (a user message and what follows it up to the next one) after
   * the system message, the fewest that leave room for the reply (max_tokens, at most half the
   * context); the last turn is always kept. The same history always drops the same turns. */
  KZ_OVERFLOW_DROP_OLDEST_TURNS = 1
} kz_context_overflow;

typedef struct kz_session_params {
  size_t struct_size;               /* sizeof(kz_session_params) */
  int64_t n_ctx;                    /* context length in tokens */
  int32_t n_threads;                /* 0: all hardware threads */
  const char* k_type;               /* KV cache element types: "f32", "f16" or "q8_0" (head   */
  const char* v_type;               /*   size a multiple of 32); NULL: default ("f16")        */
  const char* backend;              /* device: "cpu", "ref", "opencl:N" or "ggml:NAME" (e.g.   */
                                    /*   "ggml:HTP0"; docs/ggml.md)                          */
  int64_t checkpoint_interval;      /* recurrent-state checkpoint every N tokens (0: at turns) */
  uint64_t checkpoint_budget_bytes; /* memory for those checkpoints */
  const char* op_filter;            /* ops run on the CPU instead of the device: a list such as */
                                    /*   "ssm_conv@prompt", a file, or "auto"; NULL: the      */
                                    /*   KAZEIA_OPFILTER environment variable, else none      */
  const char* cache_dir;            /* where "auto" keeps its results; NULL: KAZEIA_CACHE_DIR, */
                                    /*   $XDG_CACHE_HOME/kazeia or $HOME/.cache/kazeia          */
  const char* prefill_device;       /* split execution: prompt batches of at least            */
  const char* decode_device;        /*   prefill_min_tokens tokens on prefill_device, the rest */
  int64_t prefill_min_tokens;       /*   on decode_device; NULL: backend                       */
  const char* repack;               /* CPU weight repacking: "auto" (off beside an OpenCL       */
  /*   device: one copy of the weights), "on", "off"; NULL: auto */
  /* API version 3: */
  int32_t context_overflow; /* a kz_context_overflow; default KZ_OVERFLOW_ERROR */
  /* API version 4: */
  int64_t device_layers; /* trunk layers whose ops run on the device (the first N; the rest */
                         /*   of the model on the CPU); -1: all (default)                 */
} kz_session_params;

KAZEIA_API kz_session_params kz_session_params_default(void);

/* params may be NULL (defaults). */
KAZEIA_API kz_status kz_session_new(kz_engine* engine, const kz_session_params* params,
                                    kz_session** out, char** error);
KAZEIA_API void kz_session_free(kz_session* session);

/* ---- Generation ---- */

/* A tool call: made by the assistant (in a kz_message) or parsed from a reply (in a
 * kz_generate_result, owned by it). This struct never grows (arrays of it cross the ABI). */
typedef struct kz_tool_call {
  const char* id;        /* NULL or "": none; the Qwen templates do not print it */
  const char* name;      /* the function */
  const char* arguments; /* JSON text, usually an object; NULL: {} */
} kz_tool_call;

typedef struct kz_message {
  const char* role;              /* "system", "user", "assistant" or "tool" */
  const char* content;           /* NULL: empty */
  const char* reasoning_content; /* assistant only; NULL: none (taken from <think> in content) */
} kz_message;

/* A message with tool calling (API version 2), for kz_generate_chat. Unlike kz_message (whose
 * arrays have a fixed stride and so can never grow), each element starts with struct_size: the
 * library reads the fields inside it, so fields can be appended later. */
typedef struct kz_chat_message {
  size_t struct_size;             /* sizeof(kz_chat_message), the same in every element */
  const char* role;               /* as in kz_message */
  const char* content;            /* NULL: empty */
  const char* reasoning_content;  /* NULL: none */
  const kz_tool_call* tool_calls; /* assistant: the calls of this turn (n_tool_calls of them) */
  size_t n_tool_calls;
  const char* tool_call_id; /* tool: the call answered; NULL: none (not printed by the templates) */
  const char* name;         /* tool: the function's name; NULL: none (idem) */
} kz_chat_message;

typedef struct kz_generate_params {
  size_t struct_size; /* sizeof(kz_generate_params) */
  /* sampling: llama.cpp's chain order; temperature 0 is greedy */
  float temperature;
  int32_t top_k;          /* 0: off */
  float top_p;            /* 1: off */
  float min_p;            /* 0: off */
  float repeat_penalty;   /* 1: off */
  int32_t repeat_last_n;  /* penalty window; 0: off */
  float presence_penalty; /* 0: off */
  uint64_t seed;
  int32_t max_tokens;
  const char* const* stop; /* n_stop stop strings (not included in the text) */
  size_t n_stop;
  int32_t enable_thinking; /* booleans as 0 / 1 */
  int32_t add_generation_prompt;
  int32_t reuse_prefix; /* 0: recompute the whole history */
  /* API version 2: */
  const char* tools;       /* JSON array of tool definitions (OpenAI's {"type": "function", ...}),
                              printed in the system turn as the template does; NULL: none. With
                              tools, tool calls are parsed out of the reply (kz_generate_result). */
  const char* speculative; /* speculative decoding: "none", "ngram" or "mtp" (the model's MTP
                              layer); NULL: none. Greedy output is unchanged, sampling keeps
                              its distribution (docs/architecture.md) */
  int32_t max_draft;       /* drafted tokens per verification, 1..16 (default 4) */
} kz_generate_params;

KAZEIA_API kz_generate_params kz_generate_params_default(void);

typedef struct kz_generate_result {
  size_t struct_size; /* set by the caller: sizeof(kz_generate_result) */
  char* text;         /* generated text, NUL-terminated, owned: kz_result_free */
  size_t text_len;
  int32_t* tokens; /* generated token ids, owned: kz_result_free */
  size_t n_tokens;
  kz_stop_reason stop_reason;
  int64_t prompt_tokens;    /* tokens of the rendered history */
  int64_t cached_tokens;    /* of which reused from the session's previous state */
  int64_t prefill_tokens;   /* of which computed now */
  int64_t generated_tokens; /* == n_tokens */
  double ttft_s;            /* call start to first generated token */
  double prefill_s;
  double decode_s;
  /* API version 2: `text` read back (owned, kz_result_free): the answer without reasoning and
   * tool calls, the reasoning, the tool calls (only when tools were given), and whether a
   * <tool_call> block did not parse (its text is then in content). */
  char* content;
  char* reasoning;
  kz_tool_call* tool_calls;
  size_t n_tool_calls;
  int32_t tool_call_malformed;
  /* speculative decoding: verification passes, drafted tokens, of which accepted */
  int64_t spec_passes;
  int64_t spec_drafted;
  int64_t spec_accepted;
  /* API version 3: messages left out to fit the context (KZ_OVERFLOW_DROP_OLDEST_TURNS) */
  int64_t dropped_messages;
} kz_generate_result;

/* Frees what a result owns and zeroes it (struct_size kept); safe on a zeroed result. */
KAZEIA_API void kz_result_free(kz_generate_result* result);

/* Receives each piece of generated text: complete UTF-8, `len` bytes, NUL-terminated, valid
 * only during the call. Return nonzero to continue, 0 to stop (stop reason: cancelled). It may
 * call kz_session_cancel; other calls on the same session fail with KZ_ERR_BUSY. It must not
 * unwind (C++ exception, longjmp) through the library. */
typedef int (*kz_token_callback)(const char* piece, size_t len, void* user_data);

/* Renders the conversation in the model's chat format, reuses the longest prefix the session
 * already holds, prefills the rest and samples until end of turn, a stop string, max_tokens, a
 * full context or a cancel. params, callback and out may be NULL. A cancel or a callback's stop
 * is not an error: the call returns KZ_OK with stop_reason KZ_STOP_CANCELLED. */
KAZEIA_API kz_status kz_generate(kz_session* session, const kz_message* messages, size_t n_messages,
                                 const kz_generate_params* params, kz_token_callback callback,
                                 void* user_data, kz_generate_result* out, char** error);

/* kz_generate with kz_chat_message: assistant tool calls and tool results' ids in the history.
 * With params->tools, the reply's tool calls come back in out->tool_calls, and the callback
 * never sees tool-call markup. */
KAZEIA_API kz_status kz_generate_chat(kz_session* session, const kz_chat_message* messages,
                                      size_t n_messages, const kz_generate_params* params,
                                      kz_token_callback callback, void* user_data,
                                      kz_generate_result* out, char** error);

/* The same from token ids (no chat formatting). */
KAZEIA_API kz_status kz_generate_tokens(kz_session* session, const int32_t* prompt, size_t n_prompt,
                                        const kz_generate_params* params,
                                        kz_token_callback callback, void* user_data,
                                        kz_generate_result* out, char** error);

/* Thread-safe: makes a running kz_generate stop at the next token. NULL is ignored. It must not
 * race with kz_session_free. A cancel made while no call runs stops the next call after its
 * prompt, before its first token (the prompt is evaluated and kept for reuse). */
KAZEIA_API void kz_session_cancel(kz_session* session);
/* Forgets the conversation: the next call recomputes from scratch. */
KAZEIA_API kz_status kz_session_reset(kz_session* session, char** error);
/* Progress of long work: `done` of `total` units. */
typedef void (*kz_progress_callback)(int64_t done, int64_t total, void* user_data);
/* API version 4: pays the weights' first use now (their pages fault in, the CPU repacks them),
 * one token through the session's decode device on a scratch state, so that the first answer's
 * time to first token is the prompt's own; `callback` (may be NULL) after each layer, total =
 * layers + 1. Call it after kz_session_new, e.g. behind a loading screen. The conversation is
 * untouched. */
KAZEIA_API kz_status kz_session_warm_up(kz_session* session, kz_progress_callback callback,
                                        void* user_data, char** error);
/* Number of tokens the session's state holds (0 for NULL). */
KAZEIA_API size_t kz_session_n_tokens(const kz_session* session);

/* ---- State: a versioned, checksummed image bound to the model ----
 * Restoring a bad or foreign image fails and leaves the session untouched. */

/* *data is owned by the caller: kz_buffer_free. */
KAZEIA_API kz_status kz_session_save_state(kz_session* session, uint8_t** data, size_t* size,
                                           char** error);
KAZEIA_API kz_status kz_session_load_state(kz_session* session, const uint8_t* data, size_t size,
                                           char** error);
/* Atomic: a temporary file beside `path`, flushed, then renamed over it; a failed save leaves the
 * previous file intact and says why. */
KAZEIA_API kz_status kz_session_save_state_file(kz_session* session, const char* path,
                                                char** error);
KAZEIA_API kz_status kz_session_load_state_file(kz_session* session, const char* path,
                                                char** error);

#ifdef __cplusplus
}
#endif

#endif /* KAZEIA_H */
