#include "client/record/event_broadcaster.h"

#include <gtest/gtest.h>

#include <atomic>

#include "client/testing/fake_clientset.h"

namespace svcplane::client::record {
namespace {

using api::core::v1::Event;
using client::testing::Action;
using client::testing::FakeResourceClient;
using namespace std::chrono_literals;

api::meta::ObjectReference Ref(std::string name = "web") {
  api::meta::ObjectReference ref;
  ref.kind = "Service";
  ref.api_version = "v1";
  ref.namespace_ = "prod";
  ref.name = std::move(name);
  ref.uid = "uid-1";
  return ref;
}

std::vector<std::string> Verbs(const std::vector<Action>& actions) {
  std::vector<std::string> out;
  for (const auto& a : actions) out.push_back(a.verb);
  return out;
}

TEST(EventBroadcasterTest, WritesAnEventWithSourceAndObject) {
  FakeClock clock;
  FakeResourceClient<Event> events;
  ClientEventSink sink(events);
  EventBroadcaster b(sink, {.clock = &clock});
  auto rec = b.NewRecorder({.component = "endpoint-controller", .host = "node-1"});
  rec->Eventf(Ref(), kEventTypeWarning, "FailedToSync", "sync of {} failed: {}", "web", 42);
  b.WaitIdleForTest();

  auto all = events.All();
  ASSERT_EQ(all.size(), 1u);
  const Event& e = *all[0];
  EXPECT_EQ(e.metadata.namespace_, "prod");
  EXPECT_EQ(e.metadata.name.rfind("web.", 0), 0u);
  EXPECT_EQ(e.involved_object, Ref());
  EXPECT_EQ(e.reason, "FailedToSync");
  EXPECT_EQ(e.message, "sync of web failed: 42");
  EXPECT_EQ(e.type, "Warning");
  EXPECT_EQ(e.count, 1);
  EXPECT_EQ(e.source.component, "endpoint-controller");
  EXPECT_EQ(e.source.host, "node-1");
  EXPECT_EQ(e.reporting_component, "endpoint-controller");
  EXPECT_EQ(e.first_timestamp, e.last_timestamp);
  EXPECT_FALSE(e.first_timestamp.IsZero());
}

TEST(EventBroadcasterTest, RepeatsArePatchedIntoOneEvent) {
  FakeClock clock;
  FakeResourceClient<Event> events;
  ClientEventSink sink(events);
  EventBroadcaster b(sink, {.clock = &clock});
  auto rec = b.NewRecorder({.component = "c"});
  for (int i = 0; i < 3; ++i) {
    rec->Event(Ref(), kEventTypeNormal, "Synced", "ok");
    b.WaitIdleForTest();
    clock.Advance(10s);
  }
  auto all = events.All();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0]->count, 3);
  EXPECT_GT(all[0]->last_timestamp, all[0]->first_timestamp);
  EXPECT_EQ(Verbs(events.Actions()), (std::vector<std::string>{"create", "patch", "patch"}));
}

TEST(EventBroadcasterTest, PatchOfAVanishedEventFallsBackToCreate) {
  FakeClock clock;
  FakeResourceClient<Event> events;
  ClientEventSink sink(events);
  EventBroadcaster b(sink, {.clock = &clock});
  auto rec = b.NewRecorder({.component = "c"});
  rec->Event(Ref(), kEventTypeNormal, "Synced", "ok");
  b.WaitIdleForTest();
  auto first = events.All().at(0);
  ASSERT_TRUE(events.Delete(first->metadata.namespace_, first->metadata.name).ok());
  rec->Event(Ref(), kEventTypeNormal, "Synced", "ok");
  b.WaitIdleForTest();
  EXPECT_EQ(Verbs(events.Actions()),
            (std::vector<std::string>{"create", "delete", "patch", "create"}));
  ASSERT_EQ(events.All().size(), 1u);
  EXPECT_EQ(events.All()[0]->count, 2);
}

TEST(EventBroadcasterTest, InvalidTypeIsDropped) {
  FakeClock clock;
  FakeResourceClient<Event> events;
  ClientEventSink sink(events);
  EventBroadcaster b(sink, {.clock = &clock});
  b.NewRecorder({.component = "c"})->Event(Ref(), "Bogus", "R", "m");
  b.WaitIdleForTest();
  EXPECT_TRUE(events.Actions().empty());
}

TEST(EventBroadcasterTest, RejectedEventsAreNotRetried) {
  FakeClock clock;
  FakeResourceClient<Event> events;
  events.SetReactor([](const Action&) { return InvalidError("bad event"); });
  ClientEventSink sink(events);
  EventBroadcaster b(sink, {.clock = &clock});
  b.NewRecorder({.component = "c"})->Event(Ref(), kEventTypeNormal, "R", "m");
  b.WaitIdleForTest();
  EXPECT_EQ(events.Actions().size(), 1u);
}

TEST(EventBroadcasterTest, UnavailableServerIsRetriedUntilItAnswers) {
  FakeClock clock;
  FakeResourceClient<Event> events;
  std::atomic<int> failures{2};
  events.SetReactor([&](const Action&) -> std::optional<Status> {
    if (failures.fetch_sub(1) > 0) return UnavailableError("connection refused");
    return std::nullopt;
  });
  ClientEventSink sink(events);
  EventBroadcaster b(sink, {.clock = &clock});
  b.NewRecorder({.component = "c"})->Event(Ref(), kEventTypeNormal, "R", "m");
  // Each failed try sleeps on the fake clock (at most 10 s).
  for (size_t tries = 1; tries <= 2; ++tries) {
    // Once this try is recorded the previous sleep is over, so the next waiter is its sleep.
    while (events.Actions().size() < tries) std::this_thread::yield();
    clock.BlockUntilWaiters(1);
    clock.Advance(10s);
  }
  b.WaitIdleForTest();
  EXPECT_EQ(events.Actions().size(), 3u);
  EXPECT_EQ(events.All().size(), 1u);
}

TEST(EventBroadcasterTest, FullQueueDropsInsteadOfBlocking) {
  FakeClock clock;
  FakeResourceClient<Event> events;
  // The first write blocks the worker in retries; everything else queues up.
  events.SetReactor([](const Action&) { return UnavailableError("down"); });
  ClientEventSink sink(events);
  EventBroadcaster b(sink, {.clock = &clock, .max_queued_events = 5});
  auto rec = b.NewRecorder({.component = "c"});
  for (int i = 0; i < 50; ++i) {
    rec->Event(Ref("o" + std::to_string(i)), kEventTypeNormal, "R", "m");
  }
  EXPECT_GE(b.dropped(), 44u);
  b.Shutdown();  // does not wait for the retries
}

}  // namespace
}  // namespace svcplane::client::record
