// The Deployment controller against the real in-process API (registries over a memory store,
// loopback Clientset) and real informers. Nothing runs the ReplicaSet controller: the tests play
// its part by writing ReplicaSet status themselves.

#include "controllers/deployment/controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/errors.h"
#include "controllers/deployment/hash.h"
#include "controllers/endpointslice/testing/loopback_env.h"
#include "controllers/endpointslice/testing/wait.h"

namespace svcplane::controllers::deployment {
namespace {

using endpointslice::RecordingEventSink;
using endpointslice::testing::WaitFor;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class DeploymentLoopbackTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (controller_) controller_->Shutdown();
    env_.informers().Shutdown();
  }
  void Start() {
    DeploymentControllerOptions options;
    options.retry_base = std::chrono::milliseconds(1);
    controller_ = std::make_unique<DeploymentController>(env_.informers(), env_.clients(), events_,
                                                         &metrics_, RealClock::Get(), options);
    env_.informers().Start();
    controller_->Run(2);
  }

  static Deployment MakeDeployment(const std::string& name, int32_t replicas) {
    Deployment d;
    d.metadata.name = name;
    d.metadata.namespace_ = "ns";
    d.spec.replicas = replicas;
    d.spec.selector.emplace().match_labels = {{"app", name}};
    d.spec.template_.metadata.labels = {{"app", name}};
    d.spec.template_.spec.containers.resize(1);
    d.spec.template_.spec.containers[0].name = "nginx";
    d.spec.template_.spec.containers[0].image = "nginx";
    return d;
  }

  client::ResourceClient<ReplicaSet>& RSs() { return env_.clients().ReplicaSets(); }
  client::ResourceClient<Deployment>& Deployments() { return env_.clients().Deployments(); }

  DeploymentPtr GetDeployment(const std::string& name) {
    auto d = Deployments().Get("ns", name);
    return d.ok() ? *d : nullptr;
  }
  RSList ListRSs() {
    auto l = RSs().List("ns");
    return l.ok() ? l->items : RSList{};
  }
  RSPtr GetRS(const std::string& name) {
    auto rs = RSs().Get("ns", name);
    return rs.ok() ? *rs : nullptr;
  }

  // The ReplicaSet controller's part: every ReplicaSet has its pods, ready and available.
  void Settle() {
    for (const auto& rs : ListRSs()) {
      ReplicaSet copy = *rs;
      const int32_t n = copy.spec.replicas.value_or(1);
      copy.status.replicas = n;
      copy.status.fully_labeled_replicas = n;
      copy.status.ready_replicas = n;
      copy.status.available_replicas = n;
      copy.status.observed_generation = copy.metadata.rest->generation;
      if (copy.status == rs->status) continue;
      (void)RSs().UpdateStatus(copy);  // a conflict: the next Settle catches up
    }
  }

  // Applies `fn` to the stored Deployment (retrying conflicts with the controller's writes).
  template <typename Fn>
  Status EditDeployment(const std::string& name, Fn fn) {
    for (int i = 0; i < 50; ++i) {
      auto cur = Deployments().Get("ns", name);
      if (!cur.ok()) return cur.status();
      Deployment d = **cur;
      fn(d);
      auto r = Deployments().Update(d);
      if (r.ok() || !client::IsConflict(r.status())) return r.status();
    }
    return Status(Code::kConflict, "gave up");
  }

  std::vector<std::string> ScalingEvents() {
    std::vector<std::string> out;
    for (const auto& r : events_.Records()) {
      if (r.event.reason == "ScalingReplicaSet") out.push_back(r.event.message);
    }
    return out;
  }

  bool Complete(const std::string& name) {
    auto d = GetDeployment(name);
    if (d == nullptr) return false;
    const auto* c = GetCondition(d->status, "Progressing");
    return d->status.observed_generation == d->metadata.rest->generation &&
           d->status.updated_replicas == Replicas(*d) && d->status.replicas == Replicas(*d) &&
           d->status.available_replicas == Replicas(*d) && c != nullptr &&
           c->reason == "NewReplicaSetAvailable";
  }

  endpointslice::testing::LoopbackEnv env_;
  RecordingEventSink events_;
  MetricsRegistry metrics_;
  std::unique_ptr<DeploymentController> controller_;
};

