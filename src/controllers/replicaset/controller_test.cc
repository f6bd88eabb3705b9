// The ReplicaSet controller against the real in-process API (registries over a memory store,
// behind the loopback Clientset: real strategic-merge patches, uid preconditions, status
// subresource) and real informers. A thin wrapper around the Pods client counts calls and fails
// chosen creates, for the slow-start and ReplicaFailure paths.

#include "controllers/replicaset/controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>

#include "client/errors.h"
#include "controllers/endpointslice/testing/loopback_env.h"
#include "controllers/endpointslice/testing/wait.h"

namespace svcplane::controllers::replicaset {
namespace {

using endpointslice::RecordingEventSink;
using endpointslice::testing::WaitFor;
using ::testing::HasSubstr;
using ::testing::SizeIs;

// Forwards to the loopback Pods client; counts creates and fails those `fail_create` picks.
class CountingPods final : public client::ResourceClient<Pod> {
 public:
  explicit CountingPods(client::ResourceClient<Pod>& inner) : inner_(inner) {}
  std::function<std::optional<Status>(int call)> fail_create;
  std::atomic<int> creates{0};
  std::atomic<int> patches{0};
  std::atomic<int> deletes{0};

  Result<client::ObjectPtr<Pod>> Get(std::string_view ns, std::string_view name,
                                     const client::GetOptions& o) override {
    return inner_.Get(ns, name, o);
  }
  Result<client::ObjectList<Pod>> List(std::string_view ns, const client::ListOptions& o) override {
    return inner_.List(ns, o);
  }
  Status Watch(std::string_view ns, const client::ListOptions& o,
               const client::WatchEventHandler<Pod>& h, client::CancelToken& c) override {
    return inner_.Watch(ns, o, h, c);
  }
  Result<client::ObjectPtr<Pod>> Create(const Pod& p, const client::WriteOptions& o) override {
    int call = ++creates;
    if (fail_create) {
      if (auto st = fail_create(call)) return *st;
    }
    return inner_.Create(p, o);
  }
  Result<client::ObjectPtr<Pod>> Update(const Pod& p, const client::WriteOptions& o) override {
    return inner_.Update(p, o);
  }
  Result<client::ObjectPtr<Pod>> UpdateStatus(const Pod& p,
                                              const client::WriteOptions& o) override {
    return inner_.UpdateStatus(p, o);
  }
  Result<client::ObjectPtr<Pod>> Patch(std::string_view ns, std::string_view name,
                                       client::PatchType t, std::string_view body,
                                       const client::WriteOptions& o,
                                       std::string_view sub) override {
    ++patches;
    return inner_.Patch(ns, name, t, body, o, sub);
  }
  Status Delete(std::string_view ns, std::string_view name,
                const client::DeleteOptions& o) override {
    ++deletes;
    return inner_.Delete(ns, name, o);
  }

 private:
  client::ResourceClient<Pod>& inner_;
};

// The loopback Clientset with CountingPods in place of Pods().
class CountingClientset final : public client::Clientset {
 public:
  explicit CountingClientset(client::Clientset& inner) : inner_(inner), pods_(inner.Pods()) {}
  CountingPods& counting_pods() { return pods_; }

  client::ResourceClient<api::core::v1::Namespace>& Namespaces() override {
    return inner_.Namespaces();
  }
  client::ResourceClient<api::core::v1::Service>& Services() override { return inner_.Services(); }
  client::ResourceClient<api::core::v1::Pod>& Pods() override { return pods_; }
  client::ResourceClient<api::core::v1::Node>& Nodes() override { return inner_.Nodes(); }
  client::ResourceClient<api::core::v1::Endpoints>& Endpoints() override {
    return inner_.Endpoints();
  }
  client::ResourceClient<api::core::v1::Event>& Events() override { return inner_.Events(); }
  client::ResourceClient<api::discovery::v1::EndpointSlice>& EndpointSlices() override {
    return inner_.EndpointSlices();
  }
  client::ResourceClient<api::coordination::v1::Lease>& Leases() override {
    return inner_.Leases();
  }
  client::ResourceClient<api::apps::v1::ReplicaSet>& ReplicaSets() override {
    return inner_.ReplicaSets();
  }
  client::ResourceClient<api::apps::v1::Deployment>& Deployments() override {
    return inner_.Deployments();
  }

