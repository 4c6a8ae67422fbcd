/* Inputs the C API fuzzer found (tests/fuzz/c_api_fuzz.cpp), kept as a test in plain C99, where
 * they are legal calls:
 * - a status or stop reason outside its enum (C allows any int in an enum): named "unknown",
 *   read by the library without undefined behaviour (UBSan stopped it before);
 * - a kz_chat_message struct_size that is no multiple of the struct's alignment: refused (the
 *   library read half of tool_call_id as an address, and strlen crashed on it; other sizes read
 *   elements at misaligned addresses). A size that ends between fields is read up to there.
 * Usage: test_c_fuzz_regressions MODEL */
#include <stddef.h>
#include <string.h>

#include "c_checks.h"

int main(int argc, char** argv) {
  kz_engine* engine = NULL;
  kz_session* session = NULL;
  kz_session_params sp = kz_session_params_default();
  kz_generate_params gp = kz_generate_params_default();
  kz_generate_result r;
  kz_chat_message m;
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL\n", argv[0]);
    return 2;
  }
  CHECK(strcmp(kz_status_name((kz_status)130), "unknown status") == 0);
  CHECK(strcmp(kz_stop_reason_name((kz_stop_reason)-3), "unknown") == 0);
  CHECK(strcmp(kz_status_name(KZ_ERR_BUSY), "busy") == 0);

  REQUIRE_OK(kz_engine_load(argv[1], &engine, ERR));
  sp.n_ctx = 64;
  sp.n_threads = 1;
  REQUIRE_OK(kz_session_new(engine, &sp, &session, ERR));
  gp.temperature = 0;
  gp.max_tokens = 2;
  /* The size covers role, content, reasoning and the tool calls, then 2 bytes of tool_call_id;
   * those bytes and all after them are garbage. */
  memset(&m, 0xAB, sizeof m);
  m.struct_size = offsetof(kz_chat_message, tool_call_id) + 2;
  m.role = "user";
  m.content = "Hello";
  m.reasoning_content = NULL;
  m.tool_calls = NULL;
  m.n_tool_calls = 0;
  memset(&r, 0, sizeof r);
  r.struct_size = sizeof r;
  {
    char* error = NULL;
    CHECK(kz_generate_chat(session, &m, 1, &gp, NULL, NULL, &r, &error) == KZ_ERR_INVALID_ARGUMENT);
    CHECK(error && strstr(error, "messages[0].struct_size"));
    kz_string_free(error);
  }
  /* Up to the end of n_tool_calls, as an older caller's struct: the garbage after it is not read.
   */
  m.struct_size = offsetof(kz_chat_message, tool_call_id);
  REQUIRE_OK(kz_generate_chat(session, &m, 1, &gp, NULL, NULL, &r, ERR));
  CHECK(r.n_tokens >= 1 && r.n_tokens <= 2);
  CHECK(r.prompt_tokens > 0);
  kz_result_free(&r);

  kz_session_free(session);
  kz_engine_free(engine);
  return failures != 0;
}
