/* The C API (include/kazeia.h) from plain C99, on fixture models with random weights: the text is
 * gibberish, so the checks are on token counts, stop reasons, cached tokens and equality between
 * runs (greedy sampling). Usage: test_c_api <model.gguf> <other-model.gguf> [<chat-model.gguf>]
 * (the bundled chat model: the two-step tool conversation in its Qwen3 template too)
 */
#define _POSIX_C_SOURCE 200809L /* pthreads, mkstemp */

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "c_checks.h"
#include "kazeia.h"

/* Checks that a call fails with `status` and a message containing `needle`. */
static void expect_error(const char* what, kz_status got, kz_status want, char* error,
                         const char* needle) {
  if (got != want) {
    fprintf(stderr, "%s: status %s, expected %s (%s)\n", what, kz_status_name(got),
            kz_status_name(want), error ? error : "no message");
    ++failures;
  } else if (!error || !strstr(error, needle)) {
    fprintf(stderr, "%s: message \"%s\" does not contain \"%s\"\n", what, error ? error : "(null)",
            needle);
    ++failures;
  } else if (strchr(error, '\n')) {
    fprintf(stderr, "%s: message is not one line: \"%s\"\n", what, error);
    ++failures;
  } else {
    printf("  %s -> %s\n", what, error);
  }
  kz_string_free(error);
}

static const char* model_path;
static const char* other_model_path;

static kz_session* new_session(kz_engine* engine) {
  kz_session_params params = kz_session_params_default();
  kz_session* session = NULL;
  params.n_ctx = 1024;
  params.n_threads = 2;
  REQUIRE_OK(kz_session_new(engine, &params, &session, ERR));
  return session;
}

static kz_generate_params greedy(int max_tokens) {
  kz_generate_params params = kz_generate_params_default();
  params.temperature = 0;
  params.max_tokens = max_tokens;
  return params;
}

static kz_generate_result empty_result(void) {
  kz_generate_result result;
  memset(&result, 0, sizeof result);
  result.struct_size = sizeof result;
  return result;
}

static int same_tokens(const kz_generate_result* a, const kz_generate_result* b) {
  return a->n_tokens == b->n_tokens &&
         (a->n_tokens == 0 || memcmp(a->tokens, b->tokens, a->n_tokens * sizeof(int32_t)) == 0);
}

/* ---- callbacks ---- */

typedef struct {
  char text[8192];
  size_t len;
  int pieces;
  int stop_after; /* return 0 once this many pieces were seen; 0: never */
} Collector;

static int collect(const char* piece, size_t len, void* user_data) {
  Collector* c = (Collector*)user_data;
  CHECK(piece[len] == '\0');
  if (c->len + len < sizeof c->text) {
    memcpy(c->text + c->len, piece, len);
    c->len += len;
    c->text[c->len] = '\0';
  }
  ++c->pieces;
  return c->stop_after == 0 || c->pieces < c->stop_after;
}

/* ---- tests ---- */

static void test_version_and_names(void) {
  printf("version and names\n");
  CHECK(kz_api_version() == KAZEIA_API_VERSION);
  CHECK(strcmp(kz_status_name(KZ_ERR_BUSY), "busy") == 0);
  CHECK(strcmp(kz_stop_reason_name(KZ_STOP_CANCELLED), "cancelled") == 0);
}

static void test_load_errors(void) {
  kz_engine* engine = (kz_engine*)&engine; /* must be reset to NULL on failure */
  char* error = NULL;
  kz_status status;
  printf("load errors\n");
  status = kz_engine_load("/nonexistent/kazeia-missing.gguf", &engine, &error);
  CHECK(engine == NULL);
  expect_error("missing file", status, KZ_ERR_ENGINE, error, "kazeia-missing.gguf");
  status = kz_engine_load(NULL, &engine, &error);
  expect_error("NULL path", status, KZ_ERR_INVALID_ARGUMENT, error, "path");
  status = kz_engine_load(model_path, NULL, &error);
  expect_error("NULL out", status, KZ_ERR_INVALID_ARGUMENT, error, "out");
  /* error may be NULL: the status alone is reported */
  CHECK(kz_engine_load("/nonexistent/x.gguf", &engine, NULL) == KZ_ERR_ENGINE);
}

