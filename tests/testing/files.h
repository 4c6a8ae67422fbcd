// Files the tests write and read back.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace kz::testing {

// The whole file; empty when it cannot be read.
inline std::vector<uint8_t> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A path in GoogleTest's temporary folder that no other test process writes: CTest runs each
// test in its own process, so the process id keeps concurrent tests apart.
inline std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "/kazeia_" + std::to_string(getpid()) + "_" + name;
}

}  // namespace kz::testing
