// What a model file's troubles do to the engine: a file larger than the address space allowed is
// a one-line mapping error; a file replaced by rename while mapped keeps the loaded model intact;
// a file truncated while mapped ends the process with SIGBUS (in a death test's child).
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "api/engine.h"
#include "base/error.h"
#include "testing/api_params.h"
#include "testing/files.h"
#include "testing/sanitizers.h"
#include "text/tokenizer.h"

namespace kz {
namespace {

const std::string kModel = std::string(KAZEIA_SOURCE_DIR) + "/models/kazeia-kjv-q8_0.gguf";
const std::string kOtherModel = std::string(KAZEIA_SOURCE_DIR) + "/models/kazeia-chat-q8_0.gguf";

using testing::temp_path;

std::string copy_of(const std::string& from, const std::string& name) {
  const std::string path = temp_path(name);
  std::filesystem::copy_file(from, path, std::filesystem::copy_options::overwrite_existing);
  return path;
}

// The weights are read from the mapping, not from a repacked copy.
SessionParams mapped_weights() {
  SessionParams p = testing::session_params(64, 1);
  p.repack = "off";
  return p;
}

std::vector<int32_t> greedy_tokens(const std::shared_ptr<Engine>& engine) {
  Session s(engine, mapped_weights());
  const std::vector<int32_t> prompt = engine->tokenizer().encode("And it came to pass", false);
  return s.generate_tokens(prompt, testing::generate_params(12)).tokens;
}

// Bytes of address space the process holds now (/proc/self/statm's first field, in pages).
uint64_t address_space_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0;
  statm >> pages;
  return pages * uint64_t(sysconf(_SC_PAGESIZE));
}

// A model larger than what may be mapped (here: the address-space limit, 1 GiB above what the
// process holds; on a phone: a 32-bit process or a full address space) fails to map, one line.
TEST(ModelFile, LargerThanTheAddressSpaceAllowedIsAMappingError) {
  const std::string path = temp_path("huge.gguf");
  std::ofstream(path).close();
  std::filesystem::resize_file(path, uint64_t(4) << 30);  // sparse: no disk used
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &old), 0);
  rlimit limited = old;
  limited.rlim_cur = address_space_bytes() + (uint64_t(1) << 30);
  ASSERT_EQ(setrlimit(RLIMIT_AS, &limited), 0);
  std::string error = "(loaded)";
  try {
    Engine::load(path);
  } catch (const Error& e) {
    error = e.what();
  }
  ASSERT_EQ(setrlimit(RLIMIT_AS, &old), 0);
  std::filesystem::remove(path);
  EXPECT_EQ(error, path + ": cannot map: Cannot allocate memory");
}

// An app that updates a model writes a new file and renames it over the old one: the loaded
// engine keeps the old file's pages (the mapping holds its inode) and its output is unchanged.
TEST(ModelFile, ReplacedByRenameWhileMappedKeepsTheLoadedModel) {
  const std::string path = copy_of(kModel, "renamed.gguf");
  const auto engine = Engine::load(path);
  const std::vector<int32_t> before = greedy_tokens(engine);
  ASSERT_EQ(before.size(), 12u);
  const std::string replacement = copy_of(kOtherModel, "replacement.gguf");
  std::filesystem::rename(replacement, path);
  EXPECT_EQ(greedy_tokens(engine), before);
  std::filesystem::remove(path);
}

// Truncating a mapped file makes the pages past its new end unreadable: the next read of a
// weight raises SIGBUS, which ends the process (docs/reliability.md says why it is not caught).
TEST(ModelFileDeathTest, TruncatedWhileMappedEndsTheProcessWithSigbus) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto truncated_then_used = [] {
    const std::string path = copy_of(kModel, "truncated.gguf");
    const int fd = open(path.c_str(), O_WRONLY);
    const auto engine = Engine::load(path);
    std::filesystem::remove(path);  // the child leaves nothing behind
    if (fd < 0 || ftruncate(fd, 0) != 0) std::_Exit(3);
    greedy_tokens(engine);
    std::_Exit(0);
  };
#ifdef KZ_TEST_ASAN
  EXPECT_DEATH(truncated_then_used(), "BUS");  // ASan reports the signal, then exits
#else
  EXPECT_EXIT(truncated_then_used(), ::testing::KilledBySignal(SIGBUS), "");
#endif
}

}  // namespace
}  // namespace kz