static void test_multi_turn(kz_engine* engine) {
  kz_session* session = new_session(engine);
  kz_generate_params params = greedy(12);
  kz_generate_result r1 = empty_result(), r2 = empty_result();
  Collector c;
  kz_message turn2[4];
  kz_message turn1[2] = {{"system", "You are terse.", NULL}, {"user", "Hello there!", NULL}};
  params.enable_thinking = 0;
  printf("multi-turn generation\n");

  memset(&c, 0, sizeof c);
  REQUIRE_OK(kz_generate(session, turn1, 2, &params, collect, &c, &r1, ERR));
  printf("  turn 1: prompt %lld, cached %lld, generated %lld, stop %s\n",
         (long long)r1.prompt_tokens, (long long)r1.cached_tokens, (long long)r1.generated_tokens,
         kz_stop_reason_name(r1.stop_reason));
  CHECK(r1.prompt_tokens > 0);
  CHECK(r1.cached_tokens == 0);
  CHECK(r1.prefill_tokens == r1.prompt_tokens);
  CHECK(r1.generated_tokens > 0 && r1.generated_tokens <= 12);
  CHECK(r1.n_tokens == (size_t)r1.generated_tokens);
  CHECK(r1.stop_reason == KZ_STOP_END_OF_TURN || r1.stop_reason == KZ_STOP_MAX_TOKENS);
  CHECK(r1.text != NULL && strlen(r1.text) == r1.text_len);
  CHECK(c.len == r1.text_len && strcmp(c.text, r1.text) == 0); /* streamed == returned */
  CHECK(kz_session_n_tokens(session) > 0);

  turn2[0] = turn1[0];
  turn2[1] = turn1[1];
  turn2[2].role = "assistant";
  turn2[2].content = r1.text;
  turn2[2].reasoning_content = NULL;
  turn2[3].role = "user";
  turn2[3].content = "And then?";
  turn2[3].reasoning_content = NULL;
  REQUIRE_OK(kz_generate(session, turn2, 4, &params, NULL, NULL, &r2, ERR));
  printf("  turn 2: prompt %lld, cached %lld, generated %lld\n", (long long)r2.prompt_tokens,
         (long long)r2.cached_tokens, (long long)r2.generated_tokens);
  CHECK(r2.cached_tokens > 0); /* the prefix of turn 1 was reused */
  CHECK(r2.prompt_tokens > r1.prompt_tokens);
  CHECK(r2.prefill_tokens == r2.prompt_tokens - r2.cached_tokens);

  /* The same from token ids, without chat formatting. */
  {
    kz_generate_result r3 = empty_result();
    REQUIRE_OK(kz_session_reset(session, ERR));
    CHECK(kz_session_n_tokens(session) == 0);
    REQUIRE_OK(kz_generate_tokens(session, r2.tokens, r2.n_tokens, &params, NULL, NULL, &r3, ERR));
    CHECK(r3.prompt_tokens == (int64_t)r2.n_tokens);
    CHECK(r3.generated_tokens > 0);
    kz_result_free(&r3);
  }

  kz_result_free(&r1);
  kz_result_free(&r2);
  CHECK(r1.text == NULL && r1.tokens == NULL && r1.struct_size == sizeof r1);
  kz_result_free(&r1); /* twice is harmless */
  kz_session_free(session);
}

/* The app's library has no test device: "faulty:ENTRIES" is an unknown device here (the faulty
 * device is test support, src/test_support/; tests/runtime/oracle_test.cpp and the CLI tests run
 * it). Device layers reach the engine: the `ref` device given no layer leaves the whole model to
 * the CPU, which answers as a CPU session does. Bad entries are one-line errors naming them. */
static void test_op_filter(kz_engine* engine) {
  kz_message chat[1] = {{"user", "Hello there!", NULL}};
  kz_generate_params params = greedy(12);
  kz_generate_result healthy = empty_result(), routed = empty_result();
  kz_session_params sp = kz_session_params_default();
  kz_session *a = new_session(engine), *c = NULL;
  kz_status status;
  char* error = NULL;
  printf("devices and op filter\n");
  params.enable_thinking = 0;
  sp.n_ctx = 1024;
  sp.n_threads = 2;
  sp.backend = "faulty:swiglu";
  status = kz_session_new(engine, &sp, &c, &error);
  expect_error("test device", status, KZ_ERR_ENGINE, error, "unknown device 'faulty:swiglu'");
  CHECK(c == NULL);
  sp.backend = "ref";
  sp.device_layers = 0;
  REQUIRE_OK(kz_session_new(engine, &sp, &c, ERR));
  REQUIRE_OK(kz_generate(a, chat, 1, &params, NULL, NULL, &healthy, ERR));
  REQUIRE_OK(kz_generate(c, chat, 1, &params, NULL, NULL, &routed, ERR));
  CHECK(same_tokens(&healthy, &routed));
  sp.device_layers = -1;
  kz_result_free(&healthy);
  kz_result_free(&routed);
  kz_session_free(a);
  kz_session_free(c);

  c = NULL;
  sp.op_filter = "swiglu@promt";
  status = kz_session_new(engine, &sp, &c, &error);
  expect_error("bad op filter", status, KZ_ERR_ENGINE, error, "swiglu@promt");
  CHECK(c == NULL);
  sp.op_filter = NULL;
  sp.repack = "sometimes";
  status = kz_session_new(engine, &sp, &c, &error);
  expect_error("bad repack", status, KZ_ERR_ENGINE, error, "sometimes");
  CHECK(c == NULL);
  sp.repack = NULL;
  sp.device_layers = -2;
  status = kz_session_new(engine, &sp, &c, &error);
  expect_error("bad device layers", status, KZ_ERR_ENGINE, error, "invalid device layers -2");
  CHECK(c == NULL);
  sp.device_layers = -1;
  sp.n_threads = 100000; /* once: a hang, the pool never joining the threads it had started */
  status = kz_session_new(engine, &sp, &c, &error);
  expect_error("absurd thread count", status, KZ_ERR_ENGINE, error, "invalid thread count 100000");
  CHECK(c == NULL);
  sp.n_threads = 2;
  sp.n_ctx = 2000000000; /* once: zero-filling tens of GB until the OOM killer came */
  status = kz_session_new(engine, &sp, &c, &error);
  expect_error("absurd context", status, KZ_ERR_ENGINE, error, "GiB of state; this machine has");
  CHECK(c == NULL);
}

