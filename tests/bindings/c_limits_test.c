/* Limits through the C API (plain C99): a history longer than the context (an error naming the
 * sizes, or KZ_OVERFLOW_DROP_OLDEST_TURNS), absurd parameters, and a caller built against API
 * version 2. Usage: test_c_limits <model.gguf> */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "c_checks.h"
#include "kazeia.h"

enum { kTurns = 12, kMaxTokens = 8, kMessages = 2 + 2 * kTurns };

static kz_engine* engine;
static kz_message history[kMessages];
static char texts[kMessages][96];

/* A system message, kTurns user/assistant pairs and a last question. */
static void make_history(void) {
  int i;
  history[0].role = "system";
  history[0].content = "You answer in one short sentence.";
  for (i = 0; i < kTurns; ++i) {
    sprintf(texts[1 + 2 * i], "Question %d: what is %d plus %d?", i, i, i);
    sprintf(texts[2 + 2 * i], "It is %d, as anyone can count.", 2 * i);
    history[1 + 2 * i].role = "user";
    history[1 + 2 * i].content = texts[1 + 2 * i];
    history[2 + 2 * i].role = "assistant";
    history[2 + 2 * i].content = texts[2 + 2 * i];
  }
  history[kMessages - 1].role = "user";
  history[kMessages - 1].content = "And what was the first question?";
  for (i = 0; i < kMessages; ++i) history[i].reasoning_content = NULL;
}

static kz_session* session_with(int64_t n_ctx, int32_t overflow) {
  kz_session_params p = kz_session_params_default();
  kz_session* s = NULL;
  p.n_ctx = n_ctx;
  p.n_threads = 1;
  p.context_overflow = overflow;
  REQUIRE_OK(kz_session_new(engine, &p, &s, ERR));
  return s;
}

static kz_generate_params greedy(int max_tokens) {
  kz_generate_params p = kz_generate_params_default();
  p.temperature = 0;
  p.max_tokens = max_tokens;
  return p;
}

static kz_generate_result empty_result(void) {
  kz_generate_result r;
  memset(&r, 0, sizeof r);
  r.struct_size = sizeof r;
  return r;
}

/* Checks that `status` failed as `want` with a one-line message containing `needle`. */
static void expect_error(const char* what, kz_status status, kz_status want, char* error,
                         const char* needle) {
  if (status != want || !error || !strstr(error, needle) || strchr(error, '\n')) {
    fprintf(stderr, "%s: %s \"%s\", expected %s with \"%s\"\n", what, kz_status_name(status),
            error ? error : "(no message)", kz_status_name(want), needle);
    ++failures;
  } else {
    printf("  %s -> %s\n", what, error);
  }
  kz_string_free(error);
}

/* The whole history's prompt size, from a session large enough for it. */
static int64_t full_prompt_tokens(void) {
  kz_session* s = session_with(4096, KZ_OVERFLOW_ERROR);
  kz_generate_params p = greedy(1);
  kz_generate_result r = empty_result();
  int64_t n;
  REQUIRE_OK(kz_generate(s, history, kMessages, &p, NULL, NULL, &r, ERR));
  n = r.prompt_tokens;
  CHECK(r.dropped_messages == 0);
  kz_result_free(&r);
  kz_session_free(s);
  return n;
}

static void test_overflow(void) {
  const int64_t n_ctx = full_prompt_tokens() / 2;
  kz_session* error_policy = session_with(n_ctx, KZ_OVERFLOW_ERROR);
  kz_session* dropping = session_with(n_ctx, KZ_OVERFLOW_DROP_OLDEST_TURNS);
  kz_session* plain = session_with(n_ctx, KZ_OVERFLOW_ERROR);
  kz_generate_params p = greedy(kMaxTokens);
  kz_generate_result a = empty_result(), b = empty_result(), expected = empty_result();
  kz_message kept[kMessages];
  char* error = NULL;
  kz_status status;
  char needle[96];
  size_t first, n_kept;
  printf("history longer than the context (%lld tokens)\n", (long long)n_ctx);

  sprintf(needle, "tokens but the context holds %lld (at most %lld prompt tokens", (long long)n_ctx,
          (long long)n_ctx - 1);
  status = kz_generate(error_policy, history, kMessages, &p, NULL, NULL, &a, &error);
  expect_error("overflow, error policy", status, KZ_ERR_ENGINE, error, needle);
  CHECK(kz_session_n_tokens(error_policy) == 0);

  REQUIRE_OK(kz_generate(dropping, history, kMessages, &p, NULL, NULL, &a, ERR));
  CHECK(a.dropped_messages > 0 && a.dropped_messages % 2 == 0);
  CHECK(a.prompt_tokens + kMaxTokens <= n_ctx);
  /* the same answer as the shortened history sent as it is */
  first = 1 + (size_t)a.dropped_messages;
  n_kept = 1 + kMessages - first;
  kept[0] = history[0];
  memcpy(kept + 1, history + first, (kMessages - first) * sizeof *kept);
  REQUIRE_OK(kz_generate(plain, kept, n_kept, &p, NULL, NULL, &expected, ERR));
  CHECK(expected.dropped_messages == 0);
  CHECK(a.prompt_tokens == expected.prompt_tokens);
  CHECK(a.n_tokens == expected.n_tokens &&
        memcmp(a.tokens, expected.tokens, a.n_tokens * sizeof(int32_t)) == 0);
  /* regenerated: the same turns dropped, the whole prompt but its last token reused */
  REQUIRE_OK(kz_generate(dropping, history, kMessages, &p, NULL, NULL, &b, ERR));
  CHECK(b.dropped_messages == a.dropped_messages);
  CHECK(b.cached_tokens == b.prompt_tokens - 1);
  CHECK(strcmp(a.text, b.text) == 0);

  kz_result_free(&a);
  kz_result_free(&b);
  kz_result_free(&expected);
  kz_session_free(error_policy);
  kz_session_free(dropping);
  kz_session_free(plain);
}

