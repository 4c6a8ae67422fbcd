// Runs the kazeia binary (KAZEIA_BINARY) as the user would, for the CLI tests: exit code, stdout
// and stderr, and the check that an error is one line naming what is wrong.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "testing/reference_logits.h"

namespace kz::testing {

// The fixture models most CLI tests run: the smallest Qwen3 and Qwen3.5.
inline const std::string kTiny = model_path("qwen3-tiny-q8_0");
inline const std::string kTiny35 = model_path("qwen35-tiny-q4_0");

struct CliResult {
  int code = -1;
  std::string out, err;
};

// `kazeia ARGS` through the shell (ARGS may quote and redirect).
inline CliResult kazeia(const std::string& args) {
  // One file per process: CTest runs the tests of a binary in parallel processes.
  const std::string err_path =
      ::testing::TempDir() + "/kazeia_cli_stderr_" + std::to_string(getpid()) + ".txt";
  const std::string cmd = std::string(KAZEIA_BINARY) + " " + args + " 2>" + err_path;
  CliResult r;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), p)) > 0;) r.out.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err_path);
  r.err.assign(std::istreambuf_iterator<char>(e), {});
  return r;
}

inline void expect_error(const CliResult& r, const std::string& what) {
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find(what), std::string::npos) << "stderr: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "not one line: " << r.err;
}

}  // namespace kz::testing
