// Bounds-checked forward reader over a byte span (internal to gguf/). Every read first checks the
// bytes left, so no input can make the parser read outside the span; a failed read returns false
// and the caller turns it into an error that says what it was reading.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

namespace kz::gguf {

class Cursor {
 public:
  explicit Cursor(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  uint64_t pos() const { return pos_; }
  uint64_t remaining() const { return bytes_.size() - pos_; }

  // Copies a little-endian primitive (files are little-endian; so are the hosts we support).
  template <class T>
  bool read(T* out) {
    if (sizeof(T) > remaining()) return false;
    std::memcpy(out, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }

  // Returns a pointer to the next n bytes and skips them, or nullptr if fewer are left.
  const uint8_t* take(uint64_t n) {
    if (n > remaining()) return nullptr;
    const uint8_t* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }

 private:
  std::span<const uint8_t> bytes_;
  uint64_t pos_ = 0;
};

}  // namespace kz::gguf