typedef struct {
  kz_session* session;
  int pieces;
  kz_status nested_status;
  char* nested_error;
} Canceller;

/* Cancels through the API at the second piece, and tries a (refused) nested call first. */
static int cancel_at_second(const char* piece, size_t len, void* user_data) {
  Canceller* c = (Canceller*)user_data;
  (void)piece;
  (void)len;
  if (++c->pieces == 1) {
    c->nested_status = kz_session_reset(c->session, &c->nested_error);
  } else if (c->pieces == 2) {
    kz_session_cancel(c->session);
  }
  return 1;
}

typedef struct {
  kz_session* session;
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  int first_piece_seen, cancelled;
  int pieces;
} CrossThread;

typedef struct {
  int calls;
  int64_t last_done, last_total, previous_done;
  int in_order;
} WarmUpReport;

static void record_layer(int64_t done, int64_t total, void* user_data) {
  WarmUpReport* r = (WarmUpReport*)user_data;
  if (r->calls > 0 && done <= r->previous_done) r->in_order = 0;
  r->previous_done = done;
  r->last_done = done;
  r->last_total = total;
  ++r->calls;
}

/* Warm-up reports every layer, in order, to the end, and leaves the conversation alone. */
static void test_warm_up(kz_engine* engine) {
  kz_session *warm = new_session(engine), *cold = new_session(engine);
  kz_message chat[1] = {{"user", "Hello there!", NULL}};
  kz_generate_params params = greedy(8);
  kz_generate_result a = empty_result(), b = empty_result();
  WarmUpReport report;
  memset(&report, 0, sizeof report);
  report.in_order = 1;
  printf("warm-up\n");
  REQUIRE_OK(kz_session_warm_up(warm, record_layer, &report, ERR));
  CHECK(report.calls > 2);
  CHECK(report.in_order);
  CHECK(report.last_done == report.last_total);
  CHECK(report.last_total == report.calls); /* layers + 1, the last call being the end */
  REQUIRE_OK(kz_session_warm_up(warm, NULL, NULL, ERR));
  CHECK(kz_session_n_tokens(warm) == 0);
  REQUIRE_OK(kz_generate(warm, chat, 1, &params, NULL, NULL, &a, ERR));
  REQUIRE_OK(kz_generate(cold, chat, 1, &params, NULL, NULL, &b, ERR));
  CHECK(same_tokens(&a, &b));
  CHECK(a.cached_tokens == 0);
  kz_result_free(&a);
  kz_result_free(&b);
  kz_session_free(warm);
  kz_session_free(cold);
  CHECK(kz_session_warm_up(NULL, NULL, NULL, NULL) == KZ_ERR_INVALID_ARGUMENT);
}

static void* cancel_thread(void* arg) {
  CrossThread* t = (CrossThread*)arg;
  pthread_mutex_lock(&t->mutex);
  while (!t->first_piece_seen) pthread_cond_wait(&t->cond, &t->mutex);
  kz_session_cancel(t->session);
  t->cancelled = 1;
  pthread_cond_broadcast(&t->cond);
  pthread_mutex_unlock(&t->mutex);
  return NULL;
}

/* Holds generation at the first piece until the other thread has cancelled. */
static int wait_for_cancel(const char* piece, size_t len, void* user_data) {
  CrossThread* t = (CrossThread*)user_data;
  (void)piece;
  (void)len;
  ++t->pieces;
  pthread_mutex_lock(&t->mutex);
  t->first_piece_seen = 1;
  pthread_cond_broadcast(&t->cond);
  while (!t->cancelled) pthread_cond_wait(&t->cond, &t->mutex);
  pthread_mutex_unlock(&t->mutex);
  return 1;
}

