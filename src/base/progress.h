// Progress of long work on a terminal: one line on stderr that redraws itself (\r), with the share
// done and an estimate of the time left. Silent when stderr is not a terminal or when asked to be
// quiet, so that logs, pipes and tests see nothing of it (stdout is never touched).
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

namespace kz {

class Progress {
 public:
  // Where the line goes. `terminal` false: nothing is ever written. `width`: the terminal's
  // columns (a longer line would wrap and no longer redraw); 0: not limited.
  struct Output {
    std::FILE* file = nullptr;
    bool terminal = false;
    int width = 0;
  };
  // Seconds on a monotonic clock; injectable for tests.
  using Clock = std::function<double()>;

  // On stderr, shown when stderr is a terminal and not `quiet`. `total`: the units of the whole
  // work (e.g. tensors, bytes, runs); update() counts in the same units.
  Progress(std::string label, double total, bool quiet = false);
  Progress(std::string label, double total, Output out, Clock clock = {});
  ~Progress();  // erases the line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // `done` units of `total` are done; `detail` says what is under way (e.g. a tensor's name).
  // Redraws at most every 0.1 s, except for the first and the last update.
  void update(double done, std::string_view detail = {});
  // update(done + 1, detail).
  void step(std::string_view detail = {});
  // Erases the line, e.g. before other output; the next update draws it again.
  void clear();
  bool shown() const { return out_.terminal && out_.file; }
  double done() const { return done_; }

  // stderr, as the constructor without Output shows it: a terminal unless `quiet`, and its width.
  static Output stderr_output(bool quiet);
  // The line for `done` of `total` after `elapsed_s` seconds, cut to `width` - 1 columns when
  // `width` > 0 (the detail goes first, being last), e.g.
  // "quantize  37%  0:12 elapsed, ~0:20 left  tensor 12/291 blk.3.ffn_up.weight".
  static std::string format(std::string_view label, double done, double total, double elapsed_s,
                            std::string_view detail, int width = 0);
  // "M:SS", or "H:MM:SS" from an hour on.
  static std::string format_duration(double seconds);

 private:
  void draw(const std::string& line);

  std::string label_;
  double total_;
  Output out_;
  Clock clock_;
  double start_ = 0, last_draw_ = 0, done_ = 0;
  bool drawn_once_ = false;
  size_t shown_chars_ = 0;  // of the line now on the terminal: erased by the next draw
};

}  // namespace kz
