// A read-only memory mapping of a whole file: weights are read in place, never copied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace kz {

class MappedFile {
 public:
  // Throws kz::Error naming the path if the file cannot be opened or mapped.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// Asks the kernel to reclaim the whole pages within [p, p + n) (MADV_PAGEOUT): a hint that
// keeps the data valid (file pages are read again if touched), used once weights are repacked.
void release_pages(const void* p, size_t n);

}  // namespace kz