static void test_cancel(kz_engine* engine) {
  kz_session* session = new_session(engine);
  kz_generate_params params = greedy(64);
  kz_generate_result r = empty_result();
  Collector c;
  Canceller canceller;
  kz_message chat[1] = {{"user", "Count to one hundred.", NULL}};
  printf("cancel\n");

  /* The callback's return value. */
  memset(&c, 0, sizeof c);
  c.stop_after = 3;
  REQUIRE_OK(kz_generate(session, chat, 1, &params, collect, &c, &r, ERR));
  printf("  callback stop: generated %lld, stop %s\n", (long long)r.generated_tokens,
         kz_stop_reason_name(r.stop_reason));
  if (r.stop_reason != KZ_STOP_END_OF_TURN) { /* unless the model ended its turn first */
    CHECK(r.stop_reason == KZ_STOP_CANCELLED);
    CHECK(c.pieces == 3);
  }
  CHECK(r.generated_tokens <= 64);
  kz_result_free(&r);

  /* kz_session_cancel from inside the callback; a nested call on the session is refused. */
  memset(&canceller, 0, sizeof canceller);
  canceller.session = session;
  REQUIRE_OK(kz_generate(session, chat, 1, &params, cancel_at_second, &canceller, &r, ERR));
  printf("  cancel in callback: generated %lld, stop %s\n", (long long)r.generated_tokens,
         kz_stop_reason_name(r.stop_reason));
  if (r.stop_reason != KZ_STOP_END_OF_TURN) {
    CHECK(r.stop_reason == KZ_STOP_CANCELLED);
    CHECK(canceller.pieces == 2);
  }
  expect_error("nested call", canceller.nested_status, KZ_ERR_BUSY, canceller.nested_error,
               "in use");
  kz_result_free(&r);

  /* kz_session_cancel from another thread. */
  {
    CrossThread t;
    pthread_t thread;
    memset(&t, 0, sizeof t);
    t.session = session;
    pthread_mutex_init(&t.mutex, NULL);
    pthread_cond_init(&t.cond, NULL);
    CHECK(pthread_create(&thread, NULL, cancel_thread, &t) == 0);
    REQUIRE_OK(kz_generate(session, chat, 1, &params, wait_for_cancel, &t, &r, ERR));
    pthread_join(thread, NULL);
    printf("  cancel from a thread: generated %lld, stop %s\n", (long long)r.generated_tokens,
           kz_stop_reason_name(r.stop_reason));
    if (r.stop_reason != KZ_STOP_END_OF_TURN) {
      CHECK(r.stop_reason == KZ_STOP_CANCELLED);
      CHECK(t.pieces == 1);
    }
    pthread_cond_destroy(&t.cond);
    pthread_mutex_destroy(&t.mutex);
    kz_result_free(&r);
  }

  /* A cancel does not outlive its call: the next one runs normally. */
  REQUIRE_OK(kz_generate(session, chat, 1, &params, NULL, NULL, &r, ERR));
  CHECK(r.stop_reason != KZ_STOP_CANCELLED);
  kz_result_free(&r);
  kz_session_cancel(NULL); /* ignored */
  kz_session_free(session);
}

/* Speculative decoding: the same greedy tokens, its counts reported, bad values refused. */
static void test_speculative(kz_engine* engine) {
  const kz_message chat[] = {{"user", "one two three, one two three, one two three", NULL}};
  kz_session* plain = new_session(engine);
  kz_session* spec = new_session(engine);
  kz_generate_params params = greedy(24);
  kz_generate_result a = empty_result(), b = empty_result(), r = empty_result();
  REQUIRE_OK(kz_generate(plain, chat, 1, &params, NULL, NULL, &a, ERR));
  params.speculative = "ngram";
  params.max_draft = 3;
  REQUIRE_OK(kz_generate(spec, chat, 1, &params, NULL, NULL, &b, ERR));
  CHECK(same_tokens(&a, &b));
  CHECK(a.spec_passes == 0 && a.spec_drafted == 0);
  CHECK(b.spec_accepted <= b.spec_drafted);
  CHECK(b.spec_drafted <= 3 * b.spec_passes);
  char* error = NULL;
  params.speculative = "eagle";
  kz_status status = kz_generate(spec, chat, 1, &params, NULL, NULL, &r, &error);
  expect_error("unknown draft source", status, KZ_ERR_ENGINE, error,
               "unknown draft source 'eagle'");
  params.speculative = "ngram";
  params.max_draft = 17;
  error = NULL;
  status = kz_generate(spec, chat, 1, &params, NULL, NULL, &r, &error);
  expect_error("max_draft 17", status, KZ_ERR_ENGINE, error, "params->max_draft");
  kz_result_free(&a);
  kz_result_free(&b);
  kz_session_free(plain);
  kz_session_free(spec);
}

