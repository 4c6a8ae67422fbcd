// A byte range of a text: [begin, end).
#pragma once

#include <cstddef>

namespace kz {

struct TextSpan {
  size_t begin = 0, end = 0;
};

}  // namespace kz
