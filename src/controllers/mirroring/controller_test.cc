// The mirroring controller against the real in-process API and informers (loopback).

#include "controllers/mirroring/controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

#include "controllers/endpointslice/testing/loopback_env.h"
#include "controllers/endpointslice/testing/wait.h"

namespace svcplane::controllers::mirroring {
namespace {

using api::core::v1::EndpointAddress;
using api::core::v1::EndpointPort;
using api::core::v1::EndpointSubset;
using endpointslice::RecordingEventSink;
using endpointslice::testing::MakeService;
using endpointslice::testing::WaitFor;
using ::testing::HasSubstr;

// Holds the EndpointSlice informer's watch events on its reflector thread while closed (as its
// transform): the informer cache then lags behind the API server for as long as a test wants.
class SliceGate {
 public:
  std::function<client::ObjectPtr<EndpointSlice>(client::ObjectPtr<EndpointSlice>)> Transform() {
    return [this](client::ObjectPtr<EndpointSlice> s) {
      std::unique_lock l(mu_);
      ++held_;
      cv_.wait(l, [&] { return open_; });
      return s;
    };
  }
  int Held() {
    std::lock_guard l(mu_);
    return held_;
  }
  void Open() {
    std::lock_guard l(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;  // guarded by mu_
  int held_ = 0;       // guarded by mu_
};

class MirroringLoopbackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    api::core::v1::Service svc = MakeService("custom");
    svc.spec.selector.clear();
    ASSERT_TRUE(env_.clients().Services().Create(svc).ok());
  }
  void TearDown() override {
    slice_gate_.Open();  // a held watch event would block the informers' shutdown
    if (controller_) controller_->Shutdown();
    env_.informers().Shutdown();
  }
  void Create() {
    MirroringControllerOptions options;
    options.retry_base = std::chrono::milliseconds(1);
    controller_ = std::make_unique<MirroringController>(env_.informers(), env_.clients(), events_,
                                                        &metrics_, RealClock::Get(), options);
  }
  void Start() {
    Create();
    env_.informers().Start();
    controller_->Run(2);
  }
  // What a worker does with the next queued key, on the test thread: the key synced.
  std::string SyncNextKey() {
    auto& queue = controller_->QueueForTest();
    if (queue.Len() == 0) return "";
    auto key = queue.Get();
    if (!key) return "";
    Status s = controller_->SyncForTest(*key);
    EXPECT_TRUE(s.ok()) << *key << ": " << s.ToString();
    queue.Forget(*key);
    queue.Done(*key);
    return *key;
  }
  static Endpoints Custom(std::vector<std::string> ips) {
    Endpoints e;
    e.metadata.name = "custom";
    e.metadata.namespace_ = "ns";
    EndpointSubset s;
    for (auto& ip : ips) s.addresses.push_back(EndpointAddress{ip, "", {}, {}, {}});
    s.ports.push_back(EndpointPort{"http", 8080, "TCP", {}, {}});
    e.subsets.push_back(s);
    return e;
  }
  std::vector<client::ObjectPtr<EndpointSlice>> Mirrored() {
    client::ListOptions opts;
    opts.label_selector = "kubernetes.io/service-name=custom";
    auto list = env_.clients().EndpointSlices().List("ns", opts);
    return list.ok() ? list->items : std::vector<client::ObjectPtr<EndpointSlice>>{};
  }
  size_t MirroredEndpoints() {
    size_t n = 0;
    for (const auto& s : Mirrored()) n += s->endpoints.size();
    return n;
  }