static void test_state(kz_engine* engine) {
  kz_session* a = new_session(engine);
  kz_session* b = new_session(engine);
  kz_session* c = new_session(engine);
  kz_generate_params params = greedy(16);
  kz_generate_result r1 = empty_result(), ra = empty_result(), rb = empty_result(),
                     rc = empty_result();
  kz_message chat[3] = {
      {"user", "Tell me a story.", NULL}, {"assistant", NULL, NULL}, {"user", "Go on.", NULL}};
  uint8_t* image = NULL;
  size_t size = 0, n_saved;
  char path[] = "/tmp/kazeia_c_api_state_XXXXXX";
  int fd = mkstemp(path);
  printf("state save / load\n");
  CHECK(fd >= 0);
  close(fd);

  REQUIRE_OK(kz_generate(a, chat, 1, &params, NULL, NULL, &r1, ERR));
  chat[1].content = r1.text;
  REQUIRE_OK(kz_session_save_state(a, &image, &size, ERR));
  REQUIRE_OK(kz_session_save_state_file(a, path, ERR));
  n_saved = kz_session_n_tokens(a);
  CHECK(image != NULL && size > 0 && n_saved > 0);
  printf("  state image: %zu bytes for %zu tokens\n", size, n_saved);

  REQUIRE_OK(kz_generate(a, chat, 3, &params, NULL, NULL, &ra, ERR));
  REQUIRE_OK(kz_session_load_state(b, image, size, ERR));
  CHECK(kz_session_n_tokens(b) == n_saved);
  REQUIRE_OK(kz_generate(b, chat, 3, &params, NULL, NULL, &rb, ERR));
  REQUIRE_OK(kz_session_load_state_file(c, path, ERR));
  REQUIRE_OK(kz_generate(c, chat, 3, &params, NULL, NULL, &rc, ERR));
  remove(path);
  printf("  continuation: original cached %lld, from buffer %lld, from file %lld\n",
         (long long)ra.cached_tokens, (long long)rb.cached_tokens, (long long)rc.cached_tokens);
  CHECK(same_tokens(&ra, &rb));
  CHECK(same_tokens(&ra, &rc));
  /* A restored state holds no prefix checkpoints, so a recurrent model resumes only from its
   * end; turn 2 re-renders turn 1's answer differently (no think block), so nothing is checked
   * on its cached tokens here. The token-level test below extends the state exactly. */
  kz_buffer_free(image);
  image = NULL;

  /* Token level: a prompt extending the saved tokens resumes from the restored state. */
  {
    kz_generate_result g = empty_result(), rd = empty_result(), re = empty_result();
    int32_t* prompt;
    size_t n_prompt, n_state;
    REQUIRE_OK(kz_session_reset(a, ERR));
    REQUIRE_OK(kz_generate_tokens(a, r1.tokens, r1.n_tokens, &params, NULL, NULL, &g, ERR));
    REQUIRE_OK(kz_session_save_state(a, &image, &size, ERR));
    n_state = kz_session_n_tokens(a);
    /* r1's tokens, what was generated from them, then r1's tokens again */
    n_prompt = 2 * r1.n_tokens + g.n_tokens;
    prompt = (int32_t*)malloc(n_prompt * sizeof(int32_t));
    memcpy(prompt, r1.tokens, r1.n_tokens * sizeof(int32_t));
    memcpy(prompt + r1.n_tokens, g.tokens, g.n_tokens * sizeof(int32_t));
    memcpy(prompt + r1.n_tokens + g.n_tokens, r1.tokens, r1.n_tokens * sizeof(int32_t));
    REQUIRE_OK(kz_generate_tokens(a, prompt, n_prompt, &params, NULL, NULL, &rd, ERR));
    REQUIRE_OK(kz_session_reset(b, ERR));
    REQUIRE_OK(kz_session_load_state(b, image, size, ERR));
    REQUIRE_OK(kz_generate_tokens(b, prompt, n_prompt, &params, NULL, NULL, &re, ERR));
    printf("  tokens: state %zu, prompt %zu, cached original %lld, restored %lld\n", n_state,
           n_prompt, (long long)rd.cached_tokens, (long long)re.cached_tokens);
    CHECK(n_state > 0 && rd.cached_tokens == (int64_t)n_state);
    CHECK(re.cached_tokens == rd.cached_tokens);
    CHECK(same_tokens(&rd, &re));
    free(prompt);
    kz_result_free(&g);
    kz_result_free(&rd);
    kz_result_free(&re);
  }

  kz_buffer_free(image);
  kz_result_free(&r1);
  kz_result_free(&ra);
  kz_result_free(&rb);
  kz_result_free(&rc);
  kz_session_free(a);
  kz_session_free(b);
  kz_session_free(c);
}

