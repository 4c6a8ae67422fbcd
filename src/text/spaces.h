// Whitespace as the chat templates see it: the C-locale isspace set, which llama.cpp's Jinja
// `trim` uses (Python's str.strip() would also strip \x1c-\x1f and Unicode spaces; llama.cpp is
// the reference here).
#pragma once

#include <string_view>

namespace kz {

inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace kz
