// Streams generated text while watching for stop strings: text that could still be the start
// of a stop string is held back until it is known not to be one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kz {

class StopStringFilter {
 public:
  explicit StopStringFilter(std::vector<std::string> stops);

  // Adds generated text; returns the text now safe to emit. After a stop string appears,
  // stopped() is true and nothing from the stop string on is ever emitted.
  std::string push(std::string_view text);
  // The held-back text, at the end of generation.
  std::string flush();
  bool stopped() const { return stopped_; }

 private:
  std::vector<std::string> stops_;
  std::string pending_;
  bool stopped_ = false;
};

}  // namespace kz
