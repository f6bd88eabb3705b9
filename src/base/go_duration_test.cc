#include "base/go_duration.h"

#include <gtest/gtest.h>

namespace svcplane {
namespace {

using namespace std::chrono_literals;

TEST(GoDurationTest, ParsesAndFormatsGoSyntax) {
  EXPECT_EQ(*ParseGoDuration("1m30s"), 90s);
  EXPECT_EQ(*ParseGoDuration("250ms"), 250ms);
  EXPECT_EQ(*ParseGoDuration("-2s"), -2s);
  EXPECT_EQ(*ParseGoDuration("0"), Duration::zero());
  EXPECT_EQ(FormatGoDuration(90s), "1m30s");
  EXPECT_EQ(FormatGoDuration(250ms), "250ms");
}

TEST(GoDurationTest, ErrorsAreGosMessages) {
  EXPECT_EQ(ParseGoDuration("abc").status().message(), "time: invalid duration \"abc\"");
  EXPECT_EQ(ParseGoDuration("").status().message(), "time: invalid duration \"\"");
  EXPECT_EQ(ParseGoDuration("15").status().message(), "time: missing unit in duration \"15\"");
  EXPECT_EQ(ParseGoDuration("3d").status().message(),
            "time: unknown unit \"d\" in duration \"3d\"");
}

}  // namespace
}  // namespace svcplane