/* Every bad input fails with a clear message and leaves the session as it was. */
static void test_bad_inputs(kz_engine* engine, kz_engine* other) {
  kz_session* session = new_session(engine);
  kz_session* foreign = new_session(other);
  kz_generate_params params = greedy(8);
  kz_generate_result r0 = empty_result(), r = empty_result();
  kz_message chat[1] = {{"user", "Hi", NULL}};
  kz_message bad_utf8[2] = {{"user", "Hi", NULL}, {"assistant", "caf\xc3", NULL}};
  kz_message bad_role[1] = {{"wizard", "Hi", NULL}};
  kz_message null_role[1] = {{NULL, "Hi", NULL}};
  uint8_t *image = NULL, *foreign_image = NULL;
  size_t size = 0, foreign_size = 0, n0;
  char* error = NULL;
  kz_status status;
  printf("bad inputs\n");

  REQUIRE_OK(kz_generate(session, chat, 1, &params, NULL, NULL, &r0, ERR));
  REQUIRE_OK(kz_session_save_state(session, &image, &size, ERR));
  n0 = kz_session_n_tokens(session);

  status = kz_generate(session, bad_utf8, 2, &params, NULL, NULL, &r, &error);
  expect_error("invalid UTF-8", status, KZ_ERR_ENGINE, error, "message 1: invalid UTF-8");
  CHECK(r.text == NULL); /* a failed call leaves the result empty */
  status = kz_generate(session, bad_role, 1, &params, NULL, NULL, &r, &error);
  expect_error("unknown role", status, KZ_ERR_ENGINE, error, "unknown role 'wizard'");
  status = kz_generate(session, null_role, 1, &params, NULL, NULL, &r, &error);
  expect_error("NULL role", status, KZ_ERR_INVALID_ARGUMENT, error, "messages[0].role");
  status = kz_generate(session, NULL, 0, &params, NULL, NULL, &r, &error);
  expect_error("no messages", status, KZ_ERR_ENGINE, error, "no messages");
  status = kz_generate(NULL, chat, 1, &params, NULL, NULL, &r, &error);
  expect_error("NULL session", status, KZ_ERR_INVALID_ARGUMENT, error, "session");
  {
    kz_generate_params bad = params;
    bad.struct_size = 0;
    status = kz_generate(session, chat, 1, &bad, NULL, NULL, &r, &error);
    expect_error("params without struct_size", status, KZ_ERR_INVALID_ARGUMENT, error,
                 "struct_size");
    bad = params;
    bad.top_p = 0;
    status = kz_generate(session, chat, 1, &bad, NULL, NULL, &r, &error);
    expect_error("top_p 0", status, KZ_ERR_ENGINE, error, "top_p");
  }
  {
    kz_generate_result small = empty_result();
    small.struct_size = 8;
    status = kz_generate(session, chat, 1, &params, NULL, NULL, &small, &error);
    expect_error("result without struct_size", status, KZ_ERR_INVALID_ARGUMENT, error,
                 "struct_size");
  }
  {
    /* A prompt longer than the context. */
    kz_session_params sp = kz_session_params_default();
    kz_session* tiny = NULL;
    char long_text[4096];
    kz_message long_chat[1];
    size_t i;
    for (i = 0; i + 1 < sizeof long_text; ++i) long_text[i] = (char)('a' + i % 26);
    long_text[sizeof long_text - 1] = '\0';
    long_chat[0].role = "user";
    long_chat[0].content = long_text;
    long_chat[0].reasoning_content = NULL;
    sp.n_ctx = 64;
    sp.n_threads = 2;
    REQUIRE_OK(kz_session_new(engine, &sp, &tiny, ERR));
    status = kz_generate(tiny, long_chat, 1, &params, NULL, NULL, &r, &error);
    expect_error("context overflow", status, KZ_ERR_ENGINE, error, "context");
    CHECK(kz_session_n_tokens(tiny) == 0);
    kz_session_free(tiny);
  }
  {
    kz_session_params sp = kz_session_params_default();
    kz_session* s = NULL;
    sp.backend = "quantum";
    status = kz_session_new(engine, &sp, &s, &error);
    expect_error("unknown device", status, KZ_ERR_ENGINE, error, "quantum");
    CHECK(s == NULL);
  }

  /* States: garbage, truncated, corrupted, from another model. */
  status = kz_session_load_state(session, (const uint8_t*)"not a state", 11, &error);
  expect_error("garbage state", status, KZ_ERR_ENGINE, error, "state");
  status = kz_session_load_state(session, image, size / 2, &error);
  expect_error("truncated state", status, KZ_ERR_ENGINE, error, "state");
  image[size - 1] ^= 0x5a;
  status = kz_session_load_state(session, image, size, &error);
  expect_error("corrupted state", status, KZ_ERR_ENGINE, error, "state");
  image[size - 1] ^= 0x5a;
  status = kz_session_load_state_file(session, "/nonexistent/kazeia-state.bin", &error);
  expect_error("missing state file", status, KZ_ERR_ENGINE, error, "kazeia-state.bin");
  REQUIRE_OK(kz_generate(foreign, chat, 1, &params, NULL, NULL, &r, ERR));
  kz_result_free(&r);
  REQUIRE_OK(kz_session_save_state(foreign, &foreign_image, &foreign_size, ERR));
  status = kz_session_load_state(session, foreign_image, foreign_size, &error);
  expect_error("state of another model", status, KZ_ERR_ENGINE, error, "model");
  status = kz_session_load_state(session, NULL, 4, &error);
  expect_error("NULL state", status, KZ_ERR_INVALID_ARGUMENT, error, "data");

  /* Unchanged: same tokens held, and the same turn again reuses them and gives the same text. */
  CHECK(kz_session_n_tokens(session) == n0);
  REQUIRE_OK(kz_generate(session, chat, 1, &params, NULL, NULL, &r, ERR));
  CHECK(r.cached_tokens > 0);
  CHECK(same_tokens(&r, &r0));
  kz_result_free(&r);

  kz_buffer_free(image);
  kz_buffer_free(foreign_image);
  kz_result_free(&r0);
  kz_session_free(foreign);
  kz_session_free(session);
}

