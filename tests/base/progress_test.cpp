#include "base/progress.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "testing/memory_stream.h"

namespace kz {
namespace {

TEST(Progress, FormatsShareElapsedAndTimeLeft) {
  // 37 of 100 units in 12 s: 63 more at the same rate take 20.4 s.
  EXPECT_EQ(Progress::format("quantize", 37, 100, 12, "tensor 12/291 blk.3.ffn_up.weight"),
            "quantize  37%  0:12 elapsed, ~0:20 left  tensor 12/291 blk.3.ffn_up.weight");
  // Nothing done yet: no estimate; all done: none needed; no detail: no trailing spaces.
  EXPECT_EQ(Progress::format("bench", 0, 6, 0.4, "run 1/6"), "bench   0%  0:00 elapsed  run 1/6");
  EXPECT_EQ(Progress::format("bench", 6, 6, 75, ""), "bench 100%  1:15 elapsed");
  // 99.9 % is shown as 99 %, not as done; past the total is 100 %.
  EXPECT_EQ(Progress::format("x", 999, 1000, 3600, ""), "x  99%  1:00:00 elapsed, ~0:04 left");
  EXPECT_EQ(Progress::format("x", 7, 5, 1, ""), "x 100%  0:01 elapsed");
}

TEST(Progress, DurationsInMinutesThenHours) {
  EXPECT_EQ(Progress::format_duration(0), "0:00");
  EXPECT_EQ(Progress::format_duration(59.4), "0:59");
  EXPECT_EQ(Progress::format_duration(59.6), "1:00");
  EXPECT_EQ(Progress::format_duration(3599), "59:59");
  EXPECT_EQ(Progress::format_duration(3600 + 62), "1:01:02");
  EXPECT_EQ(Progress::format_duration(-3), "0:00");
}

TEST(Progress, CutsTheLineToTheTerminalWidth) {
  // width - 1 columns: a line as wide as the terminal would wrap on some terminals.
  const std::string line = Progress::format("perplexity", 1, 4, 3, "chunk 2/4", 30);
  EXPECT_EQ(line, "perplexity  25%  0:03 elapsed");
  EXPECT_EQ(Progress::format("p", 1, 2, 1, "abcdef", 29), "p  50%  0:01 elapsed, ~0:01 ");
  // A multi-byte character is not split: 38 columns end inside the second "é" (2 bytes each).
  EXPECT_EQ(Progress::format("p", 1, 2, 1, "\xc3\xa9\xc3\xa9", 38),
            "p  50%  0:01 elapsed, ~0:01 left  \xc3\xa9");
  EXPECT_EQ(Progress::format("p", 1, 2, 1, "\xc3\xa9\xc3\xa9", 39),
            "p  50%  0:01 elapsed, ~0:01 left  \xc3\xa9\xc3\xa9");
}

using testing::MemoryStream;

TEST(Progress, RedrawsOneLineOnATerminal) {
  MemoryStream out;
  double now = 100;
  {
    Progress p("run", 4, {out.file(), true, 0}, [&] { return now; });
    EXPECT_TRUE(p.shown());
    p.step("first long detail");
    now += 1;
    p.step("b");  // shorter: spaces over the rest of the previous line
    now += 0.05;
    p.step("c");  // within 0.1 s of the last draw: skipped
    now += 1;
    p.step("d");  // the last update is always drawn
    EXPECT_EQ(p.done(), 4);
  }
  const std::string first = "run  25%  0:00 elapsed, ~0:00 left  first long detail";
  const std::string second = "run  50%  0:01 elapsed, ~0:01 left  b";
  const std::string last = "run 100%  0:02 elapsed  d";
  const std::string expected = "\r" + first +  //
                               "\r" + second + std::string(first.size() - second.size(), ' ') +
                               "\r" + last + std::string(second.size() - last.size(), ' ') + "\r" +
                               std::string(last.size(), ' ') + "\r";  // erased at the end
  EXPECT_EQ(out.text(), expected);
}

TEST(Progress, ClearErasesAndTheNextUpdateDrawsAtOnce) {
  MemoryStream out;
  double now = 0;
  Progress p("x", 10, {out.file(), true, 0}, [&] { return now; });
  p.update(1);
  p.clear();
  const std::string drawn = "\rx  10%  0:00 elapsed, ~0:00 left";
  EXPECT_EQ(out.text(), drawn + "\r" + std::string(drawn.size() - 1, ' ') + "\r");
  p.update(2);  // no time has passed, but the line was erased: drawn again
  EXPECT_EQ(out.text().substr(2 * drawn.size() + 1), "\rx  20%  0:00 elapsed, ~0:00 left");
}

TEST(Progress, SilentWhenNotATerminal) {
  MemoryStream out;
  double now = 0;
  {
    Progress p("quantize", 3, {out.file(), false, 80}, [&] { return now; });
    EXPECT_FALSE(p.shown());
    for (int i = 0; i < 3; ++i, now += 1) p.step("tensor");
    p.clear();
    EXPECT_EQ(p.done(), 3);  // still counted
  }
  EXPECT_EQ(out.text(), "");
}

TEST(Progress, QuietOrRedirectedStderrIsNotShown) {
  EXPECT_FALSE(Progress::stderr_output(true).terminal);
  // Under CTest stderr is a pipe or a file; by hand it may be a terminal: both are right.
  EXPECT_EQ(Progress::stderr_output(false).terminal, isatty(2) == 1);
  EXPECT_EQ(Progress::stderr_output(false).file, stderr);
}

}  // namespace
}  // namespace kz
