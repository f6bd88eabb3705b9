#include "client/informers/reflector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "client/informers/testing/fake_resource_client.h"

namespace svcplane::client::informers {
namespace {

using api::core::v1::Pod;
using ::testing::ElementsAre;
using testing::FakeResourceClient;
using testing::MakeList;
using testing::TestPod;

// Runs a Reflector on its own thread and records what it feeds the sink.
class ReflectorHarness {
 public:
  explicit ReflectorHarness(FakeResourceClient<Pod>& client, ReflectorOptions options = {}) {
    ReflectorSink<Pod> sink;
    sink.replace = [this](std::vector<ObjectPtr<Pod>> items, const std::string& rv) {
      std::lock_guard lock(mu_);
      log_.push_back("replace " + std::to_string(items.size()) + " @" + rv);
    };
    sink.apply = [this](WatchEventType type, ObjectPtr<Pod> obj, bool) {
      std::lock_guard lock(mu_);
      log_.push_back(std::string(type == WatchEventType::kDeleted ? "delete " : "upsert ") +
                     obj->metadata.name + " @" + obj->metadata.resource_version);
    };
    sink.progress = [this](const std::string& rv) {
      std::lock_guard lock(mu_);
      rv_ = rv;
    };
    reflector_ = std::make_unique<Reflector<Pod>>(client, std::move(sink), options);
    thread_ = std::thread([this] { reflector_->Run(); });
  }
  ~ReflectorHarness() {
    reflector_->Stop();
    thread_.join();
  }