/* A session keeps its engine alive. */
/* ---- tool calling ---- */

static const char* const kTools =
    "[{\"type\": \"function\", \"function\": {\"name\": \"get_time\", \"description\": "
    "\"The time in a zone.\", \"parameters\": {\"type\": \"object\", \"properties\": "
    "{\"zone\": {\"type\": \"string\"}}}}}]";

static kz_generate_params tool_params(int max_tokens) {
  kz_generate_params params = greedy(max_tokens);
  params.enable_thinking = 0;
  params.tools = kTools;
  return params;
}

static kz_chat_message chat_message(const char* role, const char* content) {
  kz_chat_message m;
  memset(&m, 0, sizeof m);
  m.struct_size = sizeof m;
  m.role = role;
  m.content = content;
  return m;
}

/* A two-step tool conversation: the model's answer, then a forced tool call and its result. */
/* The call below as the model's template writes it (Qwen3.5's XML-like form, Qwen3's JSON), and
 * how many tokens of step 1's prompt step 2 cannot reuse: with thinking off, Qwen3's generation
 * prompt ends with an empty <think></think> block that its history turns do not have. */
typedef struct {
  const char* call_as_text;
  int64_t not_reused;
} tool_format;
static const char* const kQwen35Call =
    "<tool_call>\n<function=get_time>\n<parameter=zone>\nEurope/Paris\n</parameter>\n"
    "</function>\n</tool_call>";
static const char* const kQwen3Call =
    "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"zone\": \"Europe/Paris\"}}\n"
    "</tool_call>";

static void test_tools(kz_engine* engine, tool_format format) {
  const kz_tool_call call = {"call_1", "get_time", "{\"zone\": \"Europe/Paris\"}"};
  kz_chat_message history[3];
  kz_generate_params params = tool_params(6);
  kz_generate_result r1 = empty_result(), r2 = empty_result(), r3 = empty_result();
  kz_session* session = new_session(engine);
  printf("tools\n");
  history[0] = chat_message("user", "What time is it in Paris?");
  /* Step 1: the model answers (random weights: text, no call). */
  REQUIRE_OK(kz_generate_chat(session, history, 1, &params, NULL, NULL, &r1, ERR));
  CHECK(r1.content != NULL && r1.reasoning != NULL && r1.reasoning[0] == '\0');
  CHECK(r1.n_tool_calls == 0 && r1.tool_call_malformed == 0);
  CHECK(r1.content != NULL && strstr(r1.text, r1.content) != NULL);

  /* Step 2: the system turn with the tools and the user turn are reused. */
  history[1] = chat_message("assistant", "");
  history[1].tool_calls = &call;
  history[1].n_tool_calls = 1;
  history[2] = chat_message("tool", "12:00");
  history[2].tool_call_id = "call_1";
  history[2].name = "get_time";
  REQUIRE_OK(kz_generate_chat(session, history, 3, &params, NULL, NULL, &r2, ERR));
  printf("  step 2: %lld prompt tokens, %lld reused (step 1 prompt: %lld)\n",
         (long long)r2.prompt_tokens, (long long)r2.cached_tokens, (long long)r1.prompt_tokens);
  CHECK(r2.prompt_tokens > r1.prompt_tokens);
  CHECK(r2.cached_tokens >= r1.prompt_tokens - format.not_reused);

  /* The structured call renders as the template's own text: the same turn written out by hand
   * gives the same prompt and the same answer. */
  {
    kz_chat_message by_hand[3];
    kz_session* fresh = new_session(engine);
    memcpy(by_hand, history, sizeof by_hand);
    by_hand[1].tool_calls = NULL;
    by_hand[1].n_tool_calls = 0;
    by_hand[1].content = format.call_as_text;
    REQUIRE_OK(kz_generate_chat(fresh, by_hand, 3, &params, NULL, NULL, &r3, ERR));
    CHECK(r3.prompt_tokens == r2.prompt_tokens);
    CHECK(same_tokens(&r2, &r3));
    kz_session_free(fresh);
  }
  kz_result_free(&r1);
  kz_result_free(&r2);
  kz_result_free(&r3);
  CHECK(r2.content == NULL && r2.tool_calls == NULL && r2.struct_size == sizeof r2);

  /* Errors name what is wrong. */
  {
    char* error = NULL;
    kz_status status;
    kz_generate_params bad = tool_params(2);
    kz_tool_call bad_call = {NULL, "get_time", "{\"zone\": }"};
    bad.tools = "[{\"name\": 1,}]";
    status = kz_generate_chat(session, history, 1, &bad, NULL, NULL, NULL, &error);
    expect_error("bad tools JSON", status, KZ_ERR_ENGINE, error,
                 "tools: line 1, column 13: expected a string key");
    history[1].tool_calls = &bad_call;
    status = kz_generate_chat(session, history, 3, &params, NULL, NULL, NULL, &error);
    expect_error("bad arguments JSON", status, KZ_ERR_ENGINE, error,
                 "messages[1].tool_calls[0].arguments: line 1, column 10");
    history[1].tool_calls = &call;
    history[2].struct_size = 8;
    status = kz_generate_chat(session, history, 3, &params, NULL, NULL, NULL, &error);
    expect_error("mixed struct sizes", status, KZ_ERR_INVALID_ARGUMENT, error, "struct_size");
  }
  kz_session_free(session);
}

