// read_file: the whole file, byte for byte, or one error naming the file, its role and the reason;
// never a hang on a FIFO nor an endless read of a device.
#include "base/read_file.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/error.h"
#include "testing/files.h"

namespace kz {
namespace {

using testing::temp_path;

std::string error_of(const std::string& path) {
  try {
    read_file(path, "test file");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(ReadFile, ReturnsEveryByteAcrossReads) {
  std::string bytes(200'001, '\0');  // more than one 64 KiB read, NUL bytes included
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = char(i * 7 + i / 251);
  const std::string path = temp_path("read_file_bytes.bin");
  std::ofstream(path, std::ios::binary) << bytes;
  EXPECT_EQ(read_file(path, "test file"), bytes);
  std::ofstream(path, std::ios::binary | std::ios::trunc).close();
  EXPECT_EQ(read_file(path, "test file"), "");
  std::filesystem::remove(path);
}

TEST(ReadFile, NamesTheFileItsRoleAndTheReason) {
  const std::string missing = temp_path("read_file_missing.txt");
  EXPECT_EQ(error_of(missing), missing + ": cannot read test file: No such file or directory");
  const std::string dir = temp_path("read_file_dir");
  std::filesystem::create_directory(dir);
  EXPECT_EQ(error_of(dir), dir + ": cannot read test file: not a regular file");
  std::filesystem::remove(dir);
  const std::string fifo = temp_path("read_file_fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_of(fifo), fifo + ": cannot read test file: not a regular file");  // no writer
  std::filesystem::remove(fifo);
  EXPECT_EQ(error_of("/dev/zero"), "/dev/zero: cannot read test file: not a regular file");
}

}  // namespace
}  // namespace kz