  SliceGate slice_gate_;  // before env_: outlives the informer whose transform it is
  endpointslice::testing::LoopbackEnv env_;
  RecordingEventSink events_;
  MetricsRegistry metrics_;
  std::unique_ptr<MirroringController> controller_;
};

TEST_F(MirroringLoopbackTest, CustomEndpointsAreMirroredAndFollowed) {
  ASSERT_TRUE(env_.clients().Endpoints().Create(Custom({"10.1.0.1", "10.1.0.2"})).ok());
  Start();
  ASSERT_TRUE(WaitFor([&] { return Mirrored().size() == 1 && MirroredEndpoints() == 2; }));
  const auto slice = Mirrored()[0];
  EXPECT_EQ(slice->metadata.labels.at("endpointslice.kubernetes.io/managed-by"),
            "endpointslicemirroring-controller.k8s.io");
  ASSERT_EQ(slice->metadata.owner_references.size(), 1u);
  EXPECT_EQ(slice->metadata.owner_references[0].kind, "Endpoints");
  EXPECT_EQ(slice->address_type, "IPv4");

  // The user edits the Endpoints: the slice follows (same name, updated in place).
  auto current = env_.clients().Endpoints().Get("ns", "custom");
  ASSERT_TRUE(current.ok());
  Endpoints edited = **current;
  edited.subsets = Custom({"10.1.0.1", "10.1.0.2", "10.1.0.3"}).subsets;
  auto updated = env_.clients().Endpoints().Update(edited);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  ASSERT_TRUE(WaitFor([&] { return MirroredEndpoints() == 3; }))
      << controller_->SyncForTest("ns/custom").ToString();
  EXPECT_EQ(Mirrored()[0]->metadata.name, slice->metadata.name);

  // skip-mirror=true removes what was mirrored.
  current = env_.clients().Endpoints().Get("ns", "custom");
  edited = **current;
  edited.metadata.labels["endpointslice.kubernetes.io/skip-mirror"] = "true";
  ASSERT_TRUE(env_.clients().Endpoints().Update(edited).ok());
  ASSERT_TRUE(WaitFor([&] { return Mirrored().empty(); }));
  EXPECT_THAT(metrics_.RenderPrometheus(),
              HasSubstr("endpoint_slice_mirroring_controller_changes{operation=\"create\"} 1"));
}

TEST_F(MirroringLoopbackTest, ServiceGainingASelectorStopsMirroring) {
  ASSERT_TRUE(env_.clients().Endpoints().Create(Custom({"10.1.0.1"})).ok());
  Start();
  ASSERT_TRUE(WaitFor([&] { return Mirrored().size() == 1; }));
  auto svc = env_.clients().Services().Get("ns", "custom");
  ASSERT_TRUE(svc.ok());
  api::core::v1::Service selecting = **svc;
  selecting.spec.selector = {{"app", "x"}};
  ASSERT_TRUE(env_.clients().Services().Update(selecting).ok());
  ASSERT_TRUE(WaitFor([&] { return Mirrored().empty(); }));
}

// The race behind the rare failure of the test above, made deterministic: the Service's update
// is synced before the EndpointSlice informer has seen the slice the controller had just created,
// so that cleanup lists nothing. The slice's add event must still bring the key back; before the
// fix the tracker (still holding our create) took it for our own write already seen, and the
// slice stayed mirrored for good. No workers run: the test syncs each queued key itself.
TEST_F(MirroringLoopbackTest, SelectorCleanupCatchesASliceTheCacheShowsLate) {
  ASSERT_TRUE(env_.clients().Endpoints().Create(Custom({"10.1.0.1"})).ok());
  ASSERT_TRUE(env_.informers().EndpointSlices().SetTransform(slice_gate_.Transform()).ok());
  Create();
  // Registered after the controller's handlers: each informer calls its handlers in order, so
  // an event seen here has been handled by the controller.
  struct Seen {
    std::atomic<int> endpoints_added{0}, services_added{0}, selectors{0}, slices_added{0};
  };
  auto seen = std::make_shared<Seen>();  // shared: the handlers may outlive this body
  client::informers::ResourceEventHandler<Endpoints> ep;
  ep.on_add = [seen](const auto&, bool) { ++seen->endpoints_added; };
  client::informers::ResourceEventHandler<api::core::v1::Service> svc;
  svc.on_add = [seen](const auto&, bool) { ++seen->services_added; };
  svc.on_update = [seen](const auto&, const auto& s) {
    if (!s->spec.selector.empty()) ++seen->selectors;
  };
  client::informers::ResourceEventHandler<EndpointSlice> slice;
  slice.on_add = [seen](const auto&, bool) { ++seen->slices_added; };
  auto r1 = env_.informers().Endpoints().AddEventHandler(std::move(ep));
  auto r2 = env_.informers().Services().AddEventHandler(std::move(svc));
  auto r3 = env_.informers().EndpointSlices().AddEventHandler(std::move(slice));
  env_.informers().Start();
  ASSERT_TRUE(env_.informers().WaitForCacheSync(std::chrono::seconds(20)));
  ASSERT_TRUE(WaitFor([&] { return seen->endpoints_added == 1 && seen->services_added == 1; }));

  // Mirror: the slice is created, its watch event held before the cache.
  ASSERT_EQ(SyncNextKey(), "ns/custom");
  ASSERT_EQ(Mirrored().size(), 1u);
  ASSERT_TRUE(WaitFor([&] { return slice_gate_.Held() == 1; }));
  ASSERT_EQ(controller_->QueueForTest().Len(), 0);

  // The Service gains a selector; its sync sees no slice in the cache, so deletes nothing.
  auto current = env_.clients().Services().Get("ns", "custom");
  ASSERT_TRUE(current.ok());
  api::core::v1::Service selecting = **current;
  selecting.spec.selector = {{"app", "x"}};
  ASSERT_TRUE(env_.clients().Services().Update(selecting).ok());
  ASSERT_TRUE(WaitFor([&] { return seen->selectors == 1; }));
  ASSERT_EQ(SyncNextKey(), "ns/custom");
  ASSERT_EQ(Mirrored().size(), 1u);
  ASSERT_EQ(controller_->QueueForTest().Len(), 0);

  // The cache catches up: the add must queue the Endpoints, whose sync deletes the slice.
  slice_gate_.Open();
  ASSERT_TRUE(WaitFor([&] { return seen->slices_added == 1; }));
  ASSERT_EQ(SyncNextKey(), "ns/custom") << "the late slice's add event queued nothing";
  EXPECT_TRUE(Mirrored().empty());
}

TEST_F(MirroringLoopbackTest, TooManyAddressesWarnOnTheEndpoints) {
  std::vector<std::string> ips;
  for (int i = 0; i < 1001; ++i) {
    ips.push_back("10.2." + std::to_string(i / 256) + "." + std::to_string(i % 256));
  }
  ASSERT_TRUE(env_.clients().Endpoints().Create(Custom(ips)).ok());
  Start();
  ASSERT_TRUE(WaitFor([&] { return MirroredEndpoints() == 1000; }));
  bool warned = false;
  ASSERT_TRUE(WaitFor([&] {
    for (const auto& r : events_.Records()) {
      warned |= r.event.reason == "TooManyAddressesToMirror" && r.object.kind == "Endpoints" &&
                r.component == "endpoint-slice-mirroring-controller";
    }
    return warned;
  }));
}

}  // namespace
}  // namespace svcplane::controllers::mirroring
