// The EndpointSlice controller against the real in-process API and real informers.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/errors.h"
#include "controllers/endpointslice/controller.h"
#include "controllers/endpointslice/testing/loopback_env.h"
#include "controllers/endpointslice/testing/wait.h"
#include "controllers/endpointslice/utils.h"

namespace svcplane::controllers::endpointslice {
namespace {

using api::discovery::v1::EndpointSlice;
using testing::WaitFor;

class EndpointSliceLoopbackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    api::core::v1::Service svc = testing::MakeService("svc");
    ASSERT_TRUE(env_.clients().Services().Create(svc).ok());
    ASSERT_TRUE(env_.clients().Nodes().Create(testing::MakeNode("node-1", "zone-a")).ok());
  }
  void Start() {
    EndpointSliceControllerOptions options;
    options.retry_base = std::chrono::milliseconds(5);
    controller_ = std::make_unique<EndpointSliceController>(
        env_.informers(), env_.clients(), events_, &metrics_, RealClock::Get(), options);
    env_.informers().Start();
    controller_->Run(2);
  }
  void TearDown() override {
    if (controller_) controller_->Shutdown();
    env_.informers().Shutdown();
  }
  std::vector<client::ObjectPtr<EndpointSlice>> Slices() {
    auto list = env_.clients().EndpointSlices().List("ns");
    return list.ok() ? list->items : std::vector<client::ObjectPtr<EndpointSlice>>{};
  }
  int CountEndpoints(bool ready_only = false) {
    int n = 0;
    for (const auto& s : Slices()) {
      for (const auto& e : s->endpoints) n += (!ready_only || e.conditions.ready == true) ? 1 : 0;
    }
    return n;
  }

  testing::LoopbackEnv env_;
  RecordingEventSink events_;
  MetricsRegistry metrics_;
  std::unique_ptr<EndpointSliceController> controller_;
};

TEST_F(EndpointSliceLoopbackTest, ServiceWithPodsGetsSlicesThatFollowThePods) {
  for (int i = 0; i < 250; ++i) ASSERT_TRUE(env_.CreatePod(i).ok());
  Start();
  ASSERT_TRUE(WaitFor([&] { return Slices().size() == 3 && CountEndpoints() == 250; }))
      << Slices().size() << " slices, " << CountEndpoints() << " endpoints";
  std::multiset<size_t> sizes;
  for (const auto& s : Slices()) {
    sizes.insert(s->endpoints.size());
    EXPECT_EQ(s->address_type, "IPv4");
    EXPECT_EQ(s->metadata.labels.at("endpointslice.kubernetes.io/managed-by"),
              "endpointslice-controller.k8s.io");
    EXPECT_THAT(s->metadata.rest->generate_name, "svc-");
    EXPECT_TRUE(
        s->metadata.annotations.contains("endpoints.kubernetes.io/last-change-trigger-time"));
  }
  EXPECT_EQ(sizes, (std::multiset<size_t>{50, 100, 100}));

  ASSERT_TRUE(env_.SetReady("pod-3", false).ok());
  ASSERT_TRUE(WaitFor([&] { return CountEndpoints(/*ready_only=*/true) == 249; }))
      << CountEndpoints(true) << " ready; pod-3 ready condition in the API: "
      << (*env_.clients().Pods().Get("ns", "pod-3"))->status.conditions.at(0).status
      << "; events: " << events_.Records().size();
  // A graceful delete leaves a terminating endpoint; a forced one removes it.
  ASSERT_TRUE(env_.clients().Pods().Delete("ns", "pod-4").ok());
  auto terminating = [&] {
    for (const auto& s : Slices()) {
      for (const auto& e : s->endpoints) {
        if (e.target_ref && e.target_ref->name == "pod-4") {
          return e.conditions.terminating == true && e.conditions.ready == false &&
                 e.conditions.serving == true;
        }
      }
    }
    return false;
  };
  ASSERT_TRUE(WaitFor(terminating));
  client::DeleteOptions now;
  now.grace_period_seconds = 0;
  ASSERT_TRUE(env_.clients().Pods().Delete("ns", "pod-4", now).ok());
  ASSERT_TRUE(WaitFor([&] { return CountEndpoints() == 249; }));
  EXPECT_EQ(Slices().size(), 3u);
}

TEST_F(EndpointSliceLoopbackTest, PodOnUnknownNodeIsRetriedUntilTheNodeExists) {
  ASSERT_TRUE(env_.CreatePod(0).ok());
  ASSERT_TRUE(env_.CreatePod(1, true, "node-2").ok());
  Start();
  ASSERT_TRUE(WaitFor([&] { return CountEndpoints() == 1; }));
  bool warned = false;
  ASSERT_TRUE(WaitFor([&] {
    for (const auto& r : events_.Records()) {
      warned |= r.event.reason == "FailedToUpdateEndpointSlices" &&
                r.event.message.find("Node node-2 Not Found") != std::string::npos;
    }
    return warned;
  }));
  ASSERT_TRUE(env_.clients().Nodes().Create(testing::MakeNode("node-2", "zone-b")).ok());
  ASSERT_TRUE(WaitFor([&] { return CountEndpoints() == 2; }));
}

TEST_F(EndpointSliceLoopbackTest, DeletingTheServiceDeletesItsSlices) {
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(env_.CreatePod(i).ok());
  // A slice of a Service deleted while the controller was down.
  EndpointSlice stale = NewSlice(testing::MakeService("gone"), {}, "IPv4");
  ASSERT_TRUE(env_.clients().EndpointSlices().Create(stale).ok());
  Start();
  ASSERT_TRUE(WaitFor([&] { return CountEndpoints() == 3 && Slices().size() == 1; }));
  ASSERT_TRUE(env_.clients().Services().Delete("ns", "svc").ok());
  ASSERT_TRUE(WaitFor([&] { return Slices().empty(); }));
}

// A targetPort change moves every endpoint to a new port group: upstream turns the create of the
// new slice and the delete of the old one into one update of the old name (a PUT of a freshly
// built object).
TEST_F(EndpointSliceLoopbackTest, PortChangeReusesTheSliceName) {
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(env_.CreatePod(i).ok());
  Start();
  ASSERT_TRUE(WaitFor([&] { return CountEndpoints() == 3; }));
  const std::string name = Slices().at(0)->metadata.name;
  auto svc = env_.clients().Services().Get("ns", "svc");
  ASSERT_TRUE(svc.ok());
  api::core::v1::Service changed = **svc;
  changed.spec.ports[0].target_port = api::meta::IntOrString::FromInt(9090);
  ASSERT_TRUE(env_.clients().Services().Update(changed).ok());
  ASSERT_TRUE(WaitFor([&] {
    auto slices = Slices();
    return slices.size() == 1 && slices[0]->ports && slices[0]->ports->size() == 1 &&
           (*slices[0]->ports)[0].port == 9090 && slices[0]->endpoints.size() == 3;
  }));
  EXPECT_EQ(Slices().at(0)->metadata.name, name);
}

}  // namespace
}  // namespace svcplane::controllers::endpointslice
