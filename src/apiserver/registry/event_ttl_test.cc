#include "apiserver/registry/event_ttl.h"

#include <gtest/gtest.h>

#include "storage/memory/memory_store.h"

namespace svcplane::apiserver::registry {
namespace {

using api::core::v1::Event;
using std::chrono::seconds;

class EventTtlTest : public ::testing::Test {
 protected:
  EventTtlTest() : events_(Ctx()) {}

  RegistryContext Ctx() {
    RegistryContext ctx;
    ctx.store = &store_;
    ctx.now_micros = [] { return int64_t{1714557600'000000}; };
    ctx.check_namespace = [](std::string_view) { return Status::Ok(); };
    return ctx;
  }

  static Event MakeEvent(std::string name) {
    Event ev;
    ev.metadata.name = std::move(name);
    ev.involved_object.kind = "Pod";
    ev.involved_object.namespace_ = "default";
    ev.involved_object.name = "p";
    ev.reason = "Started";
    ev.message = "started";
    ev.type = "Normal";
    ev.source.component = "test";
    ev.count = 1;
    return ev;
  }

  bool Exists(std::string_view name) { return events_.Get("default", name).ok(); }

  storage::memory::MemoryStore store_;
  Registry<Event> events_;
  FakeClock clock_;
};

TEST_F(EventTtlTest, DeletesEventsTtlAfterTheirLastWrite) {
  EventTtl ttl(&events_, clock_, seconds(60));
  ASSERT_TRUE(events_.Create("default", MakeEvent("a"), {}).ok());
  clock_.Advance(seconds(30));
  ASSERT_TRUE(events_.Create("default", MakeEvent("b"), {}).ok());
  clock_.Advance(seconds(29));
  EXPECT_EQ(ttl.SweepForTest(), 0u);

  clock_.Advance(seconds(1));  // a is 60 s old, b 30 s
  EXPECT_EQ(ttl.SweepForTest(), 1u);
  EXPECT_FALSE(Exists("a"));
  EXPECT_TRUE(Exists("b"));

  // An update counts as a write: b lives another TTL from now.
  auto b = events_.Get("default", "b");
  ASSERT_TRUE(b.ok());
  Event updated = *b->obj;
  updated.count = 2;
  ASSERT_TRUE(events_.Update("default", "b", Subresource::kNone, updated, {}).ok());
  clock_.Advance(seconds(59));
  EXPECT_EQ(ttl.SweepForTest(), 0u);
  EXPECT_TRUE(Exists("b"));
  clock_.Advance(seconds(1));
  EXPECT_EQ(ttl.SweepForTest(), 1u);
  EXPECT_FALSE(Exists("b"));
  EXPECT_EQ(ttl.TrackedForTest(), 0u);
}

TEST_F(EventTtlTest, EventsFoundAtStartLiveOneTtlFromThen) {
  ASSERT_TRUE(events_.Create("default", MakeEvent("old"), {}).ok());
  clock_.Advance(seconds(3600));
  EventTtl ttl(&events_, clock_, seconds(10));
  EXPECT_EQ(ttl.TrackedForTest(), 1u);
  EXPECT_EQ(ttl.SweepForTest(), 0u);
  clock_.Advance(seconds(10));
  EXPECT_EQ(ttl.SweepForTest(), 1u);
  EXPECT_FALSE(Exists("old"));
}

TEST_F(EventTtlTest, DryRunsAndDeletesAreNotWrites) {
  EventTtl ttl(&events_, clock_, seconds(10));
  ASSERT_TRUE(events_.Create("default", MakeEvent("dry"), {.dry_run = true}).ok());
  EXPECT_EQ(ttl.TrackedForTest(), 0u);
  ASSERT_TRUE(events_.Create("default", MakeEvent("gone"), {}).ok());
  EXPECT_EQ(ttl.TrackedForTest(), 1u);
  ASSERT_TRUE(events_.Delete("default", "gone", {}).ok());
  EXPECT_EQ(ttl.TrackedForTest(), 0u);
  clock_.Advance(seconds(10));
  EXPECT_EQ(ttl.SweepForTest(), 0u);
}

TEST_F(EventTtlTest, BackgroundSweeperRunsOnTheClock) {
  EventTtl ttl(&events_, clock_, seconds(4));
  ASSERT_TRUE(events_.Create("default", MakeEvent("a"), {}).ok());
  ttl.Start();
  // Period ttl/4 = 1 s. Keep time moving until the sweeper has deleted it (bounded).
  for (int i = 0; i < 500 && Exists("a"); ++i) {
    clock_.Advance(seconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_FALSE(Exists("a"));
}

}  // namespace
}  // namespace svcplane::apiserver::registry