/* A program built against the version-1 header: version-1 params and result sizes. It gets what
 * it got before, and nothing is written past its result. */
static void test_version1_caller(kz_engine* engine) {
  const kz_message history[2] = {{"system", "Be brief.", NULL}, {"user", "Hello", NULL}};
  struct {
    kz_generate_result result;
    unsigned char after[64];
  } old_out;
  kz_generate_params old_params = greedy(4), new_params = greedy(4);
  kz_generate_result new_result = empty_result();
  kz_session *a = new_session(engine), *b = new_session(engine);
  size_t i;
  printf("version-1 caller\n");
  old_params.struct_size = offsetof(kz_generate_params, tools);
  memset(&old_out, 0xAB, sizeof old_out);
  old_out.result.struct_size = offsetof(kz_generate_result, content);
  REQUIRE_OK(kz_generate(a, history, 2, &old_params, NULL, NULL, &old_out.result, ERR));
  REQUIRE_OK(kz_generate(b, history, 2, &new_params, NULL, NULL, &new_result, ERR));
  CHECK(old_out.result.prompt_tokens == new_result.prompt_tokens);
  CHECK(same_tokens(&old_out.result, &new_result));
  CHECK(strcmp(old_out.result.text, new_result.text) == 0);
  for (i = offsetof(kz_generate_result, content); i < sizeof old_out; ++i)
    CHECK(((unsigned char*)&old_out)[i] == 0xAB);
  kz_result_free(&old_out.result);
  kz_result_free(&new_result);
  kz_session_free(a);
  kz_session_free(b);
}

static void test_engine_freed_first(kz_engine* engine) {
  kz_session* session = new_session(engine);
  kz_generate_params params = greedy(4);
  kz_generate_result r = empty_result();
  kz_message chat[1] = {{"user", "Still there?", NULL}};
  printf("engine freed before its session\n");
  kz_engine_free(engine);
  REQUIRE_OK(kz_generate(session, chat, 1, &params, NULL, NULL, &r, ERR));
  CHECK(r.generated_tokens > 0);
  kz_result_free(&r);
  kz_session_free(session);
}

int main(int argc, char** argv) {
  kz_engine *engine = NULL, *other = NULL;
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: %s <model.gguf> <other-model.gguf> [<chat-model.gguf>]\n", argv[0]);
    return 2;
  }
  model_path = argv[1];
  other_model_path = argv[2];

  test_version_and_names();
  test_load_errors();
  REQUIRE_OK(kz_engine_load(model_path, &engine, ERR));
  REQUIRE_OK(kz_engine_load(other_model_path, &other, ERR));
  test_multi_turn(engine);
  test_op_filter(engine);
  test_warm_up(engine);
  test_cancel(engine);
  test_speculative(engine);
  test_state(engine);
  test_bad_inputs(engine, other);
  test_tools(engine, (tool_format){kQwen35Call, 1});
  if (argc > 3) { /* the bundled chat model (Qwen3 template): the same two steps */
    kz_engine* chat = NULL;
    REQUIRE_OK(kz_engine_load(argv[3], &chat, ERR));
    /* its empty "<think>\n\n</think>\n\n" is 7 tokens in the rendered prompt */
    test_tools(chat, (tool_format){kQwen3Call, 7});
    kz_engine_free(chat);
  }
  test_version1_caller(engine);
  kz_engine_free(other);
  test_engine_freed_first(engine);

  if (failures) {
    fprintf(stderr, "FAILED: %d check(s)\n", failures);
    return 1;
  }
  printf("all C API checks passed\n");
  return 0;
}