  std::vector<std::string> log() {
    std::lock_guard lock(mu_);
    return log_;
  }
  std::string rv() {
    std::lock_guard lock(mu_);
    return rv_;
  }
  // Waits (real time, bounded) until the log has `n` entries.
  bool WaitForLog(size_t n) {
    for (int i = 0; i < 2000; ++i) {
      if (log().size() >= n) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
  }
  Reflector<Pod>& reflector() { return *reflector_; }

 private:
  std::mutex mu_;
  std::vector<std::string> log_;
  std::string rv_;
  std::unique_ptr<Reflector<Pod>> reflector_;
  std::thread thread_;
};

bool WaitUntil(const std::function<bool()>& cond) {
  for (int i = 0; i < 2000; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

TEST(ReflectorTest, PagedListThenWatchFromTheListsVersion) {
  FakeResourceClient<Pod> client;
  client.AddList([](const ListOptions& o) {
    EXPECT_EQ(o.limit, 2);
    EXPECT_EQ(o.resource_version, "0");  // client-go: the first list may come from a cache
    return MakeList<Pod>({TestPod("a", "5"), TestPod("b", "6")}, "10", "page2");
  });
  client.AddList([](const ListOptions& o) {
    EXPECT_EQ(o.continue_token, "page2");
    EXPECT_EQ(o.limit, 2);
    EXPECT_EQ(o.resource_version, "");  // not allowed with a continue token
    return MakeList<Pod>({TestPod("c", "7")}, "10");
  });
  client.AddWatch([](const ListOptions&, const WatchEventHandler<Pod>& h, CancelToken&) {
    h({WatchEventType::kAdded, TestPod("d", "11")});
    h({WatchEventType::kBookmark, TestPod("", "15")});
    return Status::Ok();  // a server-side timeout
  });
  ReflectorHarness r(client, {.page_size = 2, .label_selector = "app=web"});
  ASSERT_TRUE(r.WaitForLog(2));
  ASSERT_TRUE(WaitUntil([&] { return client.watch_calls().size() >= 2; }));
  EXPECT_THAT(r.log(), ElementsAre("replace 3 @10", "upsert d @11"));
  auto watches = client.watch_calls();
  EXPECT_EQ(watches[0].resource_version, "10");
  EXPECT_TRUE(watches[0].allow_watch_bookmarks);
  EXPECT_EQ(watches[0].label_selector, "app=web");
  ASSERT_TRUE(watches[0].timeout_seconds.has_value());
  EXPECT_GE(*watches[0].timeout_seconds, 300);
  EXPECT_LE(*watches[0].timeout_seconds, 600);
  // The second watch resumes after the bookmark, without relisting.
  EXPECT_EQ(watches[1].resource_version, "15");
  EXPECT_EQ(client.list_calls().size(), 2u);
  EXPECT_EQ(r.rv(), "15");
}

TEST(ReflectorTest, GoneRelistsAtOnce) {
  FakeResourceClient<Pod> client;
  client.AddList([](const ListOptions&) { return MakeList<Pod>({TestPod("a", "5")}, "10"); });
  client.AddWatch([](const ListOptions&, const WatchEventHandler<Pod>& h, CancelToken&) {
    h({WatchEventType::kModified, TestPod("a", "12")});
    return GoneError("too old resource version: 12 (20)");
  });
  client.AddList([](const ListOptions&) { return MakeList<Pod>({TestPod("b", "21")}, "30"); });
  ReflectorHarness r(client);
  ASSERT_TRUE(r.WaitForLog(3));
  ASSERT_TRUE(WaitUntil([&] { return client.watch_calls().size() >= 2; }));
  EXPECT_THAT(r.log(), ElementsAre("replace 1 @10", "upsert a @12", "replace 1 @30"));
  EXPECT_EQ(client.watch_calls()[1].resource_version, "30");
}

// client-go's relistResourceVersion: after a watch's 410 the relist asks for the last version the
// reflector saw, unpaged (a server with a watch cache answers it from the cache); if that version
// is gone too, a consistent read (""); the next relist goes back to the version it listed at.
TEST(ReflectorTest, RelistAsksForTheLastVersionSeenThenFallsBackToAConsistentRead) {
  FakeResourceClient<Pod> client;
  client.AddList([](const ListOptions& o) {
    EXPECT_EQ(o.resource_version, "0");
    EXPECT_EQ(o.limit, 500);
    return MakeList<Pod>({TestPod("a", "5")}, "10");  // the server ignored the limit
  });
  client.AddWatch([](const ListOptions&, const WatchEventHandler<Pod>& h, CancelToken&) {
    h({WatchEventType::kModified, TestPod("a", "12")});
    return GoneError("too old resource version: 12 (20)");
  });
  client.AddList([](const ListOptions& o) -> Result<ObjectList<Pod>> {
    EXPECT_EQ(o.resource_version, "12");
    EXPECT_EQ(o.limit, 0);
    return GoneError("too old resource version: 12 (20)");
  });
  client.AddList([](const ListOptions& o) {
    EXPECT_EQ(o.resource_version, "");
    EXPECT_EQ(o.limit, 0);
    return MakeList<Pod>({TestPod("b", "21")}, "30");
  });
  client.AddWatch([](const ListOptions& o, const WatchEventHandler<Pod>&, CancelToken&) {
    EXPECT_EQ(o.resource_version, "30");
    return GoneError("too old resource version: 30 (40)");
  });
  client.AddList([](const ListOptions& o) {
    EXPECT_EQ(o.resource_version, "30");
    return MakeList<Pod>({}, "41");
  });
  ReflectorHarness r(client);
  ASSERT_TRUE(r.WaitForLog(4));
  EXPECT_THAT(r.log(),
              ElementsAre("replace 1 @10", "upsert a @12", "replace 1 @30", "replace 0 @41"));
  EXPECT_EQ(client.list_calls().size(), 4u);
}

// A version newer than the server's cache (504 "Too large resource version") also falls back.
TEST(ReflectorTest, TooLargeResourceVersionFallsBackToAConsistentRead) {
  FakeResourceClient<Pod> client;
  client.AddList([](const ListOptions&) { return MakeList<Pod>({}, "10"); });
  client.AddWatch([](const ListOptions&, const WatchEventHandler<Pod>&, CancelToken&) {
    return GoneError("too old resource version: 10 (20)");
  });
  client.AddList([](const ListOptions& o) -> Result<ObjectList<Pod>> {
    EXPECT_EQ(o.resource_version, "10");
    return Status(Code::kTimeout, "Too large resource version: 10, current: 5");
  });
  client.AddList([](const ListOptions& o) {
    EXPECT_EQ(o.resource_version, "");
    return MakeList<Pod>({TestPod("a", "21")}, "30");
  });
  ReflectorHarness r(client);
  ASSERT_TRUE(r.WaitForLog(2));
  EXPECT_THAT(r.log(), ElementsAre("replace 0 @10", "replace 1 @30"));
}

// A server that pages a list at "0" has no watch cache: relists keep paging (client-go's
// paginatedResult), rather than asking it for everything at once.
TEST(ReflectorTest, AServerThatPagedAtZeroKeepsGettingPagedRelists) {
  FakeResourceClient<Pod> client;
  client.AddList([](const ListOptions& o) {
    EXPECT_EQ(o.resource_version, "0");
    return MakeList<Pod>({TestPod("a", "5")}, "10", "next");
  });
  client.AddList([](const ListOptions&) { return MakeList<Pod>({TestPod("b", "6")}, "10"); });
  client.AddWatch([](const ListOptions&, const WatchEventHandler<Pod>&, CancelToken&) {
    return GoneError("too old resource version: 10 (20)");
  });
  client.AddList([](const ListOptions& o) {
    EXPECT_EQ(o.resource_version, "10");
    EXPECT_EQ(o.limit, 1);
    return MakeList<Pod>({TestPod("c", "21")}, "30");
  });
  ReflectorHarness r(client, {.page_size = 1});
  ASSERT_TRUE(r.WaitForLog(2));
  EXPECT_THAT(r.log(), ElementsAre("replace 2 @10", "replace 1 @30"));
}

TEST(ReflectorTest, ExpiredContinueTokenFallsBackToOneFullList) {
  FakeResourceClient<Pod> client;
  client.AddList(
      [](const ListOptions&) { return MakeList<Pod>({TestPod("a", "5")}, "10", "next"); });
  client.AddList([](const ListOptions&) -> Result<ObjectList<Pod>> {
    return GoneError("continue token expired");
  });
  client.AddList([](const ListOptions& o) {
    EXPECT_EQ(o.limit, 0);
    EXPECT_EQ(o.continue_token, "");
    EXPECT_EQ(o.resource_version, "0");  // the version the first page asked for
    return MakeList<Pod>({TestPod("a", "5"), TestPod("b", "6")}, "11");
  });
  ReflectorHarness r(client, {.page_size = 1});
  ASSERT_TRUE(r.WaitForLog(1));
  EXPECT_THAT(r.log(), ElementsAre("replace 2 @11"));
}

TEST(ReflectorTest, ListErrorsBackOffOnTheClock) {
  FakeClock clock;
  FakeResourceClient<Pod> client;
  for (int i = 0; i < 3; ++i) {
    client.AddList([](const ListOptions&) -> Result<ObjectList<Pod>> {
      return UnavailableError("connection refused");
    });
  }
  client.AddList([](const ListOptions&) { return MakeList<Pod>({TestPod("a", "1")}, "2"); });
  ReflectorHarness r(client, {.clock = &clock, .backoff = {.jitter = 0}});
  for (int expected : {800, 1600, 3200}) {
    clock.BlockUntilWaiters(1);
    const size_t calls = client.list_calls().size();
    // Not a millisecond early.
    clock.Advance(std::chrono::milliseconds(expected - 1));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(client.list_calls().size(), calls);
    clock.Advance(std::chrono::milliseconds(1));
    ASSERT_TRUE(WaitUntil([&] { return client.list_calls().size() == calls + 1; }));
  }
  ASSERT_TRUE(r.WaitForLog(1));
  EXPECT_THAT(r.log(), ElementsAre("replace 1 @2"));
}

TEST(ReflectorTest, BrokenWatchBacksOffAndResumesWithoutRelisting) {
  FakeClock clock;
  FakeResourceClient<Pod> client;
  client.AddList([](const ListOptions&) { return MakeList<Pod>({}, "10"); });
  client.AddWatch([](const ListOptions&, const WatchEventHandler<Pod>& h, CancelToken&) {
    h({WatchEventType::kAdded, TestPod("a", "11")});
    return UnavailableError("connection reset");
  });
  ReflectorHarness r(client, {.clock = &clock, .backoff = {.jitter = 0}});
  clock.BlockUntilWaiters(1);
  EXPECT_EQ(client.watch_calls().size(), 1u);
  clock.Advance(std::chrono::milliseconds(800));
  ASSERT_TRUE(WaitUntil([&] { return client.watch_calls().size() == 2; }));
  EXPECT_EQ(client.watch_calls()[1].resource_version, "11");
  EXPECT_EQ(client.list_calls().size(), 1u);
}

TEST(ReflectorTest, StopCancelsTheWatch) {
  FakeResourceClient<Pod> client;
  client.AddList([](const ListOptions&) { return MakeList<Pod>({}, "10"); });
  auto r = std::make_unique<ReflectorHarness>(client);
  ASSERT_TRUE(WaitUntil([&] { return client.watch_calls().size() == 1; }));
  r.reset();  // joins: the blocked watch returned once cancelled
  EXPECT_EQ(client.watch_calls().size(), 1u);
}

}  // namespace
}  // namespace svcplane::client::informers
