/* The acceptance scenario through the C API (include/kazeia.h), from plain C99, on the bundled
 * chat model: three turns in French with the whole history each call; the answer at turn 3 holds
 * the first name and the age given at turn 1, the third call reuses the prefix (the state after
 * turn 2 up to where its prompt ended), and a state saved after turn 2 and loaded into a fresh
 * session gives the same turn 3. At turn 10, after small talk, the answer still holds both; a
 * question about a fact never given is answered as such. The C++ twin is
 * tests/api/chat_memory_test.cpp.
 * Usage: test_c_memory <models/kazeia-chat-q8_0.gguf>
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_checks.h"
#include "kazeia.h"

/* Stops the test when a call fails, with the library's message. */
static void require_ok(kz_status status, char* error, const char* what) {
  if (status == KZ_OK) return;
  fprintf(stderr, "%s failed: %s: %s\n", what, kz_status_name(status),
          error ? error : "(no message)");
  kz_string_free(error);
  exit(1);
}

#define N_TURNS 10
#define NEVER_GIVEN N_TURNS /* a question about a fact never given, after turns 1-2 */
/* Turns 1-3: the acceptance scenario; 4-9: small talk; 10: the same question. Training
   phrasings, a first name held out of training. */
static const char* const turns[N_TURNS + 1] = {"Bonjour, je m'appelle Juliette et j'ai 34 ans.",
                                               "Il fait beau aujourd'hui.",
                                               "Tu te rappelles mon prénom et mon âge ?",
                                               "Comment ça va ?",
                                               "J'aime beaucoup la musique.",
                                               "Tu aimes lire ?",
                                               "Je viens de manger une pizza.",
                                               "Il pleut depuis ce matin.",
                                               "Je bois un café.",
                                               "Tu te rappelles mon prénom et mon âge ?",
                                               "Tu te rappelles ma ville ?"};

/* The conversation as the app keeps it: user messages and the answers (owned copies). */
typedef struct {
  kz_message messages[2 * N_TURNS];
  char* answers[N_TURNS];
  size_t n;
} history;

static kz_generate_result generate(kz_session* s, history* h, int turn) {
  kz_generate_params gp = kz_generate_params_default();
  kz_generate_result r;
  char* error = NULL;
  gp.temperature = 0.0f;
  gp.max_tokens = 48;
  memset(&r, 0, sizeof r);
  r.struct_size = sizeof r;
  h->messages[h->n].role = "user";
  h->messages[h->n].content = turns[turn];
  h->messages[h->n].reasoning_content = NULL;
  ++h->n;
  require_ok(kz_generate(s, h->messages, h->n, &gp, NULL, NULL, &r, &error), error, "kz_generate");
  return r;
}

static void remember(history* h, int turn, const kz_generate_result* r) {
  h->answers[turn] = malloc(r->text_len + 1);
  memcpy(h->answers[turn], r->text, r->text_len + 1);
  h->messages[h->n].role = "assistant";
  h->messages[h->n].content = h->answers[turn];
  h->messages[h->n].reasoning_content = NULL;
  ++h->n;
}

static void forget(history* h) {
  size_t i;
  for (i = 0; i < N_TURNS; ++i) free(h->answers[i]);
}

static kz_session* new_session(kz_engine* engine) {
  kz_session_params sp = kz_session_params_default();
  kz_session* s = NULL;
  char* error = NULL;
  sp.n_ctx = 1024;
  sp.n_threads = 2;
  require_ok(kz_session_new(engine, &sp, &s, &error), error, "kz_session_new");
  return s;
}

/* The answer after the template's (empty) reasoning block. */
static const char* answer_of(const char* text) {
  const char* end_think = strstr(text, "</think>");
  return end_think ? end_think + strlen("</think>") : text;
}

int main(int argc, char** argv) {
  kz_engine* engine = NULL;
  kz_session *a, *b;
  history h;
  kz_generate_result first, second, third, restored, later;
  int turn;
  uint8_t* image = NULL;
  size_t image_size = 0;
  char* error = NULL;
  int64_t second_prompt;
  if (argc != 2) {
    fprintf(stderr, "usage: %s <kazeia-chat.gguf>\n", argv[0]);
    return 2;
  }
  require_ok(kz_engine_load(argv[1], &engine, &error), error, "kz_engine_load");
  a = new_session(engine);
  b = new_session(engine);
  memset(&h, 0, sizeof h);

  first = generate(a, &h, 0);
  remember(&h, 0, &first);
  kz_result_free(&first);
  second = generate(a, &h, 1);
  second_prompt = second.prompt_tokens;
  remember(&h, 1, &second);
  kz_result_free(&second);

  /* The state after turn 2, into a fresh session. */
  require_ok(kz_session_save_state(a, &image, &image_size, &error), error, "save_state");
  require_ok(kz_session_load_state(b, image, image_size, &error), error, "load_state");
  kz_buffer_free(image);
  CHECK(kz_session_n_tokens(b) == kz_session_n_tokens(a));

  third = generate(a, &h, 2);
  printf("turn 3: %s\n", third.text);
  CHECK(third.stop_reason == KZ_STOP_END_OF_TURN);
  CHECK(strstr(answer_of(third.text), "Juliette") != NULL);
  CHECK(strstr(answer_of(third.text), "34") != NULL);
  /* Turn 3's history shows turn 2's answer without the empty <think> block: the state is reused
     up to the end of turn 2's prompt. */
  CHECK(third.cached_tokens == second_prompt);
  CHECK(third.prefill_tokens == third.prompt_tokens - third.cached_tokens);

  --h.n; /* the same third call in the restored session */
  restored = generate(b, &h, 2);
  CHECK(restored.cached_tokens == second_prompt);
  CHECK(restored.n_tokens == third.n_tokens);
  CHECK(restored.n_tokens == third.n_tokens &&
        memcmp(restored.tokens, third.tokens, third.n_tokens * sizeof(int32_t)) == 0);
  CHECK(strcmp(restored.text, third.text) == 0);
  remember(&h, 2, &third);
  kz_result_free(&third);
  kz_result_free(&restored);

  /* Turns 4-10 in the first session: turn 10 recalls both. */
  for (turn = 3; turn < N_TURNS; ++turn) {
    later = generate(a, &h, turn);
    if (turn == N_TURNS - 1) {
      printf("turn 10: %s\n", later.text);
      CHECK(strstr(answer_of(later.text), "Juliette") != NULL);
      CHECK(strstr(answer_of(later.text), "34") != NULL);
    }
    remember(&h, turn, &later);
    kz_result_free(&later);
  }

  /* A fact never given, in a fresh session after turns 1-2: the answer says it is missing. */
  {
    history g;
    kz_session* c = new_session(engine);
    kz_generate_result r;
    memset(&g, 0, sizeof g);
    for (turn = 0; turn < 2; ++turn) {
      r = generate(c, &g, turn);
      remember(&g, turn, &r);
      kz_result_free(&r);
    }
    r = generate(c, &g, NEVER_GIVEN);
    printf("never given: %s\n", r.text);
    CHECK(strstr(answer_of(r.text), "Tu ne m'as pas encore dit") != NULL);
    kz_result_free(&r);
    forget(&g);
    kz_session_free(c);
  }

  forget(&h);
  kz_session_free(a);
  kz_session_free(b);
  kz_engine_free(engine);
  if (failures) {
    fprintf(stderr, "FAILED: %d check(s)\n", failures);
    return 1;
  }
  printf("the C memory scenario passed\n");
  return 0;
}