TEST_F(DeploymentLoopbackTest, RollingUpdateAndRollback) {
  auto created = Deployments().Create(MakeDeployment("web", 3));
  ASSERT_TRUE(created.ok()) << created.status().message();
  Start();

  // The first ReplicaSet: hash-named, labelled, owned, revision 1, all replicas at once.
  ASSERT_TRUE(WaitFor([&] { return ListRSs().size() == 1; }));
  RSPtr first = ListRSs()[0];
  const std::string first_name = first->metadata.name;
  const std::string hash = first->metadata.labels.at("pod-template-hash");
  EXPECT_EQ(first_name, "web-" + hash);
  EXPECT_EQ(hash, ComputePodTemplateHash((*created)->spec.template_, std::nullopt));
  EXPECT_EQ(first->spec.selector->match_labels.at("pod-template-hash"), hash);
  EXPECT_EQ(first->spec.template_.metadata.labels.at("pod-template-hash"), hash);
  ASSERT_EQ(first->metadata.owner_references.size(), 1u);
  EXPECT_EQ(first->metadata.owner_references[0].uid, (*created)->metadata.uid);
  EXPECT_EQ(first->metadata.annotations.at(kRevisionAnnotation), "1");
  EXPECT_EQ(first->metadata.annotations.at(kDesiredReplicasAnnotation), "3");
  EXPECT_EQ(first->metadata.annotations.at(kMaxReplicasAnnotation), "4");
  EXPECT_EQ(first->spec.replicas, 3);

  ASSERT_TRUE(WaitFor([&] {
    Settle();
    return Complete("web");
  }));
  auto d = GetDeployment("web");
  EXPECT_EQ(d->metadata.annotations.at(kRevisionAnnotation), "1");
  ASSERT_EQ(d->status.conditions.size(), 2u);
  EXPECT_EQ(d->status.conditions[0].type, "Available");
  EXPECT_EQ(d->status.conditions[0].reason, "MinimumReplicasAvailable");
  EXPECT_EQ(d->status.conditions[1].message,
            "ReplicaSet \"" + first_name + "\" has successfully progressed.");

  // A new image: surge 1, unavailable 0, one pod at a time.
  const auto first_template = d->spec.template_;
  ASSERT_TRUE(EditDeployment("web", [](Deployment& x) {
                x.spec.template_.spec.containers[0].image = "nginx:1.27";
              }).ok());
  int32_t max_total = 0;
  ASSERT_TRUE(WaitFor([&] {
    int32_t total = 0;
    for (const auto& rs : ListRSs()) total += Replicas(*rs);
    max_total = std::max(max_total, total);
    Settle();
    return ListRSs().size() == 2 && Complete("web");
  }));
  EXPECT_LE(max_total, 4);
  std::string second_name;
  for (const auto& rs : ListRSs()) {
    if (rs->metadata.name != first_name) second_name = rs->metadata.name;
  }
  EXPECT_THAT(ScalingEvents(),
              ElementsAre("Scaled up replica set " + first_name + " from 0 to 3",
                          "Scaled up replica set " + second_name + " from 0 to 1",
                          "Scaled down replica set " + first_name + " from 3 to 2",
                          "Scaled up replica set " + second_name + " from 1 to 2",
                          "Scaled down replica set " + first_name + " from 2 to 1",
                          "Scaled up replica set " + second_name + " from 2 to 3",
                          "Scaled down replica set " + first_name + " from 1 to 0"));
  EXPECT_EQ(GetRS(second_name)->metadata.annotations.at(kRevisionAnnotation), "2");
  EXPECT_EQ(GetDeployment("web")->metadata.annotations.at(kRevisionAnnotation), "2");

  // kubectl rollout undo: the first template comes back, and with it the first ReplicaSet.
  ASSERT_TRUE(
      EditDeployment("web", [&](Deployment& x) { x.spec.template_ = first_template; }).ok());
  ASSERT_TRUE(WaitFor([&] {
    Settle();
    auto rs = GetRS(first_name);
    return rs != nullptr && Replicas(*rs) == 3 && Complete("web");
  }));
  EXPECT_EQ(ListRSs().size(), 2u);
  RSPtr back = GetRS(first_name);
  EXPECT_EQ(back->metadata.annotations.at(kRevisionAnnotation), "3");
  EXPECT_EQ(back->metadata.annotations.at(kRevisionHistoryAnnotation), "1");
  EXPECT_EQ(GetDeployment("web")->metadata.annotations.at(kRevisionAnnotation), "3");
  EXPECT_EQ(GetRS(second_name)->spec.replicas, 0);
  EXPECT_THAT(metrics_.RenderPrometheus(), HasSubstr("workqueue_adds_total{name=\"deployment\"}"));
}

