/* Checks shared by the C API tests (plain C99): CHECK counts a failure and goes on; REQUIRE_OK
 * stops the test when a call fails, with the library's message. Each test's main returns
 * failures != 0. */
#ifndef KAZEIA_TESTS_C_CHECKS_H
#define KAZEIA_TESTS_C_CHECKS_H

#include <stdio.h>
#include <stdlib.h>

#include "kazeia.h"

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

#define REQUIRE_OK(call)                                                              \
  do {                                                                                \
    char* req_error_ = NULL;                                                          \
    kz_status req_status_ = (call);                                                   \
    if (req_status_ != KZ_OK) {                                                       \
      fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #call,        \
              kz_status_name(req_status_), req_error_ ? req_error_ : "(no message)"); \
      kz_string_free(req_error_);                                                     \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)
/* The error argument inside REQUIRE_OK: REQUIRE_OK(kz_x(a, b, ERR)). */
#define ERR (&req_error_)

#endif
