#include "base/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

namespace kz {
namespace {

constexpr double kRedrawSeconds = 0.1;  // a terminal redrawn faster only flickers

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

Progress::Progress(std::string label, double total, bool quiet)
    : Progress(std::move(label), total, stderr_output(quiet)) {}

Progress::Progress(std::string label, double total, Output out, Clock clock)
    : label_(std::move(label)),
      total_(total),
      out_(out),
      clock_(clock ? std::move(clock) : Clock(steady_seconds)) {
  start_ = clock_();
}

Progress::~Progress() {
  clear();
}

Progress::Output Progress::stderr_output(bool quiet) {
  Output out{stderr, !quiet && ::isatty(STDERR_FILENO) == 1, 0};
  winsize ws{};
  if (out.terminal && ::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0) out.width = ws.ws_col;
  return out;
}

std::string Progress::format_duration(double seconds) {
  const long long s = std::llround(std::max(0.0, seconds));
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
  return buf;
}

std::string Progress::format(std::string_view label, double done, double total, double elapsed_s,
                             std::string_view detail, int width) {
  const double fraction = total > 0 ? std::clamp(done / total, 0.0, 1.0) : 0.0;
  char pct[16];
  std::snprintf(pct, sizeof pct, " %3d%%  ", int(fraction * 100));  // 99.9 % is not done
  std::string line(label);
  line += pct;
  line += format_duration(elapsed_s);
  line += " elapsed";
  // The rate so far predicts the rest; nothing to predict from before the first unit.
  if (fraction > 0 && fraction < 1)
    line += ", ~" + format_duration(elapsed_s * (1 - fraction) / fraction) + " left";
  if (!detail.empty()) {
    line += "  ";
    line += detail;
  }
  if (width > 0 && line.size() > size_t(width - 1)) {
    size_t n = size_t(std::max(width - 1, 0));
    while (n > 0 && (static_cast<unsigned char>(line[n]) & 0xC0) == 0x80) --n;  // whole UTF-8
    line.resize(n);
  }
  return line;
}

void Progress::update(double done, std::string_view detail) {
  done_ = done;
  if (!shown()) return;
  const double now = clock_();
  const bool last = done >= total_;
  if (drawn_once_ && !last && now - last_draw_ < kRedrawSeconds) return;
  drawn_once_ = true;
  last_draw_ = now;
  draw(format(label_, done, total_, now - start_, detail, out_.width));
}

void Progress::step(std::string_view detail) {
  update(done_ + 1, detail);
}

void Progress::draw(const std::string& line) {
  // Spaces over what is left of a longer previous line.
  std::string text = "\r" + line;
  if (shown_chars_ > line.size()) text.append(shown_chars_ - line.size(), ' ');
  std::fputs(text.c_str(), out_.file);
  std::fflush(out_.file);
  shown_chars_ = line.size();
}

void Progress::clear() {
  if (!shown() || shown_chars_ == 0) return;
  std::string text = "\r";
  text.append(shown_chars_, ' ');
  text += '\r';
  std::fputs(text.c_str(), out_.file);
  std::fflush(out_.file);
  shown_chars_ = 0;
  drawn_once_ = false;  // the next update draws at once
}

}  // namespace kz
