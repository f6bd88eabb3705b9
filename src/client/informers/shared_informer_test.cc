#include "client/informers/shared_informer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "apiserver/loopback/testing/memory_clientset.h"
#include "client/informers/informer_factory.h"
#include "client/informers/testing/fake_resource_client.h"

namespace svcplane::client::informers {
namespace {

using api::core::v1::Pod;
using api::core::v1::Service;
using apiserver::loopback::testing::MemoryClientset;
using ::testing::ElementsAre;
using testing::FakeResourceClient;
using testing::MakeList;
using testing::TestPod;
using ::testing::UnorderedElementsAre;

bool WaitUntil(const std::function<bool()>& cond, int ms = 10000) {
  for (int i = 0; i < ms / 2; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return cond();
}

// Records handler calls as strings, e.g. "add a initial", "update a 5->6", "delete a tombstone".
class Recorder {
 public:
  ResourceEventHandler<Pod> Handler() {
    ResourceEventHandler<Pod> h;
    h.on_add = [this](const ObjectPtr<Pod>& p, bool initial) {
      Log("add " + p->metadata.name + (initial ? " initial" : ""));
    };
    h.on_update = [this](const ObjectPtr<Pod>& o, const ObjectPtr<Pod>& n) {
      Log("update " + n->metadata.name + (o == n ? " resync" : ""));
    };
    h.on_delete = [this](const ObjectPtr<Pod>& p, bool unknown) {
      Log("delete " + p->metadata.name + (unknown ? " tombstone" : ""));
    };
    return h;
  }
  std::vector<std::string> calls() {
    std::lock_guard lock(mu_);
    return calls_;
  }
  size_t size() { return calls().size(); }

 private:
  void Log(std::string s) {
    std::lock_guard lock(mu_);
    calls_.push_back(std::move(s));
  }
  std::mutex mu_;
  std::vector<std::string> calls_;
};

Pod MakePod(std::string name, std::string app = "web") {
  Pod p;
  p.metadata.name = std::move(name);
  p.metadata.namespace_ = "default";
  p.metadata.labels["app"] = std::move(app);
  p.spec.containers.push_back({.name = "c", .image = "nginx:1.25"});
  return p;
}

class SharedInformerTest : public ::testing::Test {
 protected:
  SharedInformerTest() { mem_.CreateNamespace("default"); }
  ResourceClient<Pod>& pods() { return mem_.clients().Pods(); }
  MemoryClientset mem_;
};

TEST_F(SharedInformerTest, InitialListThenEventsInOrder) {
  ASSERT_TRUE(pods().Create(MakePod("a")).ok());
  ASSERT_TRUE(pods().Create(MakePod("b", "db")).ok());
  SharedIndexInformer<Pod> informer(pods(), {});
  Recorder rec;
  auto reg = informer.AddEventHandler(rec.Handler());
  ASSERT_TRUE(informer
                  .AddIndexer("app",
                              [](const Pod& p) {
                                return std::vector<std::string>{p.metadata.labels.at("app")};
                              })
                  .ok());
  informer.Start();
  EXPECT_FALSE(
      informer.AddIndexer("late", [](const Pod&) { return std::vector<std::string>{}; }).ok());
  ASSERT_TRUE(
      informer.WaitForCacheSync(std::chrono::steady_clock::now() + std::chrono::seconds(10)));
  ASSERT_TRUE(WaitUntil([&] { return reg->HasSynced(); }));
  EXPECT_THAT(rec.calls(), UnorderedElementsAre("add a initial", "add b initial"));

  auto c = pods().Create(MakePod("c"));
  ASSERT_TRUE(c.ok());
  Pod changed = **c;
  changed.metadata.labels["app"] = "db";
  ASSERT_TRUE(pods().Update(changed).ok());
  ASSERT_TRUE(pods().Delete("default", "a").ok());
  ASSERT_TRUE(WaitUntil([&] { return rec.size() == 5; }));
  auto calls = rec.calls();
  EXPECT_THAT(std::vector<std::string>(calls.begin() + 2, calls.end()),
              ElementsAre("add c", "update c", "delete a"));

  // The cache: shared objects, indexes, lister.
  const Lister<Pod>& lister = informer.lister();
  EXPECT_EQ(lister.Get("default", "a"), nullptr);
  auto got_c = pods().Get("default", "c");
  ASSERT_TRUE(got_c.ok());
  EXPECT_EQ(lister.Get("default", "c").get(), got_c->get());  // the registry's own object
  EXPECT_EQ(lister.ByIndex("app", "db").size(), 2u);
  EXPECT_EQ(lister.List("default").size(), 2u);
  auto fresh = pods().List("");
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(informer.LastSyncResourceVersion(), fresh->resource_version);
}

TEST_F(SharedInformerTest, LateHandlerGetsTheCacheThenLiveEvents) {
  ASSERT_TRUE(pods().Create(MakePod("a")).ok());
  SharedIndexInformer<Pod> informer(pods(), {});
  informer.Start();
  ASSERT_TRUE(
      informer.WaitForCacheSync(std::chrono::steady_clock::now() + std::chrono::seconds(10)));
  Recorder rec;
  auto reg = informer.AddEventHandler(rec.Handler());
  ASSERT_TRUE(WaitUntil([&] { return reg->HasSynced(); }));
  ASSERT_TRUE(pods().Create(MakePod("b")).ok());
  ASSERT_TRUE(WaitUntil([&] { return rec.size() == 2; }));
  EXPECT_THAT(rec.calls(), ElementsAre("add a initial", "add b"));
}

TEST_F(SharedInformerTest, TransformAndSelectorsShapeTheCache) {
  ASSERT_TRUE(pods().Create(MakePod("a")).ok());
  ASSERT_TRUE(pods().Create(MakePod("b", "db")).ok());
  SharedIndexInformer<Pod> informer(pods(), {.label_selector = "app=web"});
  ASSERT_TRUE(informer
                  .SetTransform([](ObjectPtr<Pod> p) {
                    auto slim = std::make_shared<Pod>();
                    slim->metadata = p->metadata;
                    return ObjectPtr<Pod>(std::move(slim));
                  })
                  .ok());
  informer.Start();
  ASSERT_TRUE(
      informer.WaitForCacheSync(std::chrono::steady_clock::now() + std::chrono::seconds(10)));
  EXPECT_EQ(informer.lister().List().size(), 1u);
  auto a = informer.lister().Get("default", "a");
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(a->spec.containers.empty());
  ASSERT_TRUE(pods().Create(MakePod("c")).ok());
  ASSERT_TRUE(WaitUntil([&] { return informer.lister().Get("default", "c") != nullptr; }));
  EXPECT_TRUE(informer.lister().Get("default", "c")->spec.containers.empty());
  EXPECT_FALSE(informer.SetTransform(nullptr).ok());
}

TEST_F(SharedInformerTest, ShutdownStopsEveryHandlerCall) {
  SharedIndexInformer<Pod> informer(pods(), {});
  Recorder rec;
  informer.AddEventHandler(rec.Handler());
  informer.Start();
  ASSERT_TRUE(
      informer.WaitForCacheSync(std::chrono::steady_clock::now() + std::chrono::seconds(10)));
  ASSERT_TRUE(pods().Create(MakePod("a")).ok());
  ASSERT_TRUE(WaitUntil([&] { return rec.size() == 1; }));
  informer.Shutdown();
  ASSERT_TRUE(pods().Create(MakePod("b")).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_THAT(rec.calls(), ElementsAre("add a"));
  EXPECT_FALSE(informer.WaitForCacheSync(std::chrono::steady_clock::now()));
}

TEST_F(SharedInformerTest, PeriodicResyncReplaysTheCacheAsUpdates) {
  FakeClock clock;
  ASSERT_TRUE(pods().Create(MakePod("a")).ok());
  SharedIndexInformer<Pod> informer(pods(), {.resync = std::chrono::seconds(30)},
                                    {.clock = &clock});
  Recorder rec;
  informer.AddEventHandler(rec.Handler());
  informer.Start();
  ASSERT_TRUE(WaitUntil([&] { return rec.size() == 1; }));
  clock.BlockUntilWaiters(1);  // the delivery thread waits for the resync deadline
  clock.Advance(std::chrono::seconds(30));
  ASSERT_TRUE(WaitUntil([&] { return rec.size() == 2; }));
  EXPECT_THAT(rec.calls(), ElementsAre("add a initial", "update a resync"));
}

// A relist after 410 diffs the cache against the new list: missed deletes become tombstones.
TEST(SharedInformerRelistTest, RelistAfterGoneEmitsTombstones) {
  FakeResourceClient<Pod> client;
  client.AddList([](const ListOptions&) {
    return MakeList<Pod>({TestPod("a", "1"), TestPod("b", "2"), TestPod("c", "3")}, "10");
  });
  client.AddWatch([](const ListOptions&, const WatchEventHandler<Pod>&, CancelToken&) {
    return GoneError("too old resource version");
  });
  client.AddList([](const ListOptions&) {
    return MakeList<Pod>({TestPod("b", "2"), TestPod("c", "25"), TestPod("d", "26")}, "30");
  });
  SharedIndexInformer<Pod> informer(client, {});
  Recorder rec;
  informer.AddEventHandler(rec.Handler());
  informer.Start();
  ASSERT_TRUE(WaitUntil([&] { return rec.size() == 6; }));
  auto calls = rec.calls();
  EXPECT_THAT(std::vector<std::string>(calls.begin(), calls.begin() + 3),
              UnorderedElementsAre("add a initial", "add b initial", "add c initial"));
  EXPECT_THAT(std::vector<std::string>(calls.begin() + 3, calls.end()),
              UnorderedElementsAre("delete a tombstone", "update c", "add d"));
  EXPECT_EQ(informer.LastSyncResourceVersion(), "30");
  EXPECT_EQ(informer.lister().List().size(), 3u);
}

// A watch that hands over a batch marks every event but the last `more_ready`, and the informer
// wakes its delivery thread once per batch. A watch that ends right after such an event (here:
// all three are marked) must still get them delivered, without waiting for another event.
TEST(SharedInformerBatchTest, EventsHeldForABatchAreDeliveredWhenTheWatchEnds) {
  FakeResourceClient<Pod> client;
  client.AddList([](const ListOptions&) { return MakeList<Pod>({}, "1"); });
  client.AddWatch([](const ListOptions&, const WatchEventHandler<Pod>& handler, CancelToken&) {
    for (const char* name : {"a", "b", "c"}) {
      if (!handler({WatchEventType::kAdded, TestPod(name, "2"), /*more_ready=*/true})) break;
    }
    return Status::Ok();
  });
  SharedIndexInformer<Pod> informer(client, {});
  Recorder rec;
  informer.AddEventHandler(rec.Handler());
  informer.Start();
  ASSERT_TRUE(WaitUntil([&] { return rec.size() == 3; }, 3000));
  EXPECT_THAT(rec.calls(), ElementsAre("add a", "add b", "add c"));
}

// A burst overflows a tiny watch queue and the history is too short to resume from: the
// reflector is dropped, gets 410 and relists; the cache still ends equal to a fresh list.
// The reflector waits its backoff before it watches again; 100 ms is long enough for the burst
// to write past the 20 events of history even under ASan on a loaded machine. With 1-20 ms it
// once came back in time, twice, resumed without a 410 and never relisted.
TEST(SharedInformerGoneTest, CacheConvergesThroughDroppedWatchesAnd410) {
  MemoryClientset mem(/*history_events=*/20, {.watch_queue_capacity = 4});
  mem.CreateNamespace("default");
  auto& pods = mem.clients().Pods();
  SharedIndexInformer<Pod> informer(pods, {},
                                    {.backoff = {.initial = std::chrono::milliseconds(100),
                                                 .max = std::chrono::milliseconds(100)}});
  informer.Start();
  ASSERT_TRUE(
      informer.WaitForCacheSync(std::chrono::steady_clock::now() + std::chrono::seconds(10)));
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(pods.Create(MakePod("p" + std::to_string(i))).ok());
    if (i % 3 == 0) {
      ASSERT_TRUE(pods.Delete("default", "p" + std::to_string(i)).ok());
    }
  }
  auto fresh = pods.List("default");
  ASSERT_TRUE(fresh.ok());
  ASSERT_TRUE(
      WaitUntil([&] { return informer.LastSyncResourceVersion() == fresh->resource_version; }));
  std::vector<std::string> want, got;
  for (const auto& p : fresh->items)
    want.push_back(p->metadata.name + "@" + p->metadata.resource_version);
  for (const auto& p : informer.lister().List())
    got.push_back(p->metadata.name + "@" + p->metadata.resource_version);
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
  EXPECT_GE(informer.reflector()->lists(), 2);  // it did relist
}

TEST(InformerFactoryTest, StartsSyncsAndShutsDownEveryInformer) {
  MemoryClientset mem;
  mem.CreateNamespace("default");
  ASSERT_TRUE(mem.clients().Pods().Create(MakePod("a")).ok());
  auto factory = MakeInformerFactory(mem.clients(), {.namespace_ = "default"});
  auto& pod_informer = factory->Pods();
  EXPECT_EQ(&pod_informer, &factory->For<Pod>());
  factory->Services();
  EXPECT_FALSE(factory->WaitForCacheSync(std::chrono::milliseconds(1)));  // not started
  factory->Start();
  ASSERT_TRUE(factory->WaitForCacheSync(std::chrono::seconds(10)));
  EXPECT_EQ(pod_informer.lister().List().size(), 1u);
  EXPECT_TRUE(factory->Services().HasSynced());
  // Requested after Start: starts at once.
  auto& ns_informer = factory->Namespaces();
  ASSERT_TRUE(factory->WaitForCacheSync(std::chrono::seconds(10)));
  EXPECT_NE(ns_informer.lister().Get("", "default"), nullptr);
  factory->Shutdown();
  EXPECT_FALSE(factory->WaitForCacheSync(std::chrono::milliseconds(1)));
}

}  // namespace
}  // namespace svcplane::client::informers
