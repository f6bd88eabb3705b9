#include "apiserver/table/duration.h"

#include <gtest/gtest.h>

namespace svcplane::apiserver::table {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

std::string H(microseconds d) { return HumanDuration(d); }

// Cases from upstream duration_test.go (TestHumanDuration).
TEST(HumanDurationTest, MatchesUpstreamTable) {
  EXPECT_EQ(H(seconds(1)), "1s");
  EXPECT_EQ(H(seconds(70)), "70s");
  EXPECT_EQ(H(seconds(190)), "3m10s");
  EXPECT_EQ(H(seconds(70 * 60)), "70m");
  EXPECT_EQ(H(hours(24)), "24h");
  EXPECT_EQ(H(hours(24) + minutes(30)), "24h");
  EXPECT_EQ(H(hours(24 * 5)), "5d");
  EXPECT_EQ(H(hours(24 * 5) + minutes(30)), "5d");
  EXPECT_EQ(H(hours(24 * 5) + hours(1)), "5d1h");
  EXPECT_EQ(H(hours(24 * 365)), "365d");
  EXPECT_EQ(H(hours(24 * 365 * 2)), "2y");
  EXPECT_EQ(H(hours(24 * 365 * 2) + hours(24)), "2y1d");
  EXPECT_EQ(H(hours(24 * 365 * 8)), "8y");
  EXPECT_EQ(H(hours(24 * 365 * 8) + hours(24 * 10)), "8y");
}

TEST(HumanDurationTest, Boundaries) {
  EXPECT_EQ(H(seconds(0)), "0s");
  EXPECT_EQ(H(milliseconds(-999)), "0s");  // truncated to 0 s
  EXPECT_EQ(H(seconds(-1)), "0s");
  EXPECT_EQ(H(milliseconds(-1999)), "0s");  // int(-1.999) == -1
  EXPECT_EQ(H(seconds(-2)), "<invalid>");
  EXPECT_EQ(H(seconds(119)), "119s");
  EXPECT_EQ(H(seconds(120)), "2m");
  EXPECT_EQ(H(seconds(121)), "2m1s");
  EXPECT_EQ(H(seconds(599)), "9m59s");
  EXPECT_EQ(H(minutes(10) + seconds(30)), "10m");
  EXPECT_EQ(H(minutes(179)), "179m");
  EXPECT_EQ(H(hours(3)), "3h");
  EXPECT_EQ(H(hours(3) + minutes(5)), "3h5m");
  EXPECT_EQ(H(hours(7) + minutes(59)), "7h59m");
  EXPECT_EQ(H(hours(8) + minutes(59)), "8h");
  EXPECT_EQ(H(hours(47)), "47h");
  EXPECT_EQ(H(hours(48)), "2d");
  EXPECT_EQ(H(hours(24 * 8 - 1)), "7d23h");
  EXPECT_EQ(H(hours(24 * 8)), "8d");
}

TEST(TimestampSinceTest, ZeroIsUnknown) {
  TimePoint now = std::chrono::system_clock::from_time_t(1700000000);
  EXPECT_EQ(TimestampSince(api::meta::Time{}, now), "<unknown>");
  EXPECT_EQ(TimestampSince(api::meta::Time::FromUnix(1700000000 - 300), now), "5m");
  EXPECT_EQ(
      TimestampSince(api::meta::MicroTime::FromUnixMicros(1700000000LL * 1000000 - 2500000), now),
      "2s");
  EXPECT_EQ(TimestampSince(api::meta::Time::FromUnix(1700000000 + 60), now), "<invalid>");
}

}  // namespace
}  // namespace svcplane::apiserver::table
