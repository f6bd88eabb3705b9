#include "client/record/events_cache.h"

#include <gtest/gtest.h>

namespace svcplane::client::record {
namespace {

using api::core::v1::Event;
using namespace std::chrono_literals;

Event MakeEvent(std::string reason, std::string message, std::string name = "web") {
  Event e;
  e.metadata.name = name + ".1";
  e.metadata.namespace_ = "default";
  e.involved_object.kind = "Service";
  e.involved_object.api_version = "v1";
  e.involved_object.namespace_ = "default";
  e.involved_object.name = name;
  e.involved_object.uid = "uid-" + name;
  e.reason = std::move(reason);
  e.message = std::move(message);
  e.type = "Normal";
  e.count = 1;
  e.source.component = "endpoint-controller";
  e.first_timestamp = api::meta::Time::FromUnix(100);
  e.last_timestamp = api::meta::Time::FromUnix(100);
  return e;
}

// The server's answer to a write: the event with a resourceVersion.
Event Written(Event e, std::string rv) {
  e.metadata.resource_version = std::move(rv);
  return e;
}

TEST(EventCorrelatorTest, FirstOccurrenceIsCreatedAsIs) {
  FakeClock clock;
  EventCorrelator c(clock);
  auto r = c.Correlate(MakeEvent("Synced", "ok"));
  EXPECT_FALSE(r.skip);
  EXPECT_EQ(r.event.count, 1);
  EXPECT_EQ(r.event.metadata.name, "web.1");
  EXPECT_EQ(r.patch, "");
}

TEST(EventCorrelatorTest, RepeatCountsUpAndPatchesTheFirstEvent) {
  FakeClock clock;
  EventCorrelator c(clock);
  auto first = c.Correlate(MakeEvent("Synced", "ok"));
  c.UpdateState(Written(first.event, "7"));

  clock.Advance(30s);
  Event again = MakeEvent("Synced", "ok");
  again.metadata.name = "web.2";
  again.last_timestamp = api::meta::Time::FromUnix(130);
  auto r = c.Correlate(again);
  EXPECT_FALSE(r.skip);
  EXPECT_EQ(r.event.count, 2);
  EXPECT_EQ(r.event.metadata.name, "web.1");  // the existing event is patched
  EXPECT_EQ(r.event.metadata.resource_version, "7");
  EXPECT_EQ(r.event.first_timestamp.unix_seconds, 100);
  EXPECT_EQ(r.patch, R"({"count":2,"lastTimestamp":"1970-01-01T00:02:10Z","message":"ok"})");

  c.UpdateState(Written(r.event, "8"));
  auto third = c.Correlate(again);
  EXPECT_EQ(third.event.count, 3);
  EXPECT_EQ(third.event.metadata.resource_version, "8");
}

TEST(EventCorrelatorTest, TenSimilarMessagesAreCombined) {
  FakeClock clock;
  EventCorrelator c(clock);
  for (int i = 0; i < 9; ++i) {
    auto r = c.Correlate(MakeEvent("Failed", "attempt " + std::to_string(i)));
    EXPECT_EQ(r.event.message, "attempt " + std::to_string(i));
    c.UpdateState(Written(r.event, "1"));
  }
  // The 10th distinct message with the same reason within 10 minutes is aggregated.
  auto r = c.Correlate(MakeEvent("Failed", "attempt 9"));
  EXPECT_EQ(r.event.message, "(combined from similar events): attempt 9");
  EXPECT_EQ(r.event.count, 1);
  EXPECT_EQ(r.event.reason, "Failed");
  EXPECT_EQ(r.event.involved_object.name, "web");
  c.UpdateState(Written(r.event, "20"));
  // The next one is a repeat of the aggregate: a patch of it.
  auto next = c.Correlate(MakeEvent("Failed", "attempt 10"));
  EXPECT_EQ(next.event.count, 2);
  EXPECT_EQ(next.event.metadata.name, r.event.metadata.name);
  EXPECT_NE(next.patch.find("\"count\":2"), std::string::npos);
}

TEST(EventCorrelatorTest, AggregationWindowExpires) {
  FakeClock clock;
  EventCorrelator c(clock);
  for (int i = 0; i < 9; ++i) c.Correlate(MakeEvent("Failed", "m" + std::to_string(i)));
  clock.Advance(601s);
  auto r = c.Correlate(MakeEvent("Failed", "m9"));
  EXPECT_EQ(r.event.message, "m9");
}

TEST(EventCorrelatorTest, DifferentReasonsAreNotCombined) {
  FakeClock clock;
  EventCorrelator c(clock);
  for (int i = 0; i < 20; ++i) {
    auto r = c.Correlate(MakeEvent("Reason" + std::to_string(i), "same"));
    EXPECT_EQ(r.event.message, "same");
  }
}

TEST(EventCorrelatorTest, SpamFilterAllowsBurstThenOnePerFiveMinutes) {
  FakeClock clock;
  EventCorrelator c(clock);
  int written = 0;
  for (int i = 0; i < 40; ++i) {
    if (!c.Correlate(MakeEvent("Synced", "ok")).skip) ++written;
  }
  EXPECT_EQ(written, 25);
  EXPECT_TRUE(c.Correlate(MakeEvent("Synced", "ok")).skip);
  clock.Advance(300s);
  EXPECT_FALSE(c.Correlate(MakeEvent("Synced", "ok")).skip);
  EXPECT_TRUE(c.Correlate(MakeEvent("Synced", "ok")).skip);
  // Another object has its own bucket.
  EXPECT_FALSE(c.Correlate(MakeEvent("Synced", "ok", "db")).skip);
}

TEST(EventCorrelatorTest, PatchEscapesTheMessage) {
  FakeClock clock;
  EventCorrelator c(clock);
  auto first = c.Correlate(MakeEvent("X", "say \"hi\"\n"));
  c.UpdateState(Written(first.event, "1"));
  auto r = c.Correlate(MakeEvent("X", "say \"hi\"\n"));
  EXPECT_NE(r.patch.find(R"("message":"say \"hi\"\n")"), std::string::npos) << r.patch;
}

TEST(EventNameTest, ObjectNameDotHexNanos) {
  WallTime t = WallTime{} + std::chrono::nanoseconds(0x1234abcd);
  EXPECT_EQ(EventName("web", t), "web.1234abcd");
}

}  // namespace
}  // namespace svcplane::client::record