 private:
  client::Clientset& inner_;
  CountingPods pods_;
};

ReplicaSet MakeReplicaSet(const std::string& name, int32_t replicas) {
  ReplicaSet rs;
  rs.metadata.name = name;
  rs.metadata.namespace_ = "ns";
  rs.spec.replicas = replicas;
  api::selectors::LabelSelectorSpec sel;
  sel.match_labels = {{"app", name}};
  rs.spec.selector = sel;
  rs.spec.template_.metadata.labels = {{"app", name}};
  api::core::v1::Container c;
  c.name = "c";
  c.image = "nginx";
  rs.spec.template_.spec.containers.push_back(c);
  return rs;
}

class ReplicaSetControllerTest : public ::testing::Test {
 protected:
  ReplicaSetControllerTest() : clients_(env_.clients()) {}
  void TearDown() override {
    if (controller_) controller_->Shutdown();
    env_.informers().Shutdown();
  }
  // Builds the controller and starts the informers; workers only with `run`.
  void Start(bool run = true) {
    ReplicaSetControllerOptions options;
    options.retry_base = std::chrono::milliseconds(1);
    options.retry_max = std::chrono::milliseconds(50);
    controller_ = std::make_unique<ReplicaSetController>(env_.informers(), clients_, events_,
                                                         &metrics_, RealClock::Get(), options);
    env_.informers().Start();
    ASSERT_TRUE(env_.informers().WaitForCacheSync(std::chrono::seconds(10)));
    if (run) controller_->Run(2);
  }
  client::ObjectPtr<ReplicaSet> Create(const ReplicaSet& rs) {
    auto r = clients_.ReplicaSets().Create(rs);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : nullptr;
  }
  client::ObjectPtr<ReplicaSet> Get(const std::string& name) {
    auto r = clients_.ReplicaSets().Get("ns", name);
    return r.ok() ? *r : nullptr;
  }
  std::vector<client::ObjectPtr<Pod>> Pods(const std::string& app) {
    std::vector<client::ObjectPtr<Pod>> out;
    auto list = env_.clients().Pods().List("ns");
    if (!list.ok()) return out;
    for (auto& p : list->items) {
      auto it = p->metadata.labels.find("app");
      if (it != p->metadata.labels.end() && it->second == app) out.push_back(p);
    }
    return out;
  }
  int Events(const std::string& reason) {
    int n = 0;
    for (const auto& r : events_.Records()) n += r.event.reason == reason;
    return n;
  }
  Status SetReady(const Pod& pod, bool ready) {
    Pod p = pod;
    p.status.phase = "Running";
    p.status.conditions.clear();
    api::core::v1::PodCondition c;
    c.type = "Ready";
    c.status = ready ? "True" : "False";
    c.last_transition_time = api::meta::Time::FromUnix(1'700'000'000);
    p.status.conditions.push_back(c);
    auto r = env_.clients().Pods().UpdateStatus(p);
    return r.ok() ? Status::Ok() : r.status();
  }

  endpointslice::testing::LoopbackEnv env_;
  CountingClientset clients_;
  RecordingEventSink events_;
  MetricsRegistry metrics_;
  std::unique_ptr<ReplicaSetController> controller_;
};

TEST_F(ReplicaSetControllerTest, CreatesOwnedPodsAndWritesStatus) {
  Start();
  auto rs = Create(MakeReplicaSet("web", 3));
  ASSERT_NE(rs, nullptr);
  ASSERT_TRUE(WaitFor([&] {
    auto cur = Get("web");
    return Pods("web").size() == 3 && cur->status.replicas == 3 &&
           cur->status.observed_generation == 1;
  }));
  for (const auto& p : Pods("web")) {
    EXPECT_EQ(p->metadata.rest->generate_name, "web-");
    EXPECT_THAT(p->metadata.name, ::testing::MatchesRegex("web-[bcdfghjklmnpqrstvwxz2456789]{5}"));
    ASSERT_THAT(p->metadata.owner_references, SizeIs(1));
    EXPECT_EQ(p->metadata.owner_references[0], ControllerRef(*rs));
  }
  ASSERT_EQ(Events("SuccessfulCreate"), 3);
  for (const auto& r : events_.Records()) {
    EXPECT_EQ(r.component, "replicaset-controller");
    EXPECT_EQ(r.object.kind, "ReplicaSet");
    EXPECT_EQ(r.object.name, "web");
    EXPECT_EQ(r.object.uid, rs->metadata.uid);
    EXPECT_THAT(r.event.message, ::testing::StartsWith("Created pod: web-"));
  }
  EXPECT_EQ(Get("web")->status.ready_replicas, 0);

  // Ready pods are counted ready and (minReadySeconds 0) available.
  for (const auto& p : Pods("web")) ASSERT_TRUE(SetReady(*p, true).ok());
  ASSERT_TRUE(WaitFor([&] {
    auto s = Get("web")->status;
    return s.ready_replicas == 3 && s.available_replicas == 3 && s.fully_labeled_replicas == 3;
  }));
  EXPECT_EQ(clients_.counting_pods().creates.load(), 3);
  EXPECT_THAT(metrics_.RenderPrometheus(), HasSubstr("workqueue_adds_total{name=\"replicaset\"}"));
}

// §7 scenario 28: scaled to 1, the Ready one survives; the others go unscheduled first.
TEST_F(ReplicaSetControllerTest, ScaleDownDeletesLeastReadyFirst) {
  Start();
  ASSERT_NE(Create(MakeReplicaSet("down", 3)), nullptr);
  ASSERT_TRUE(WaitFor([&] { return Pods("down").size() == 3; }));
  auto pods = Pods("down");
  ASSERT_TRUE(SetReady(*pods[1], true).ok());
  ASSERT_TRUE(SetReady(*pods[2], false).ok());
  const std::string survivor = pods[1]->metadata.name;
  ASSERT_TRUE(WaitFor([&] { return Get("down")->status.ready_replicas == 1; }));
  ReplicaSet scaled = *Get("down");
  scaled.spec.replicas = 1;
  ASSERT_TRUE(clients_.ReplicaSets().Update(scaled).ok());
  ASSERT_TRUE(WaitFor([&] {
    auto left = Pods("down");
    return left.size() == 1 && Get("down")->status.replicas == 1;
  }));
  EXPECT_EQ(Pods("down")[0]->metadata.name, survivor);
  EXPECT_EQ(Events("SuccessfulDelete"), 2);
  EXPECT_EQ(Get("down")->status.observed_generation, 2);
}

TEST_F(ReplicaSetControllerTest, AdoptsOrphansAndReleasesRelabelledPods) {
  Start();
  auto rs = Create(MakeReplicaSet("claim", 2));
  ASSERT_TRUE(WaitFor([&] { return Get("claim")->status.replicas == 2; }));

  // An orphan matching the selector is adopted with our controller reference; the surplus pod
  // is deleted (the controller's own not-ready pods rank with it).
  Pod orphan;
  orphan.metadata.name = "orphan";
  orphan.metadata.namespace_ = "ns";
  orphan.metadata.labels = {{"app", "claim"}};
  orphan.spec = rs->spec.template_.spec;
  ASSERT_TRUE(env_.clients().Pods().Create(orphan).ok());
  ASSERT_TRUE(WaitFor([&] {
    auto pods = Pods("claim");
    if (pods.size() != 2) return false;
    for (const auto& p : pods) {
      if (p->metadata.owner_references.empty() ||
          p->metadata.owner_references[0].uid != rs->metadata.uid) {
        return false;
      }
    }
    return Events("SuccessfulDelete") == 1;
  }));
  EXPECT_GE(clients_.counting_pods().patches.load(), 1);

  // Relabelled: released (strategic-merge `$patch: delete`) and replaced.
  Pod relabelled = *Pods("claim")[0];
  relabelled.metadata.labels["app"] = "other";
  ASSERT_TRUE(env_.clients().Pods().Update(relabelled).ok());
  ASSERT_TRUE(WaitFor([&] {
    auto released = env_.clients().Pods().Get("ns", relabelled.metadata.name);
    return released.ok() && (*released)->metadata.owner_references.empty() &&
           Pods("claim").size() == 2;
  }));
  auto released = *env_.clients().Pods().Get("ns", relabelled.metadata.name);
  EXPECT_FALSE(released->metadata.deletion_timestamp.has_value());
}

// The pod uid in the adopt patch is a precondition: a patch for another incarnation of the
// pod (same name, new uid) is refused, and the controller treats Invalid on release as
// "nothing to release".
TEST_F(ReplicaSetControllerTest, PatchUidIsAPrecondition) {
  Start(/*run=*/false);
  auto rs = Create(MakeReplicaSet("pre", 0));
  Pod pod;
  pod.metadata.name = "p";
  pod.metadata.namespace_ = "ns";
  pod.metadata.labels = {{"app", "pre"}};
  pod.spec = rs->spec.template_.spec;
  auto created = env_.clients().Pods().Create(pod);
  ASSERT_TRUE(created.ok());
  auto refused = env_.clients().Pods().Patch("ns", "p", client::PatchType::kStrategicMerge,
                                             AdoptPatch(*rs, "not-the-pod-uid"));
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(client::IsInvalid(refused.status()) || client::IsConflict(refused.status()))
      << refused.status().ToString();
  auto adopted = env_.clients().Pods().Patch("ns", "p", client::PatchType::kStrategicMerge,
                                             AdoptPatch(*rs, (*created)->metadata.uid));
  ASSERT_TRUE(adopted.ok()) << adopted.status().ToString();
  EXPECT_EQ((*adopted)->metadata.owner_references, std::vector{ControllerRef(*rs)});
  auto released =
      env_.clients().Pods().Patch("ns", "p", client::PatchType::kStrategicMerge,
                                  ReleasePatch(rs->metadata.uid, (*created)->metadata.uid));
  ASSERT_TRUE(released.ok()) << released.status().ToString();
  EXPECT_TRUE((*released)->metadata.owner_references.empty());
}

// Creates fail from the 5th call on: batches 1, 2, 4 run (7 calls, 4 pods), then the sync
// stops, reports FailedCreate and sets ReplicaFailure; the skipped creations are not awaited.
TEST_F(ReplicaSetControllerTest, FailedBatchStopsAndSetsReplicaFailure) {
  clients_.counting_pods().fail_create = [](int call) -> std::optional<Status> {
    if (call < 5) return std::nullopt;
    return Status(Code::kForbidden, "pods \"x\" is forbidden: exceeded quota: q");
  };
  Start(/*run=*/false);
  ASSERT_NE(Create(MakeReplicaSet("fail", 20)), nullptr);
  ASSERT_TRUE(WaitFor([&] { return controller_->QueueForTest().Len() > 0; }));
  Status s = controller_->SyncForTest("ns/fail");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(clients_.counting_pods().creates.load(), 7);
  EXPECT_EQ(Pods("fail").size(), 4u);
  EXPECT_EQ(Events("SuccessfulCreate"), 4);
  EXPECT_EQ(Events("FailedCreate"), 3);
  for (const auto& r : events_.Records()) {
    if (r.event.reason == "FailedCreate") {
      EXPECT_EQ(r.event.type, "Warning");
      EXPECT_EQ(r.event.message, "Error creating: pods \"x\" is forbidden: exceeded quota: q");
    }
  }
  auto rs = Get("fail");
  ASSERT_THAT(rs->status.conditions, SizeIs(1));
  EXPECT_EQ(rs->status.conditions[0].type, "ReplicaFailure");
  EXPECT_EQ(rs->status.conditions[0].reason, "FailedCreate");
  EXPECT_EQ(rs->status.conditions[0].message, "pods \"x\" is forbidden: exceeded quota: q");
  // 20 expected, 16 never made: only the 4 created remain awaited, and the informer sees them.
  ASSERT_TRUE(WaitFor([&] { return controller_->ExpectationsForTest().Satisfied("ns/fail"); }));

  // Creates work again: the next sync fills up and removes the condition.
  clients_.counting_pods().fail_create = nullptr;
  ASSERT_TRUE(controller_->SyncForTest("ns/fail").ok());
  ASSERT_TRUE(WaitFor([&] { return controller_->ExpectationsForTest().Satisfied("ns/fail"); }));
  ASSERT_TRUE(controller_->SyncForTest("ns/fail").ok());
  EXPECT_EQ(Pods("fail").size(), 20u);
  EXPECT_TRUE(Get("fail")->status.conditions.empty());
  EXPECT_EQ(Get("fail")->status.replicas, 20);
}

// updateReplicaSetStatus writes nothing when counters, conditions and observedGeneration are
// already right.
TEST_F(ReplicaSetControllerTest, NoStatusWriteWhenCurrent) {
  Start(/*run=*/false);
  ASSERT_NE(Create(MakeReplicaSet("idle", 0)), nullptr);
  ASSERT_TRUE(WaitFor([&] { return controller_->QueueForTest().Len() > 0; }));
  auto key = controller_->QueueForTest().Get();
  controller_->QueueForTest().Done(*key);
  ASSERT_TRUE(controller_->SyncForTest("ns/idle").ok());  // observedGeneration 0 -> 1
  const std::string rv = Get("idle")->metadata.resource_version;
  EXPECT_EQ(Get("idle")->status.observed_generation, 1);
  // The status update's event brings the written version into the cache.
  ASSERT_TRUE(WaitFor([&] { return controller_->QueueForTest().Len() > 0; }));
  ASSERT_TRUE(controller_->SyncForTest("ns/idle").ok());
  EXPECT_EQ(Get("idle")->metadata.resource_version, rv);
}

// Expectations hold a second sync back until the informer has seen the creations.
TEST_F(ReplicaSetControllerTest, ExpectationsPreventDoubleCreation) {
  Start(/*run=*/false);
  ASSERT_NE(Create(MakeReplicaSet("exp", 2)), nullptr);
  ASSERT_TRUE(WaitFor([&] { return controller_->QueueForTest().Len() > 0; }));
  // Deliveries are asynchronous: sync twice in a row before the pod events can count.
  ASSERT_TRUE(controller_->SyncForTest("ns/exp").ok());
  ASSERT_TRUE(controller_->SyncForTest("ns/exp").ok());
  ASSERT_TRUE(WaitFor([&] { return controller_->ExpectationsForTest().Satisfied("ns/exp"); }));
  ASSERT_TRUE(controller_->SyncForTest("ns/exp").ok());
  EXPECT_EQ(Pods("exp").size(), 2u);
  EXPECT_EQ(clients_.counting_pods().creates.load(), 2);
}

TEST_F(ReplicaSetControllerTest, DeletedPodIsReplacedAndGoneReplicaSetForgotten) {
  Start();
  ASSERT_NE(Create(MakeReplicaSet("rep", 2)), nullptr);
  ASSERT_TRUE(WaitFor([&] { return Pods("rep").size() == 2; }));
  const std::string gone = Pods("rep")[0]->metadata.name;
  ASSERT_TRUE(env_.clients().Pods().Delete("ns", gone).ok());
  ASSERT_TRUE(WaitFor([&] {
    auto pods = Pods("rep");
    return pods.size() == 2 && pods[0]->metadata.name != gone && pods[1]->metadata.name != gone;
  }));
  ASSERT_TRUE(clients_.ReplicaSets().Delete("ns", "rep").ok());
  ASSERT_TRUE(WaitFor(
      [&] { return controller_->ExpectationsForTest().PendingForTest("ns/rep") == std::nullopt; }));
}

}  // namespace
}  // namespace svcplane::controllers::replicaset
