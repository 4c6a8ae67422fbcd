// JNI glue for ai.kazeia.Native, written against the C API (include/kazeia.h) so Java sees the
// same contract as C: a failing call throws KazeiaException carrying the C API's status and
// one-line message.
//
// Text crosses as real UTF-8 in both directions, never JNI's modified UTF-8: Java strings are
// read as UTF-16 and converted here; generated pieces, results and error messages go back as
// byte[] and are decoded by Java.
#include <jni.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ai_kazeia_Native.h"
#include "kazeia.h"

namespace {

// Strings per message and per tool call in Native.generate's flattened arrays (Native.java).
constexpr size_t kMessageFields = 5;
constexpr size_t kToolCallFields = 3;

// Classes and method ids looked up once in JNI_OnLoad (the usual JNI practice: lookups are slow
// and the ids stay valid while the classes are loaded, which the global refs guarantee).
struct JavaIds {
  jclass exception = nullptr;  // ai.kazeia.KazeiaException
  jmethodID exception_ctor = nullptr;
  jclass result = nullptr;      // ai.kazeia.GenerateResult
  jclass byte_array = nullptr;  // byte[], the element type of the result's tool calls
  jmethodID result_ctor = nullptr;
  jmethodID on_piece = nullptr;     // ai.kazeia.Session$PieceSink.onPiece(byte[])
  jmethodID on_progress = nullptr;  // ai.kazeia.Session$WarmUpListener.onProgress(long, long)
};
JavaIds ids;

kz_engine* as_engine(jlong h) {
  return reinterpret_cast<kz_engine*>(static_cast<intptr_t>(h));
}
kz_session* as_session(jlong h) {
  return reinterpret_cast<kz_session*>(static_cast<intptr_t>(h));
}
jlong as_handle(void* p) {
  return static_cast<jlong>(reinterpret_cast<intptr_t>(p));
}

jbyteArray to_bytes(JNIEnv* env, const char* data, size_t size) {
  if (size > static_cast<size_t>(INT_MAX)) throw std::bad_alloc();
  jbyteArray out = env->NewByteArray(static_cast<jsize>(size));
  if (out && size > 0) {
    env->SetByteArrayRegion(out, 0, static_cast<jsize>(size), reinterpret_cast<const jbyte*>(data));
  }
  return out;  // null with OutOfMemoryError pending on failure
}

void throw_kazeia(JNIEnv* env, int status, const std::string& message) {
  jbyteArray bytes = to_bytes(env, message.data(), message.size());
  if (!bytes) return;
  auto exception = static_cast<jthrowable>(
      env->NewObject(ids.exception, ids.exception_ctor, static_cast<jint>(status), bytes));
  env->DeleteLocalRef(bytes);
  if (exception) env->Throw(exception);
}

// Throws for a failed C call and frees its message; true when the call succeeded. Takes the
// message by address: check(env, kz_x(..., &error), &error) reads it only after the call ran.
bool check(JNIEnv* env, kz_status status, char** error) {
  if (status == KZ_OK) return true;
  std::string message = *error ? *error : kz_status_name(status);
  kz_string_free(*error);
  *error = nullptr;
  throw_kazeia(env, status, message);
  return false;
}

// Runs a native method's body; C++ exceptions (only allocation failures are expected here)
// become Java exceptions instead of unwinding into the JVM.
template <class T, class Body>
T guarded(JNIEnv* env, T on_failure, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    env->ExceptionClear();
    throw_kazeia(env, KZ_ERR_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    env->ExceptionClear();
    throw_kazeia(env, KZ_ERR_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    env->ExceptionClear();
    throw_kazeia(env, KZ_ERR_INTERNAL, "internal error: unknown exception");
  }
  return on_failure;
}

// UTF-16 to UTF-8. Surrogate pairs become one 4-byte sequence; a lone surrogate is written in its
// 3-byte form, which is not valid UTF-8, so the engine rejects the text with its own error rather
// than the text being silently altered.
std::string to_utf8(JNIEnv* env, jstring s) {
  const jsize n = env->GetStringLength(s);
  std::vector<jchar> units(static_cast<size_t>(n));
  env->GetStringRegion(s, 0, n, units.data());
  std::string out;
  out.reserve(units.size() * 3);
  for (size_t i = 0; i < units.size(); ++i) {
    uint32_t c = units[i];
    if (c >= 0xD800 && c <= 0xDBFF && i + 1 < units.size() && units[i + 1] >= 0xDC00 &&
        units[i + 1] <= 0xDFFF) {
      c = 0x10000 + ((c - 0xD800) << 10) + (units[i + 1] - 0xDC00);
      ++i;
    }
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

std::optional<std::string> to_utf8_or_null(JNIEnv* env, jstring s) {
  if (!s) return std::nullopt;
  return to_utf8(env, s);
}

const char* c_str_or_null(const std::optional<std::string>& s) {
  return s ? s->c_str() : nullptr;
}

// A String[] as UTF-8 strings (null elements stay null); one local ref alive at a time.
std::vector<std::optional<std::string>> to_utf8_array(JNIEnv* env, jobjectArray array) {
  std::vector<std::optional<std::string>> out;
  if (!array) return out;
  const jsize n = env->GetArrayLength(array);
  out.reserve(static_cast<size_t>(n));
  for (jsize i = 0; i < n; ++i) {
    auto element = static_cast<jstring>(env->GetObjectArrayElement(array, i));
    out.push_back(to_utf8_or_null(env, element));
    env->DeleteLocalRef(element);
  }
  return out;
}

// A conversation from Native.generate's flattened arrays (Native.java says how), as the
// kz_chat_message array a C caller would pass; it owns the strings the messages point to.
struct History {
  std::vector<std::optional<std::string>> strings, call_strings;
  std::vector<kz_tool_call> calls;
  std::vector<kz_chat_message> messages;
};

History read_history(JNIEnv* env, jobjectArray messages, jintArray tool_call_counts,
                     jobjectArray tool_calls) {
  History h;
  h.strings = to_utf8_array(env, messages);
  h.call_strings = to_utf8_array(env, tool_calls);
  h.messages.resize(h.strings.size() / kMessageFields);
  h.calls.resize(h.call_strings.size() / kToolCallFields);
  std::vector<jint> counts(h.messages.size());
  if (!counts.empty()) {  // Session.java always sends one count per message
    if (!tool_call_counts || env->GetArrayLength(tool_call_counts) != jsize(counts.size()))
      throw std::logic_error("Native.generate: one tool-call count per message expected");
    env->GetIntArrayRegion(tool_call_counts, 0, jsize(counts.size()), counts.data());
  }
  size_t next_call = 0;
  for (size_t i = 0; i < h.messages.size(); ++i) {
    const auto* fields = &h.strings[kMessageFields * i];
    kz_chat_message& m = h.messages[i];
    m.struct_size = sizeof m;
    m.role = c_str_or_null(fields[0]);
    m.content = c_str_or_null(fields[1]);
    m.reasoning_content = c_str_or_null(fields[2]);
    m.tool_call_id = c_str_or_null(fields[3]);
    m.name = c_str_or_null(fields[4]);
    const size_t n_calls = static_cast<size_t>(std::max<jint>(0, counts[i]));
    if (n_calls > h.calls.size() - next_call)
      throw std::logic_error("Native.generate: more tool calls counted than given");
    m.tool_calls = h.calls.data() + next_call;
    m.n_tool_calls = n_calls;
    for (size_t k = next_call; k < next_call + n_calls; ++k) {
      const auto* call = &h.call_strings[kToolCallFields * k];
      h.calls[k] = {c_str_or_null(call[0]), c_str_or_null(call[1]), c_str_or_null(call[2])};
    }
    next_call += n_calls;
  }
  return h;
}

// The first message holding a NUL character: the C API would see its text end there, so it is
// refused as the engine refuses one in C++ ("message N: NUL byte").
std::optional<size_t> message_with_nul(const History& h) {
  for (size_t i = 0; i < h.strings.size(); ++i)
    if (h.strings[i] && h.strings[i]->find('\0') != std::string::npos) return i / kMessageFields;
  return std::nullopt;
}

// The streaming callback's context: the Java sink is called on the generating thread, which is
// the thread that called Native.generate, so `env` is valid throughout.
struct Stream {
  JNIEnv* env;
  jobject sink;
};

int stream_piece(const char* piece, size_t len, void* user_data) {
  auto* stream = static_cast<Stream*>(user_data);
  JNIEnv* env = stream->env;
  if (len > static_cast<size_t>(INT_MAX)) return 0;
  jbyteArray bytes = env->NewByteArray(static_cast<jsize>(len));
  if (!bytes) return 0;  // OutOfMemoryError pending: stop, Java sees it when generate returns
  env->SetByteArrayRegion(bytes, 0, static_cast<jsize>(len), reinterpret_cast<const jbyte*>(piece));
  const jboolean go = env->CallBooleanMethod(stream->sink, ids.on_piece, bytes);
  env->DeleteLocalRef(bytes);  // one piece per token: without this a long turn exhausts the frame
  if (env->ExceptionCheck()) return 0;  // the listener threw: stop and let it propagate
  return go ? 1 : 0;
}

jbyteArray string_bytes(JNIEnv* env, const char* s) {
  return to_bytes(env, s ? s : "", s ? std::strlen(s) : 0);
}

// The parsed calls as byte[3 * n]: the id, name and arguments of each in turn (Java decodes
// them). One element's local ref alive at a time.
jobjectArray tool_call_bytes(JNIEnv* env, const kz_generate_result& r) {
  if (r.n_tool_calls > static_cast<size_t>(INT_MAX / 3)) throw std::bad_alloc();
  jobjectArray out =
      env->NewObjectArray(static_cast<jsize>(3 * r.n_tool_calls), ids.byte_array, nullptr);
  for (size_t k = 0; out && k < r.n_tool_calls; ++k) {
    const kz_tool_call& call = r.tool_calls[k];
    const char* const fields[] = {call.id, call.name, call.arguments};
    for (jsize f = 0; f < 3; ++f) {
      jbyteArray bytes = string_bytes(env, fields[f]);
      if (!bytes) {  // OutOfMemoryError pending
        env->DeleteLocalRef(out);
        return nullptr;
      }
      env->SetObjectArrayElement(out, static_cast<jsize>(3 * k) + f, bytes);
      env->DeleteLocalRef(bytes);
    }
  }
  return out;
}

jobject make_result(JNIEnv* env, const kz_generate_result& r) {
  if (r.n_tokens > static_cast<size_t>(INT_MAX)) throw std::bad_alloc();
  // Each step runs only if the previous one succeeded: after a failure an OutOfMemoryError is
  // pending, and only the deletions below are allowed.
  jbyteArray text = to_bytes(env, r.text, r.text_len);
  jintArray tokens = text ? env->NewIntArray(static_cast<jsize>(r.n_tokens)) : nullptr;
  if (tokens) {
    env->SetIntArrayRegion(tokens, 0, static_cast<jsize>(r.n_tokens),
                           reinterpret_cast<const jint*>(r.tokens));
  }
  jbyteArray content = tokens ? string_bytes(env, r.content) : nullptr;
  jbyteArray reasoning = content ? string_bytes(env, r.reasoning) : nullptr;
  jobjectArray calls = reasoning ? tool_call_bytes(env, r) : nullptr;
  jobject result =
      calls ? env->NewObject(ids.result, ids.result_ctor, text, tokens,
                             static_cast<jint>(r.stop_reason), r.prompt_tokens, r.cached_tokens,
                             r.prefill_tokens, r.ttft_s, r.prefill_s, r.decode_s, content,
                             reasoning, calls, static_cast<jboolean>(r.tool_call_malformed != 0),
                             static_cast<jlong>(r.spec_passes), static_cast<jlong>(r.spec_drafted),
                             static_cast<jlong>(r.spec_accepted),
                             static_cast<jlong>(r.dropped_messages))
            : nullptr;
  for (jobject ref :
       {jobject(text), jobject(tokens), jobject(content), jobject(reasoning), jobject(calls)}) {
    if (ref) env->DeleteLocalRef(ref);
  }
  return result;
}

jclass global_class(JNIEnv* env, const char* name) {
  jclass local = env->FindClass(name);
  if (!local) return nullptr;
  auto global = static_cast<jclass>(env->NewGlobalRef(local));
  env->DeleteLocalRef(local);
  return global;
}

}  // namespace

extern "C" {

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void*) {
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_6) != JNI_OK) return JNI_ERR;
  ids.exception = global_class(env, "ai/kazeia/KazeiaException");
  if (!ids.exception) return JNI_ERR;
  ids.exception_ctor = env->GetMethodID(ids.exception, "<init>", "(I[B)V");
  ids.result = global_class(env, "ai/kazeia/GenerateResult");
  if (!ids.exception_ctor || !ids.result) return JNI_ERR;
  ids.result_ctor = env->GetMethodID(ids.result, "<init>", "([B[IIJJJDDD[B[B[[BZJJJJ)V");
  ids.byte_array = global_class(env, "[B");
  jclass sink = env->FindClass("ai/kazeia/Session$PieceSink");
  if (!ids.result_ctor || !ids.byte_array || !sink) return JNI_ERR;
  ids.on_piece = env->GetMethodID(sink, "onPiece", "([B)Z");
  env->DeleteLocalRef(sink);
  jclass listener = env->FindClass("ai/kazeia/Session$WarmUpListener");
  if (!ids.on_piece || !listener) return JNI_ERR;
  ids.on_progress = env->GetMethodID(listener, "onProgress", "(JJ)V");
  env->DeleteLocalRef(listener);
  if (!ids.on_progress) return JNI_ERR;
  if (kz_api_version() != KAZEIA_API_VERSION) {
    env->FatalError("libkazeia_jni: libkazeia has another KAZEIA_API_VERSION");
  }
  return JNI_VERSION_1_6;
}

JNIEXPORT jdoubleArray JNICALL Java_ai_kazeia_Native_defaults(JNIEnv* env, jclass) {
  const kz_session_params s = kz_session_params_default();
  const kz_generate_params g = kz_generate_params_default();
  // The order is Native.java's index constants.
  const jdouble values[] = {
      static_cast<jdouble>(s.n_ctx),
      static_cast<jdouble>(s.n_threads),
      static_cast<jdouble>(s.checkpoint_interval),
      static_cast<jdouble>(s.checkpoint_budget_bytes),
      g.temperature,
      static_cast<jdouble>(g.top_k),
      g.top_p,
      g.min_p,
      g.repeat_penalty,
      static_cast<jdouble>(g.repeat_last_n),
      g.presence_penalty,
      static_cast<jdouble>(g.seed),
      static_cast<jdouble>(g.max_tokens),
      static_cast<jdouble>(g.enable_thinking),
      static_cast<jdouble>(g.add_generation_prompt),
      static_cast<jdouble>(g.reuse_prefix),
      static_cast<jdouble>(s.prefill_min_tokens),
      static_cast<jdouble>(g.max_draft),
      static_cast<jdouble>(s.device_layers),
  };
  const jsize n = sizeof values / sizeof values[0];
  jdoubleArray out = env->NewDoubleArray(n);
  if (out) env->SetDoubleArrayRegion(out, 0, n, values);
  return out;
}

JNIEXPORT jint JNICALL Java_ai_kazeia_Native_apiVersion(JNIEnv*, jclass) {
  return kz_api_version();
}

JNIEXPORT jlong JNICALL Java_ai_kazeia_Native_engineLoad(JNIEnv* env, jclass, jstring path) {
  return guarded<jlong>(env, 0, [&]() -> jlong {
    const std::string p = to_utf8(env, path);
    kz_engine* engine = nullptr;
    char* error = nullptr;
    if (!check(env, kz_engine_load(p.c_str(), &engine, &error), &error)) return 0;
    return as_handle(engine);
  });
}

JNIEXPORT void JNICALL Java_ai_kazeia_Native_engineFree(JNIEnv*, jclass, jlong engine) {
  kz_engine_free(as_engine(engine));
}

JNIEXPORT jlong JNICALL Java_ai_kazeia_Native_sessionNew(
    JNIEnv* env, jclass, jlong engine, jlong n_ctx, jint n_threads, jstring k_type, jstring v_type,
    jstring backend, jlong checkpoint_interval, jlong checkpoint_budget_bytes, jstring op_filter,
    jstring cache_dir, jstring prefill_device, jstring decode_device, jlong prefill_min_tokens,
    jstring repack, jint context_overflow, jlong device_layers) {
  return guarded<jlong>(env, 0, [&]() -> jlong {
    const auto k = to_utf8_or_null(env, k_type);
    const auto v = to_utf8_or_null(env, v_type);
    const auto b = to_utf8_or_null(env, backend);
    const auto filter = to_utf8_or_null(env, op_filter);
    const auto cache = to_utf8_or_null(env, cache_dir);
    const auto prefill = to_utf8_or_null(env, prefill_device);
    const auto decode = to_utf8_or_null(env, decode_device);
    const auto repack_mode = to_utf8_or_null(env, repack);
    kz_session_params p = kz_session_params_default();
    p.n_ctx = n_ctx;
    p.n_threads = n_threads;
    p.k_type = c_str_or_null(k);
    p.v_type = c_str_or_null(v);
    p.backend = c_str_or_null(b);
    p.checkpoint_interval = checkpoint_interval;
    p.checkpoint_budget_bytes = static_cast<uint64_t>(checkpoint_budget_bytes);
    p.op_filter = c_str_or_null(filter);
    p.cache_dir = c_str_or_null(cache);
    p.prefill_device = c_str_or_null(prefill);
    p.decode_device = c_str_or_null(decode);
    p.prefill_min_tokens = prefill_min_tokens;
    p.repack = c_str_or_null(repack_mode);
    p.context_overflow = context_overflow;
    p.device_layers = device_layers;
    kz_session* session = nullptr;
    char* error = nullptr;
    if (!check(env, kz_session_new(as_engine(engine), &p, &session, &error), &error)) return 0;
    return as_handle(session);
  });
}

JNIEXPORT void JNICALL Java_ai_kazeia_Native_sessionFree(JNIEnv*, jclass, jlong session) {
  kz_session_free(as_session(session));
}

JNIEXPORT jobject JNICALL Java_ai_kazeia_Native_generate(
    JNIEnv* env, jclass, jlong session, jobjectArray messages, jintArray tool_call_counts,
    jobjectArray tool_calls, jintArray prompt, jfloat temperature, jint top_k, jfloat top_p,
    jfloat min_p, jfloat repeat_penalty, jint repeat_last_n, jfloat presence_penalty, jlong seed,
    jint max_tokens, jobjectArray stop, jboolean enable_thinking, jboolean add_generation_prompt,
    jboolean reuse_prefix, jstring tools, jstring speculative, jint max_draft, jobject sink) {
  return guarded<jobject>(env, nullptr, [&]() -> jobject {
    // Either a conversation or token ids. Messages arrive flattened (Native.java says how) and
    // go through kz_generate_chat, as a C caller's kz_chat_message array would.
    std::vector<int32_t> tokens;
    if (prompt) {
      tokens.resize(static_cast<size_t>(env->GetArrayLength(prompt)));
      env->GetIntArrayRegion(prompt, 0, static_cast<jsize>(tokens.size()),
                             reinterpret_cast<jint*>(tokens.data()));
    }
    const History history = read_history(env, messages, tool_call_counts, tool_calls);
    if (const auto at = message_with_nul(history)) {
      throw_kazeia(env, KZ_ERR_ENGINE, "message " + std::to_string(*at) + ": NUL byte");
      return nullptr;
    }
    const auto stop_strings = to_utf8_array(env, stop);
    std::vector<const char*> stop_ptrs;
    for (const auto& s : stop_strings) stop_ptrs.push_back(c_str_or_null(s));
    const auto tools_json = to_utf8_or_null(env, tools);
    const auto draft_source = to_utf8_or_null(env, speculative);

    kz_generate_params p = kz_generate_params_default();
    p.temperature = temperature;
    p.top_k = top_k;
    p.top_p = top_p;
    p.min_p = min_p;
    p.repeat_penalty = repeat_penalty;
    p.repeat_last_n = repeat_last_n;
    p.presence_penalty = presence_penalty;
    p.seed = static_cast<uint64_t>(seed);
    p.max_tokens = max_tokens;
    p.stop = stop_ptrs.data();
    p.n_stop = stop_ptrs.size();
    p.enable_thinking = enable_thinking;
    p.add_generation_prompt = add_generation_prompt;
    p.reuse_prefix = reuse_prefix;
    p.tools = c_str_or_null(tools_json);
    p.speculative = c_str_or_null(draft_source);
    p.max_draft = max_draft;

    Stream stream{env, sink};
    kz_generate_result r{};
    r.struct_size = sizeof r;
    char* error = nullptr;
    const kz_token_callback callback = sink ? stream_piece : nullptr;
    const kz_status status =
        prompt ? kz_generate_tokens(as_session(session), tokens.data(), tokens.size(), &p, callback,
                                    &stream, &r, &error)
               : kz_generate_chat(as_session(session), history.messages.data(),
                                  history.messages.size(), &p, callback, &stream, &r, &error);
    if (env->ExceptionCheck()) {  // thrown by the listener: it wins over any C error
      kz_string_free(error);
      kz_result_free(&r);
      return nullptr;
    }
    if (!check(env, status, &error)) return nullptr;
    jobject result = nullptr;
    try {
      result = make_result(env, r);
    } catch (...) {
      kz_result_free(&r);
      throw;
    }
    kz_result_free(&r);
    return result;
  });
}

JNIEXPORT void JNICALL Java_ai_kazeia_Native_cancel(JNIEnv*, jclass, jlong session) {
  kz_session_cancel(as_session(session));
}

JNIEXPORT void JNICALL Java_ai_kazeia_Native_reset(JNIEnv* env, jclass, jlong session) {
  char* error = nullptr;
  check(env, kz_session_reset(as_session(session), &error), &error);
}

// The listener runs on the calling thread, so `env` is valid throughout; once it has thrown, the
// remaining layers are not reported and the exception reaches Java when warmUp returns.
JNIEXPORT void JNICALL Java_ai_kazeia_Native_warmUp(JNIEnv* env, jclass, jlong session,
                                                    jobject listener) {
  struct Report {
    JNIEnv* env;
    jobject listener;
  } report{env, listener};
  auto on_layer = [](int64_t done, int64_t total, void* user_data) {
    auto* r = static_cast<Report*>(user_data);
    if (!r->listener || r->env->ExceptionCheck()) return;
    r->env->CallVoidMethod(r->listener, ids.on_progress, static_cast<jlong>(done),
                           static_cast<jlong>(total));
  };
  char* error = nullptr;
  const kz_status status = kz_session_warm_up(as_session(session), on_layer, &report, &error);
  if (env->ExceptionCheck()) {
    kz_string_free(error);
    return;
  }
  check(env, status, &error);
}

JNIEXPORT jlong JNICALL Java_ai_kazeia_Native_nTokens(JNIEnv*, jclass, jlong session) {
  return static_cast<jlong>(kz_session_n_tokens(as_session(session)));
}

JNIEXPORT jbyteArray JNICALL Java_ai_kazeia_Native_saveState(JNIEnv* env, jclass, jlong session) {
  return guarded<jbyteArray>(env, nullptr, [&]() -> jbyteArray {
    uint8_t* data = nullptr;
    size_t size = 0;
    char* error = nullptr;
    if (!check(env, kz_session_save_state(as_session(session), &data, &size, &error), &error)) {
      return nullptr;
    }
    if (size > static_cast<size_t>(INT_MAX)) {
      kz_buffer_free(data);
      char message[128];
      std::snprintf(message, sizeof message,
                    "saveState: the state image (%zu bytes) is too large for a Java array; "
                    "save it to a file",
                    size);
      throw_kazeia(env, KZ_ERR_INVALID_ARGUMENT, message);
      return nullptr;
    }
    jbyteArray out = to_bytes(env, reinterpret_cast<const char*>(data), size);
    kz_buffer_free(data);
    return out;
  });
}

JNIEXPORT void JNICALL Java_ai_kazeia_Native_loadState(JNIEnv* env, jclass, jlong session,
                                                       jbyteArray image) {
  guarded<int>(env, 0, [&] {
    const jsize n = env->GetArrayLength(image);
    std::vector<uint8_t> bytes(static_cast<size_t>(n));
    env->GetByteArrayRegion(image, 0, n, reinterpret_cast<jbyte*>(bytes.data()));
    char* error = nullptr;
    check(env, kz_session_load_state(as_session(session), bytes.data(), bytes.size(), &error),
          &error);
    return 0;
  });
}

JNIEXPORT void JNICALL Java_ai_kazeia_Native_saveStateFile(JNIEnv* env, jclass, jlong session,
                                                           jstring path) {
  guarded<int>(env, 0, [&] {
    const std::string p = to_utf8(env, path);
    char* error = nullptr;
    check(env, kz_session_save_state_file(as_session(session), p.c_str(), &error), &error);
    return 0;
  });
}

JNIEXPORT void JNICALL Java_ai_kazeia_Native_loadStateFile(JNIEnv* env, jclass, jlong session,
                                                           jstring path) {
  guarded<int>(env, 0, [&] {
    const std::string p = to_utf8(env, path);
    char* error = nullptr;
    check(env, kz_session_load_state_file(as_session(session), p.c_str(), &error), &error);
    return 0;
  });
}

}  // extern "C"