TEST_F(DeploymentLoopbackTest, ScalesAndRecreatesItsReplicaSet) {
  auto created = Deployments().Create(MakeDeployment("web", 2));
  ASSERT_TRUE(created.ok()) << created.status().message();
  Start();
  ASSERT_TRUE(WaitFor([&] {
    Settle();
    return Complete("web");
  }));
  const std::string name = ListRSs()[0]->metadata.name;
  ASSERT_TRUE(EditDeployment("web", [](Deployment& x) { x.spec.replicas = 5; }).ok());
  ASSERT_TRUE(WaitFor([&] {
    auto rs = GetRS(name);
    return rs != nullptr && Replicas(*rs) == 5;
  }));
  EXPECT_EQ(GetRS(name)->metadata.annotations.at(kDesiredReplicasAnnotation), "5");
  // Someone deletes the ReplicaSet: it comes back under the same name.
  ASSERT_TRUE(RSs().Delete("ns", name).ok());
  ASSERT_TRUE(WaitFor([&] {
    auto rs = GetRS(name);
    return rs != nullptr && Replicas(*rs) == 5;
  }));
}

TEST_F(DeploymentLoopbackTest, AdoptsAndReleasesReplicaSets) {
  auto created = Deployments().Create(MakeDeployment("web", 1));
  ASSERT_TRUE(created.ok());
  // An orphan with the Deployment's template, as left by `delete --cascade=orphan`.
  const std::string hash = ComputePodTemplateHash((*created)->spec.template_, std::nullopt);
  ReplicaSet orphan;
  orphan.metadata.name = "web-" + hash;
  orphan.metadata.namespace_ = "ns";
  orphan.metadata.labels = {{"app", "web"}, {"pod-template-hash", hash}};
  orphan.metadata.annotations = {{kRevisionAnnotation, "7"}};
  orphan.spec.replicas = 1;
  orphan.spec.selector.emplace().match_labels = orphan.metadata.labels;
  orphan.spec.template_ = (*created)->spec.template_;
  orphan.spec.template_.metadata.labels = orphan.metadata.labels;
  ASSERT_TRUE(RSs().Create(orphan).ok());
  Start();
  ASSERT_TRUE(WaitFor([&] {
    auto rs = GetRS(orphan.metadata.name);
    return rs != nullptr && rs->metadata.owner_references.size() == 1;
  }));
  const auto& ref = GetRS(orphan.metadata.name)->metadata.owner_references[0];
  EXPECT_EQ(ref.kind, "Deployment");
  EXPECT_EQ(ref.name, "web");
  EXPECT_EQ(ref.uid, (*created)->metadata.uid);
  EXPECT_EQ(ref.controller, true);
  EXPECT_EQ(ref.block_owner_deletion, true);
  ASSERT_TRUE(WaitFor([&] {
    Settle();
    return Complete("web");
  }));
  EXPECT_EQ(ListRSs().size(), 1u);  // adopted, not replaced
  EXPECT_EQ(GetDeployment("web")->metadata.annotations.at(kRevisionAnnotation), "7");

  // Relabelled out of the selector: released (and a replacement is created).
  auto rs = GetRS(orphan.metadata.name);
  ReplicaSet relabelled = *rs;
  relabelled.metadata.labels["app"] = "other";
  ASSERT_TRUE(RSs().Update(relabelled).ok());
  ASSERT_TRUE(WaitFor([&] {
    auto r = GetRS(orphan.metadata.name);
    return r != nullptr && r->metadata.owner_references.empty();
  }));
}

TEST_F(DeploymentLoopbackTest, RecreateWaitsForOldReplicasThenCreates) {
  Deployment d = MakeDeployment("web", 2);
  d.spec.strategy.type = "Recreate";
  ASSERT_TRUE(Deployments().Create(d).ok());
  Start();
  ASSERT_TRUE(WaitFor([&] {
    Settle();
    return Complete("web");
  }));
  const std::string old_name = ListRSs()[0]->metadata.name;
  ASSERT_TRUE(EditDeployment("web", [](Deployment& x) {
                x.spec.template_.spec.containers[0].image = "nginx:1.27";
              }).ok());
  ASSERT_TRUE(WaitFor([&] { return Replicas(*GetRS(old_name)) == 0; }));
  // The old ReplicaSet still reports its pods: no new ReplicaSet yet.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(ListRSs().size(), 1u);
  ASSERT_TRUE(WaitFor([&] {
    Settle();
    return ListRSs().size() == 2 && Complete("web");
  }));
  EXPECT_THAT(ScalingEvents().back(), HasSubstr("from 0 to 2"));
}

}  // namespace
}  // namespace svcplane::controllers::deployment
