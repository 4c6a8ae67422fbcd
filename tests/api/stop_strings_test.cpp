#include "api/stop_strings.h"

#include <gtest/gtest.h>

#include "base/error.h"

namespace kz {
namespace {

TEST(StopStrings, HoldsBackPossiblePrefixesAndCutsAtTheStop) {
  StopStringFilter f({"<END>", "\n\n"});
  EXPECT_EQ(f.push("Hello <"), "Hello ");  // "<" may start "<END>"
  EXPECT_EQ(f.push("b>"), "<b>");          // it did not
  EXPECT_EQ(f.push(" done\n"), " done");
  EXPECT_FALSE(f.stopped());
  EXPECT_EQ(f.push("\nmore"), "");
  EXPECT_TRUE(f.stopped());
  EXPECT_EQ(f.push("ignored"), "");
  EXPECT_EQ(f.flush(), "");
}

TEST(StopStrings, StopInsideOnePieceAndFlushWithoutStop) {
  StopStringFilter f({"STOP"});
  EXPECT_EQ(f.push("abcSTOPdef"), "abc");
  EXPECT_TRUE(f.stopped());
  StopStringFilter g({"STOP"});
  EXPECT_EQ(g.push("xST"), "x");
  EXPECT_EQ(g.flush(), "ST");
  StopStringFilter none({});
  EXPECT_EQ(none.push("anything"), "anything");
}

TEST(StopStrings, EmptyStopIsRejected) {
  EXPECT_THROW(StopStringFilter({""}), Error);
}

}  // namespace
}  // namespace kz
