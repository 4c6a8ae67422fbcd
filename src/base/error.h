// Errors: one exception type carrying a one-line message that names the file, key, tensor or
// argument at fault. Library code throws kz::Error on bad input; the API, C ABI and CLI catch it
// at their boundary and turn it into a value (error string, Java exception, exit code).
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace kz {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Concatenates any streamable values: cat("tensor '", name, "' has ", n, " dims").
template <class... Args>
std::string cat(Args&&... args) {
  std::ostringstream out;
  (out << ... << std::forward<Args>(args));
  return out.str();
}

template <class... Args>
[[noreturn]] void fail(Args&&... args) {
  throw Error(cat(std::forward<Args>(args)...));
}

}  // namespace kz
