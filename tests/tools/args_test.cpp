// Inputs the CLI flag fuzzer found (tests/fuzz/cli_args_fuzz.cpp), kept as tests: a flag or
// value holding a control character gives a one-line error showing it escaped (a newline used to
// split the message), and --ctx-size of the smallest int64 is refused (it was the "not given"
// marker, so it silently meant the default context); errors quoting a raw value stay one line
// too. Suite Cli, as cli_test.cpp's: tests that
// start the binary (scripts/test_arm.sh leaves them out under qemu).
#include <gtest/gtest.h>

#include <string>

#include "testing/cli_runner.h"
#include "testing/reference_logits.h"

namespace {

using kz::testing::expect_error;
using kz::testing::kazeia;

TEST(Cli, NewlineInAValueStaysOnOneLine) {
  expect_error(kazeia("run -m x -p hi -n \"$(printf '1\\n2')\""), "invalid value '1\\n2' for -n");
}

TEST(Cli, TabInAFlagStaysOnOneLine) {
  expect_error(kazeia("run \"$(printf '%s\\t%s' --x y)\""), "unknown flag '--x\\ty'");
}

// A value checked past the parser (the K cache type, the draft source) is quoted raw in its
// error; main() keeps the line whole.
TEST(Cli, ErrorsQuotingAValueWithANewlineStayOneLine) {
  const std::string run = "run -m " + kz::testing::model_path("qwen3-tiny-q8_0") + " -p hi -n 1 ";
  expect_error(kazeia(run + "-ctk \"$(printf 'f1\\n6')\""), "f1 6");
  expect_error(kazeia(run + "--spec \"$(printf 'a\\nb')\""), "'a b'");
}

TEST(Cli, SmallestContextSizeIsRefused) {
  expect_error(kazeia("run -m " + kz::testing::model_path("qwen3-tiny-q8_0") +
                      " -p hi -n 1 -c -9223372036854775808"),
               "invalid --ctx-size -9223372036854775808");
}

}  // namespace
