// The mirroring controller against the real in-process API and informers (loopback).

#include "controllers/mirroring/controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

class MirroringLoopbackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    api::core::v1::Service svc = MakeService("custom");
    svc.spec.selector.clear();
    ASSERT_TRUE(env_.clients().Services().Create(svc).ok());
  }
  void TearDown() override {
    if (controller_) controller_->Shutdown();
    env_.informers().Shutdown();
  }
  void Start() {
    MirroringControllerOptions options;
    options.retry_base = std::chrono::milliseconds(1);
    controller_ = std::make_unique<MirroringController>(env_.informers(), env_.clients(), events_,
                                                        &metrics_, RealClock::Get(), options);
    env_.informers().Start();
    controller_->Run(2);
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
