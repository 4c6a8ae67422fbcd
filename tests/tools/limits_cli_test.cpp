// Limits on the command line: absurd values, damaged or odd model files and a conversation longer
// than the context, each a one-line error and a non-zero exit (or, in chat, a one-line error per
// turn, or the oldest turns left out with --context-overflow drop-oldest).
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "testing/cli_runner.h"
#include "testing/files.h"
#include "testing/reference_logits.h"

namespace {

using kz::testing::CliResult;
using kz::testing::expect_error;
using kz::testing::kazeia;

using kz::testing::kTiny;
const std::string kChat = std::string(KAZEIA_SOURCE_DIR) + "/models/kazeia-chat-q8_0.gguf";

using kz::testing::temp_path;

// The first `n` bytes of `from`, as a new file.
std::string cut_copy(const std::string& from, size_t n, const std::string& name) {
  std::ifstream in(from, std::ios::binary);
  std::string bytes(std::istreambuf_iterator<char>(in), {});
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << bytes.substr(0, n);
  return path;
}

TEST(LimitsCli, AbsurdValuesAreOneLineErrorsInRunAndChat) {
  for (const std::string& cmd :
       {"run -m " + kTiny + " -p hi", "chat -m " + kTiny + " </dev/null"}) {
    SCOPED_TRACE(cmd);
    expect_error(kazeia(cmd + " -n -1"), "invalid value -1 for --n-predict (expected >= 0)");
    expect_error(kazeia(cmd + " --top-p 2"), "top_p must be in (0, 1] (got 2)");
    expect_error(kazeia(cmd + " --temp -1"), "temperature must be finite and >= 0 (got -1)");
    expect_error(kazeia(cmd + " --top-k -5"), "top_k must be >= 0 (got -5)");
    expect_error(kazeia(cmd + " -t 1000000000"),
                 "invalid --threads 1000000000 (expected 1 to 256)");
    expect_error(kazeia(cmd + " -c 0"), "invalid --ctx-size 0 (expected at least 1)");
    expect_error(kazeia(cmd + " -n 99999999999"), "invalid value '99999999999' for -n");
  }
  expect_error(kazeia("chat -m " + kTiny + " --context-overflow sideways </dev/null"),
               "invalid --context-overflow 'sideways' (expected error or drop-oldest)");
}

TEST(LimitsCli, DamagedAndOddModelFilesNameTheFile) {
  const size_t size = std::filesystem::file_size(kTiny);
  for (size_t n : {size_t(0), size_t(3), size_t(200), size / 2, size - 1}) {
    const std::string cut = cut_copy(kTiny, n, "cut" + std::to_string(n) + ".gguf");
    expect_error(kazeia("run -m " + cut + " -p hi"), cut + ": ");
    std::filesystem::remove(cut);
  }
  const std::string dir = temp_path("model_dir.gguf");
  std::filesystem::create_directory(dir);
  expect_error(kazeia("run -m " + dir + " -p hi"), dir + ": not a regular file");
  std::filesystem::remove(dir);
  // A FIFO: once, opening it waited forever for a writer.
  const std::string fifo = temp_path("model_fifo.gguf");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  expect_error(kazeia("run -m " + fifo + " -p hi"), fifo + ": not a regular file");
  std::filesystem::remove(fifo);
  expect_error(kazeia("run -m /dev/zero -p hi"), "/dev/zero: not a regular file");
}

TEST(LimitsCli, AnUnreadableModelFileNamesTheReason) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads any file";
  const std::string path = cut_copy(kTiny, 1000, "unreadable.gguf");
  ASSERT_EQ(chmod(path.c_str(), 0), 0);
  expect_error(kazeia("run -m " + path + " -p hi"), path + ": cannot open: Permission denied");
  std::filesystem::remove(path);
}

TEST(LimitsCli, AnUnreadableInputFileNamesTheFileAndItsRole) {
  const std::string missing = temp_path("no_such_input.txt");
  const std::string absent = ": No such file or directory";
  expect_error(kazeia("run -m " + kTiny + " -f " + missing),
               missing + ": cannot read prompt file" + absent);
  expect_error(kazeia("perplexity -m " + kTiny + " -f " + missing),
               missing + ": cannot read text file" + absent);
  expect_error(kazeia("chat -m " + kTiny + " --tools " + missing + " </dev/null"),
               missing + ": cannot read tools file" + absent);
  // A folder once ended `run -f` with an uncaught std::ios_failure.
  const std::string dir = temp_path("input_dir");
  std::filesystem::create_directory(dir);
  expect_error(kazeia("run -m " + kTiny + " -f " + dir),
               dir + ": cannot read prompt file: not a regular file");
  std::filesystem::remove(dir);
}

// Six questions in an 80-token context: the error policy refuses the turns that do not fit, one
// line each, and goes on; drop-oldest answers every turn, leaving the oldest turns out.
TEST(LimitsCli, ChatPastTheContextFailsOrDropsTheOldestTurns) {
  std::string input;
  for (int i = 0; i < 6; ++i)
    input += "Je m'appelle Marie et j'ai " + std::to_string(30 + i) + " ans.\n";
  const std::string in = temp_path("chat_input.txt");
  std::ofstream(in) << input;
  const std::string cmd = "chat -m " + kChat + " -c 80 -n 8 --temp 0 -t 1 < " + in;

  const CliResult refused = kazeia(cmd);
  EXPECT_EQ(refused.code, 0);
  std::istringstream lines(refused.err);
  int errors = 0;
  for (std::string line; std::getline(lines, line); ++errors)
    EXPECT_EQ(line.rfind("error: context overflow: the prompt is ", 0), 0u) << line;
  EXPECT_GT(errors, 0);
  EXPECT_NE(refused.err.find("but the context holds 80 (at most 79 prompt tokens"),
            std::string::npos);

  const CliResult dropped = kazeia(cmd + " --context-overflow drop-oldest");
  EXPECT_EQ(dropped.code, 0);
  EXPECT_EQ(dropped.err, "");
  EXPECT_NE(dropped.out.find("oldest messages were left out to fit the context"), std::string::npos)
      << dropped.out;
  std::filesystem::remove(in);
}

}  // namespace