/* A caller built against API version 2: no context_overflow (the error policy), and nothing
 * written past its result struct. */
static void test_version2_caller(void) {
  kz_session_params sp = kz_session_params_default();
  kz_session* s = NULL;
  kz_generate_params p = greedy(kMaxTokens);
  struct {
    kz_generate_result result;
    unsigned char after[16];
  } old_out;
  char* error = NULL;
  kz_status status;
  size_t i;
  printf("version-2 caller\n");
  sp.struct_size = offsetof(kz_session_params, context_overflow);
  sp.n_ctx = 64;
  sp.n_threads = 1;
  sp.context_overflow = KZ_OVERFLOW_DROP_OLDEST_TURNS; /* beyond its struct_size: not read */
  REQUIRE_OK(kz_session_new(engine, &sp, &s, ERR));
  memset(&old_out, 0xAB, sizeof old_out);
  old_out.result.struct_size = offsetof(kz_generate_result, dropped_messages);
  status = kz_generate(s, history, kMessages, &p, NULL, NULL, &old_out.result, &error);
  expect_error("version 2, overflow", status, KZ_ERR_ENGINE, error, "context overflow");
  REQUIRE_OK(kz_generate(s, history + kMessages - 1, 1, &p, NULL, NULL, &old_out.result, ERR));
  CHECK(old_out.result.n_tokens > 0);
  for (i = offsetof(kz_generate_result, dropped_messages); i < sizeof old_out; ++i)
    CHECK(((unsigned char*)&old_out)[i] == 0xAB);
  kz_result_free(&old_out.result);
  kz_session_free(s);
}

static void expect_session_error(const char* what, kz_session_params p, kz_status want,
                                 const char* needle) {
  kz_session* s = NULL;
  char* error = NULL;
  const kz_status status = kz_session_new(engine, &p, &s, &error);
  expect_error(what, status, want, error, needle);
  CHECK(s == NULL);
}

static void expect_generate_error(const char* what, kz_generate_params p, const char* needle) {
  kz_session* s = session_with(256, KZ_OVERFLOW_ERROR);
  kz_generate_result r = empty_result();
  char* error = NULL;
  const kz_status status = kz_generate(s, history + kMessages - 1, 1, &p, NULL, NULL, &r, &error);
  expect_error(what, status, KZ_ERR_ENGINE, error, needle);
  CHECK(r.text == NULL && kz_session_n_tokens(s) == 0);
  kz_session_free(s);
}

static void test_absurd_parameters(void) {
  const kz_session_params d = kz_session_params_default();
  kz_session_params p = d;
  kz_generate_params g = greedy(2);
  printf("absurd parameters\n");
  p.n_ctx = 0;
  expect_session_error("n_ctx 0", p, KZ_ERR_ENGINE, "context size must be at least 1, got 0");
  p.n_ctx = -1;
  expect_session_error("n_ctx -1", p, KZ_ERR_ENGINE, "context size must be at least 1, got -1");
  p = d;
  p.n_threads = 1000000000;
  expect_session_error("10^9 threads", p, KZ_ERR_ENGINE, "invalid thread count 1000000000");
  p = d;
  p.context_overflow = 7;
  expect_session_error("context_overflow 7", p, KZ_ERR_INVALID_ARGUMENT,
                       "params->context_overflow is 7");

  g.max_tokens = -1;
  expect_generate_error("max_tokens -1", g, "invalid max_tokens -1");
  g = greedy(2);
  g.top_p = 2;
  expect_generate_error("top_p 2", g, "top_p must be in (0, 1] (got 2)");
  g = greedy(2);
  g.temperature = -1;
  expect_generate_error("temperature -1", g, "temperature must be finite and >= 0 (got -1)");
  g = greedy(2);
  g.top_k = -5;
  expect_generate_error("top_k -5", g, "top_k must be >= 0 (got -5)");
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <model.gguf>\n", argv[0]);
    return 2;
  }
  make_history();
  REQUIRE_OK(kz_engine_load(argv[1], &engine, ERR));
  test_overflow();
  test_version2_caller();
  test_absurd_parameters();
  kz_engine_free(engine);
  if (failures) {
    fprintf(stderr, "FAILED: %d check(s)\n", failures);
    return 1;
  }
  printf("all C limit checks passed\n");
  return 0;
}
