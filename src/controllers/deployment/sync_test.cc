#include "controllers/deployment/sync.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "controllers/deployment/hash.h"

namespace svcplane::controllers::deployment {
namespace {

using api::core::v1::Pod;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// One namespace ("default") of an API server, as the Syncer sees it: the caches are always up to
// date. Writes behave as the registry does (resourceVersion preconditions, generation on spec
// changes, the status subresource keeping spec).
class FakeCluster final : public Cluster {
 public:
  explicit FakeCluster(const Clock& clock) : clock_(clock) {}

  RSList ReplicaSets(std::string_view) override {
    RSList out;
    for (const auto& [name, rs] : rss) out.push_back(std::make_shared<ReplicaSet>(rs));
    return out;
  }
  RSPtr CachedReplicaSet(std::string_view, std::string_view name) override {
    auto it = rss.find(std::string(name));
    return it == rss.end() ? nullptr : std::make_shared<ReplicaSet>(it->second);
  }
  std::vector<PodPtr> Pods(std::string_view, const api::selectors::LabelSelector& s) override {
    std::vector<PodPtr> out;
    for (const auto& p : pods) {
      if (s.Matches(p.metadata.labels)) out.push_back(std::make_shared<Pod>(p));
    }
    return out;
  }
  Result<DeploymentPtr> GetDeployment(std::string_view, std::string_view name) override {
    auto it = deployments.find(std::string(name));
    if (it == deployments.end()) return Status(Code::kNotFound, "not found");
    return DeploymentPtr(std::make_shared<Deployment>(it->second));
  }
  Result<DeploymentPtr> UpdateDeploymentStatus(const Deployment& d) override {
    auto it = deployments.find(d.metadata.name);
    if (it == deployments.end()) return Status(Code::kNotFound, "not found");
    if (it->second.metadata.resource_version != d.metadata.resource_version) {
      return Status(Code::kConflict, "the object has been modified");
    }
    it->second.status = d.status;
    it->second.metadata.annotations = d.metadata.annotations;
    it->second.metadata.resource_version = NextRv();
    status_writes.push_back(d.status);
    return DeploymentPtr(std::make_shared<Deployment>(it->second));
  }
  Result<RSPtr> CreateReplicaSet(const ReplicaSet& in) override {
    if (rss.contains(in.metadata.name)) {
      return Status(Code::kAlreadyExists,
                    "replicasets.apps \"" + in.metadata.name + "\" already exists");
    }
    ReplicaSet rs = in;
    rs.metadata.uid = "uid-" + rs.metadata.name;
    rs.metadata.creation_timestamp = ToMetaTime(clock_.WallNow());
    rs.metadata.rest->generation = 1;
    rs.metadata.resource_version = NextRv();
    rs.status = {};
    rss[rs.metadata.name] = rs;
    actions.push_back("create " + rs.metadata.name);
    return RSPtr(std::make_shared<ReplicaSet>(rs));
  }
  Result<RSPtr> UpdateReplicaSet(const ReplicaSet& in) override {
    auto it = rss.find(in.metadata.name);
    if (it == rss.end()) return Status(Code::kNotFound, "not found");
    if (it->second.metadata.resource_version != in.metadata.resource_version) {
      return Status(Code::kConflict, "the object has been modified");
    }
    ReplicaSet rs = in;
    rs.status = it->second.status;
    if (!(rs.spec == it->second.spec)) ++rs.metadata.rest->generation;
    rs.metadata.resource_version = NextRv();
    it->second = rs;
    actions.push_back("update " + rs.metadata.name + " " + std::to_string(*rs.spec.replicas));
    return RSPtr(std::make_shared<ReplicaSet>(rs));
  }
  Result<RSPtr> PatchReplicaSet(std::string_view, std::string_view name,
                                std::string_view patch) override {
    auto it = rss.find(std::string(name));
    if (it == rss.end()) return Status(Code::kNotFound, "not found");
    patches.emplace_back(patch);
    auto& refs = it->second.metadata.owner_references;
    const Deployment& d = deployments.begin()->second;
    if (patch.find("\"$patch\":\"delete\"") != std::string_view::npos) {
      std::erase_if(refs, [&](const auto& r) { return r.uid == d.metadata.uid; });
    } else {
      api::meta::OwnerReference ref;
      ref.api_version = "apps/v1";
      ref.kind = "Deployment";
      ref.name = d.metadata.name;
      ref.uid = d.metadata.uid;
      ref.controller = true;
      ref.block_owner_deletion = true;
      refs.push_back(ref);
    }
    it->second.metadata.resource_version = NextRv();
    return RSPtr(std::make_shared<ReplicaSet>(it->second));
  }
  Status DeleteReplicaSet(std::string_view, std::string_view name) override {
    if (rss.erase(std::string(name)) == 0) return Status(Code::kNotFound, "not found");
    actions.push_back("delete " + std::string(name));
    return Status::Ok();
  }

  // The ReplicaSet controller's part: every ReplicaSet runs its pods, ready and available at
  // once, except those `stuck` (their pods never get ready).
  void Settle(const std::set<std::string>& stuck = {}) {
    for (auto& [name, rs] : rss) {
      const int32_t n = rs.spec.replicas.value_or(1);
      rs.status.replicas = n;
      rs.status.ready_replicas = stuck.contains(name) ? 0 : n;
      rs.status.available_replicas = stuck.contains(name) ? 0 : n;
      rs.status.observed_generation = rs.metadata.rest->generation;
    }
  }

  int32_t SumSpec() const {
    int32_t n = 0;
    for (const auto& [_, rs] : rss) n += rs.spec.replicas.value_or(1);
    return n;
  }
  int32_t SumAvailable() const {
    int32_t n = 0;
    for (const auto& [_, rs] : rss) n += rs.status.available_replicas;
    return n;
  }

  std::string NextRv() { return std::to_string(++rv_); }

  std::map<std::string, Deployment> deployments;
  std::map<std::string, ReplicaSet> rss;
  std::vector<Pod> pods;
  std::vector<std::string> actions;
  std::vector<std::string> patches;
  std::vector<DeploymentStatus> status_writes;

 private:
  const Clock& clock_;
  int64_t rv_ = 100;
};

class SyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Deployment d;
    d.metadata.name = "web";
    d.metadata.namespace_ = "default";
    d.metadata.uid = "web-uid";
    d.metadata.rest->generation = 1;
    d.metadata.resource_version = cluster_.NextRv();
    d.spec.replicas = 3;
    d.spec.selector.emplace().match_labels = {{"app", "web"}};
    d.spec.template_.metadata.labels = {{"app", "web"}};
    d.spec.template_.spec.containers.resize(1);
    d.spec.template_.spec.containers[0].name = "nginx";
    d.spec.template_.spec.containers[0].image = "nginx";
    d.spec.strategy.type = "RollingUpdate";
    d.spec.strategy.rolling_update.emplace();
    d.spec.strategy.rolling_update->max_surge = api::meta::IntOrString::FromString("25%");
    d.spec.strategy.rolling_update->max_unavailable = api::meta::IntOrString::FromString("25%");
    d.spec.revision_history_limit = 10;
    d.spec.progress_deadline_seconds = 600;
    cluster_.deployments["web"] = d;
  }

  Deployment& D() { return cluster_.deployments["web"]; }
  // A spec change as the registry makes it: generation bumps.
  template <typename Fn>
  void Edit(Fn fn) {
    fn(D());
    ++D().metadata.rest->generation;
    D().metadata.resource_version = cluster_.NextRv();
  }
  void SetImage(const std::string& image) {
    Edit([&](Deployment& d) { d.spec.template_.spec.containers[0].image = image; });
  }
  std::string RSName() const {
    return "web-" + ComputePodTemplateHash(cluster_.deployments.at("web").spec.template_,
                                           cluster_.deployments.at("web").status.collision_count);
  }

  SyncOutcome Sync() { return syncer_.Sync(D()); }
  // Syncs and lets the ReplicaSets settle until nothing more is written (at most `max` rounds).
  void Converge(int max = 30, const std::set<std::string>& stuck = {}) {
    for (int i = 0; i < max; ++i) {
      const size_t actions = cluster_.actions.size();
      const size_t writes = cluster_.status_writes.size();
      SyncOutcome out = Sync();
      ASSERT_TRUE(out.status.ok()) << out.status.message();
      cluster_.Settle(stuck);
      if (cluster_.actions.size() == actions && cluster_.status_writes.size() == writes) return;
    }
    FAIL() << "no steady state";
  }
  std::vector<std::string> Events(std::string_view reason = "ScalingReplicaSet") {
    std::vector<std::string> out;
    const auto records = events_.Records();
    for (size_t i = events_from_; i < records.size(); ++i) {
      if (records[i].event.reason == reason) out.push_back(records[i].event.message);
    }
    return out;
  }
  void ResetEvents() { events_from_ = events_.Records().size(); }
  const DeploymentCondition* Cond(std::string_view type) { return GetCondition(D().status, type); }

  FakeClock clock_;
  FakeCluster cluster_{clock_};
  endpointslice::RecordingEventSink events_;
  size_t events_from_ = 0;
  Syncer syncer_{cluster_, events_, clock_};
};

TEST_F(SyncTest, NewDeploymentCreatesItsReplicaSet) {
  const std::string rs_name = RSName();
  ASSERT_TRUE(Sync().status.ok());
  ASSERT_TRUE(cluster_.rss.contains(rs_name));
  const ReplicaSet& rs = cluster_.rss[rs_name];
  const std::string hash = rs_name.substr(4);
  EXPECT_EQ(rs.metadata.labels,
            (api::meta::StringMap{{"app", "web"}, {"pod-template-hash", hash}}));
  EXPECT_EQ(rs.spec.selector->match_labels, rs.metadata.labels);
  EXPECT_EQ(rs.spec.template_.metadata.labels, rs.metadata.labels);
  ASSERT_EQ(rs.metadata.owner_references.size(), 1u);
  const auto& owner = rs.metadata.owner_references[0];
  EXPECT_EQ(owner.api_version, "apps/v1");
  EXPECT_EQ(owner.kind, "Deployment");
  EXPECT_EQ(owner.name, "web");
  EXPECT_EQ(owner.uid, "web-uid");
  EXPECT_EQ(owner.controller, true);
  EXPECT_EQ(owner.block_owner_deletion, true);
  EXPECT_EQ(rs.metadata.annotations, (api::meta::StringMap{{kDesiredReplicasAnnotation, "3"},
                                                           {kMaxReplicasAnnotation, "4"},
                                                           {kRevisionAnnotation, "1"}}));
  EXPECT_EQ(rs.spec.replicas, 3);
  EXPECT_THAT(Events(), ElementsAre("Scaled up replica set " + rs_name + " from 0 to 3"));
  const auto ev = events_.Records()[0];
  EXPECT_EQ(ev.component, "deployment-controller");
  EXPECT_EQ(ev.object.kind, "Deployment");
  EXPECT_EQ(ev.object.name, "web");
  EXPECT_EQ(D().metadata.annotations[kRevisionAnnotation], "1");
  ASSERT_NE(Cond("Progressing"), nullptr);
  EXPECT_EQ(Cond("Progressing")->status, "True");
  EXPECT_EQ(Cond("Progressing")->reason, "NewReplicaSetCreated");
  EXPECT_EQ(Cond("Progressing")->message, "Created new replica set \"" + rs_name + "\"");
  EXPECT_EQ(Cond("Available")->status, "False");
  EXPECT_EQ(D().status.observed_generation, 1);

  // The pods come up: complete, conditions in upstream's order.
  cluster_.Settle();
  Converge();
  ASSERT_EQ(D().status.conditions.size(), 2u);
  EXPECT_EQ(D().status.conditions[0].type, "Available");
  EXPECT_EQ(D().status.conditions[0].reason, "MinimumReplicasAvailable");
  EXPECT_EQ(D().status.conditions[1].type, "Progressing");
  EXPECT_EQ(D().status.conditions[1].reason, "NewReplicaSetAvailable");
  EXPECT_EQ(D().status.conditions[1].message,
            "ReplicaSet \"" + rs_name + "\" has successfully progressed.");
  EXPECT_EQ(D().status.replicas, 3);
  EXPECT_EQ(D().status.updated_replicas, 3);
  EXPECT_EQ(D().status.ready_replicas, 3);
  EXPECT_EQ(D().status.available_replicas, 3);
  EXPECT_EQ(D().status.unavailable_replicas, 0);
  EXPECT_EQ(cluster_.rss.size(), 1u);
}

// workloads.md §7 scenario 9: 3 replicas, 25%/25% (surge 1, unavailable 0).
TEST_F(SyncTest, RollingUpdateStepsWithinSurgeAndAvailability) {
  Converge();
  const std::string old_name = RSName();
  SetImage("nginx:1.27");
  const std::string new_name = RSName();
  ASSERT_NE(old_name, new_name);
  ResetEvents();
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(Sync().status.ok());
    EXPECT_LE(cluster_.SumSpec(), 4);
    cluster_.Settle();
    EXPECT_GE(cluster_.SumAvailable(), 3);
  }
  EXPECT_THAT(Events(), ElementsAre("Scaled up replica set " + new_name + " from 0 to 1",
                                    "Scaled down replica set " + old_name + " from 3 to 2",
                                    "Scaled up replica set " + new_name + " from 1 to 2",
                                    "Scaled down replica set " + old_name + " from 2 to 1",
                                    "Scaled up replica set " + new_name + " from 2 to 3",
                                    "Scaled down replica set " + old_name + " from 1 to 0"));
  EXPECT_EQ(cluster_.rss[new_name].metadata.annotations[kRevisionAnnotation], "2");
  EXPECT_EQ(D().metadata.annotations[kRevisionAnnotation], "2");
  EXPECT_EQ(D().status.observed_generation, 2);
  EXPECT_EQ(Cond("Progressing")->reason, "NewReplicaSetAvailable");
  EXPECT_EQ(cluster_.rss[old_name].spec.replicas, 0);  // kept as history
}

TEST_F(SyncTest, ProportionalScalingMidRollout) {
  Edit([](Deployment& d) {
    d.spec.replicas = 10;
    d.spec.strategy.rolling_update->max_surge = api::meta::IntOrString::FromInt(3);
    d.spec.strategy.rolling_update->max_unavailable = api::meta::IntOrString::FromInt(2);
  });
  Converge();
  const std::string old_name = RSName();
  // The new image never gets ready: the rollout stops at old=8 new=5.
  SetImage("nginx:broken");
  const std::string new_name = RSName();
  Converge(30, {new_name});
  EXPECT_EQ(cluster_.rss[old_name].spec.replicas, 8);
  EXPECT_EQ(cluster_.rss[new_name].spec.replicas, 5);
  ResetEvents();
  Edit([](Deployment& d) { d.spec.replicas = 15; });
  ASSERT_TRUE(Sync().status.ok());
  EXPECT_THAT(Events(), ElementsAre("Scaled up replica set " + old_name + " from 8 to 11",
                                    "Scaled up replica set " + new_name + " from 5 to 7"));
  for (const auto& name : {old_name, new_name}) {
    EXPECT_EQ(cluster_.rss[name].metadata.annotations[kDesiredReplicasAnnotation], "15");
    EXPECT_EQ(cluster_.rss[name].metadata.annotations[kMaxReplicasAnnotation], "18");
  }
}

TEST_F(SyncTest, DirectScaleOfTheReplicaSetIsUndone) {
  Converge();
  const std::string name = RSName();
  cluster_.rss[name].spec.replicas = 5;
  ResetEvents();
  ASSERT_TRUE(Sync().status.ok());
  EXPECT_THAT(Events(), ElementsAre("Scaled down replica set " + name + " from 5 to 3"));
}

TEST_F(SyncTest, RecreateWaitsForOldPodsToBeGone) {
  Edit([](Deployment& d) {
    d.spec.strategy.type = "Recreate";
    d.spec.strategy.rolling_update.reset();
  });
  Converge();
  const std::string old_name = RSName();
  Pod pod;
  pod.metadata.name = old_name + "-abcde";
  pod.metadata.labels = cluster_.rss[old_name].spec.template_.metadata.labels;
  api::meta::OwnerReference ref;
  ref.kind = "ReplicaSet";
  ref.uid = cluster_.rss[old_name].metadata.uid;
  ref.controller = true;
  pod.metadata.owner_references.push_back(ref);
  pod.status.phase = "Running";
  cluster_.pods.push_back(pod);

  SetImage("nginx:1.27");
  const std::string new_name = RSName();
  ResetEvents();
  ASSERT_TRUE(Sync().status.ok());
  EXPECT_THAT(Events(), ElementsAre("Scaled down replica set " + old_name + " from 3 to 0"));
  EXPECT_FALSE(cluster_.rss.contains(new_name));
  // The ReplicaSet still reports pods: wait.
  ASSERT_TRUE(Sync().status.ok());
  EXPECT_FALSE(cluster_.rss.contains(new_name));
  // It reports none, but a pod object (terminating) is still there: wait.
  cluster_.Settle();
  ASSERT_TRUE(Sync().status.ok());
  EXPECT_FALSE(cluster_.rss.contains(new_name));
  // A pod in a terminal phase does not count.
  cluster_.pods[0].status.phase = "Succeeded";
  ASSERT_TRUE(Sync().status.ok());
  ASSERT_TRUE(cluster_.rss.contains(new_name));
  EXPECT_EQ(cluster_.rss[new_name].spec.replicas, 3);
  EXPECT_THAT(Events(), ElementsAre("Scaled down replica set " + old_name + " from 3 to 0",
                                    "Scaled up replica set " + new_name + " from 0 to 3"));
  cluster_.Settle();
  Converge();
  EXPECT_EQ(Cond("Progressing")->reason, "NewReplicaSetAvailable");
}

TEST_F(SyncTest, PauseStopsTheRolloutButNotScaling) {
  Converge();
  const std::string name = RSName();
  Edit([](Deployment& d) { d.spec.paused = true; });
  ASSERT_TRUE(Sync().status.ok());
  EXPECT_EQ(Cond("Progressing")->status, "Unknown");
  EXPECT_EQ(Cond("Progressing")->reason, "DeploymentPaused");
  EXPECT_EQ(Cond("Progressing")->message, "Deployment is paused");

  SetImage("nginx:1.27");
  const std::string new_name = RSName();
  Converge();
  EXPECT_FALSE(cluster_.rss.contains(new_name));
  EXPECT_EQ(D().status.observed_generation, D().metadata.rest->generation);

  ResetEvents();
  Edit([](Deployment& d) { d.spec.replicas = 5; });
  Converge();
  EXPECT_THAT(Events(), ElementsAre("Scaled up replica set " + name + " from 3 to 5"));
  EXPECT_EQ(cluster_.rss[name].metadata.annotations[kDesiredReplicasAnnotation], "5");
  EXPECT_EQ(D().status.replicas, 5);

  Edit([](Deployment& d) { d.spec.paused = false; });
  cluster_.status_writes.clear();
  ASSERT_TRUE(Sync().status.ok());
  ASSERT_FALSE(cluster_.status_writes.empty());
  const auto* resumed = GetCondition(cluster_.status_writes[0], "Progressing");
  ASSERT_NE(resumed, nullptr);
  EXPECT_EQ(resumed->status, "Unknown");
  EXPECT_EQ(resumed->reason, "DeploymentResumed");
  EXPECT_EQ(resumed->message, "Deployment is resumed");
  EXPECT_TRUE(cluster_.rss.contains(new_name));  // the rollout started
  Converge();
  EXPECT_EQ(cluster_.rss[new_name].spec.replicas, 5);
  EXPECT_EQ(cluster_.rss[name].spec.replicas, 0);
}

// kubectl rollout undo puts the old template back: the old ReplicaSet becomes the new one.
TEST_F(SyncTest, RollbackReusesTheOldReplicaSet) {
  Converge();
  const std::string first = RSName();
  const auto first_template = D().spec.template_;
  SetImage("nginx:1.27");
  const std::string second = RSName();
  Converge();
  Edit([&](Deployment& d) { d.spec.template_ = first_template; });
  ResetEvents();
  Converge();
  EXPECT_EQ(cluster_.rss.size(), 2u);  // no new ReplicaSet, no new hash
  EXPECT_EQ(cluster_.rss[first].metadata.annotations[kRevisionAnnotation], "3");
  EXPECT_EQ(cluster_.rss[first].metadata.annotations[kRevisionHistoryAnnotation], "1");
  EXPECT_EQ(cluster_.rss[second].metadata.annotations[kRevisionAnnotation], "2");
  EXPECT_EQ(D().metadata.annotations[kRevisionAnnotation], "3");
  EXPECT_EQ(cluster_.rss[first].spec.replicas, 3);
  EXPECT_EQ(cluster_.rss[second].spec.replicas, 0);
  EXPECT_EQ(Events().front(), "Scaled up replica set " + first + " from 0 to 1");
}

TEST_F(SyncTest, HistoryCleanupKeepsRevisionHistoryLimit) {
  Edit([](Deployment& d) { d.spec.revision_history_limit = 2; });
  Converge();
  std::string current;
  for (int i = 1; i <= 5; ++i) {
    SetImage("nginx:" + std::to_string(i));
    current = RSName();
    Converge();
  }
  ASSERT_EQ(cluster_.rss.size(), 3u);
  EXPECT_TRUE(cluster_.rss.contains(current));
  std::vector<std::string> revisions;
  for (const auto& [_, rs] : cluster_.rss) {
    revisions.push_back(rs.metadata.annotations.at(kRevisionAnnotation));
  }
  std::sort(revisions.begin(), revisions.end());
  EXPECT_THAT(revisions, ElementsAre("4", "5", "6"));

  Edit([](Deployment& d) { d.spec.revision_history_limit = 0; });
  Converge();
  EXPECT_EQ(cluster_.rss.size(), 1u);
  EXPECT_TRUE(cluster_.rss.contains(current));
}

TEST_F(SyncTest, ProgressDeadlineExceeded) {
  Edit([](Deployment& d) { d.spec.progress_deadline_seconds = 10; });
  Converge();
  SetImage("nginx:broken");
  const std::string new_name = RSName();
  Converge(30, {new_name});
  ASSERT_EQ(Cond("Progressing")->status, "True");
  // Stuck with a deadline pending: look again once it has passed.
  SyncOutcome out = Sync();
  ASSERT_TRUE(out.requeue_after.has_value());
  EXPECT_GT(*out.requeue_after, std::chrono::seconds(1));
  EXPECT_LE(*out.requeue_after, std::chrono::seconds(11));
  clock_.Advance(std::chrono::seconds(11));
  ASSERT_TRUE(Sync().status.ok());
  EXPECT_EQ(Cond("Progressing")->status, "False");
  EXPECT_EQ(Cond("Progressing")->reason, "ProgressDeadlineExceeded");
  EXPECT_EQ(Cond("Progressing")->message,
            "ReplicaSet \"" + new_name + "\" has timed out progressing.");
  // Pods get ready after all: progressing again, then complete.
  ASSERT_TRUE(Sync().status.ok());
  cluster_.Settle();
  ASSERT_TRUE(Sync().status.ok());
  EXPECT_EQ(Cond("Progressing")->reason, "ReplicaSetUpdated");
  Converge();
  EXPECT_EQ(Cond("Progressing")->reason, "NewReplicaSetAvailable");
}

TEST_F(SyncTest, HashCollisionBumpsCollisionCount) {
  const std::string taken = RSName();
  ReplicaSet squatter;
  squatter.metadata.name = taken;
  squatter.metadata.namespace_ = "default";
  squatter.metadata.labels = {{"app", "other"}};
  squatter.spec.replicas = 1;
  squatter.spec.template_.metadata.labels = {{"app", "other"}};
  ASSERT_TRUE(cluster_.CreateReplicaSet(squatter).ok());
  SyncOutcome out = Sync();
  EXPECT_EQ(out.status.code(), Code::kAlreadyExists);
  EXPECT_EQ(D().status.collision_count, 1);
  const std::string second = RSName();
  ASSERT_NE(second, taken);
  ASSERT_TRUE(Sync().status.ok());
  EXPECT_TRUE(cluster_.rss.contains(second));
  EXPECT_TRUE(cluster_.rss[taken].metadata.owner_references.empty());
  EXPECT_EQ(cluster_.rss[taken].metadata.labels.at("app"), "other");
}

TEST_F(SyncTest, AdoptsMatchingOrphansAndReleasesOthers) {
  // An orphan with the Deployment's template (as after delete --cascade=orphan).
  ReplicaSet orphan;
  orphan.metadata.name = "web-orphan";
  orphan.metadata.namespace_ = "default";
  orphan.metadata.labels = {{"app", "web"}, {"pod-template-hash", "orphan"}};
  orphan.metadata.annotations = {{kRevisionAnnotation, "4"}};
  orphan.spec.replicas = 3;
  orphan.spec.template_ = D().spec.template_;
  orphan.spec.template_.metadata.labels["pod-template-hash"] = "orphan";
  ASSERT_TRUE(cluster_.CreateReplicaSet(orphan).ok());
  // Ours, but relabelled away from the selector.
  ReplicaSet stray = orphan;
  stray.metadata.name = "web-stray";
  stray.metadata.labels = {{"app", "elsewhere"}};
  stray.metadata.annotations.clear();
  stray.spec.template_.spec.containers[0].image = "nginx:stray";
  api::meta::OwnerReference ref;
  ref.kind = "Deployment";
  ref.name = "web";
  ref.uid = "web-uid";
  ref.controller = true;
  stray.metadata.owner_references.push_back(ref);
  ASSERT_TRUE(cluster_.CreateReplicaSet(stray).ok());
  cluster_.Settle();
  cluster_.actions.clear();

  ASSERT_TRUE(Sync().status.ok());
  ASSERT_EQ(cluster_.patches.size(), 2u);
  EXPECT_EQ(cluster_.patches[0],
            R"({"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment",)"
            R"("name":"web","uid":"web-uid","controller":true,"blockOwnerDeletion":true}],)"
            R"("uid":"uid-web-orphan"}})");
  EXPECT_EQ(cluster_.patches[1],
            R"({"metadata":{"ownerReferences":[{"$patch":"delete","uid":"web-uid"}],)"
            R"("uid":"uid-web-stray"}})");
  EXPECT_TRUE(cluster_.rss["web-stray"].metadata.owner_references.empty());
  // The adopted ReplicaSet is the new one: no ReplicaSet is created, its revision is taken.
  EXPECT_THAT(cluster_.actions, IsEmpty());
  EXPECT_EQ(D().metadata.annotations[kRevisionAnnotation], "4");
  EXPECT_EQ(Cond("Progressing")->reason, "NewReplicaSetAvailable");
}

TEST_F(SyncTest, EmptySelectorIsRefused) {
  Edit([](Deployment& d) { d.spec.selector.emplace(); });
  ASSERT_TRUE(Sync().status.ok());
  EXPECT_THAT(Events("SelectingAll"),
              ElementsAre("This deployment is selecting all pods. A non-empty selector is "
                          "required."));
  EXPECT_EQ(events_.Records()[0].event.type, "Warning");
  EXPECT_EQ(D().status.observed_generation, 2);
  EXPECT_TRUE(cluster_.rss.empty());
}

TEST_F(SyncTest, BeingDeletedOnlyUpdatesStatus) {
  Converge();
  D().metadata.deletion_timestamp = api::meta::Time::FromUnix(1);
  SetImage("nginx:1.27");
  cluster_.actions.clear();
  ASSERT_TRUE(Sync().status.ok());
  EXPECT_THAT(cluster_.actions, IsEmpty());
  EXPECT_EQ(D().status.observed_generation, 2);
  EXPECT_EQ(D().status.updated_replicas, 0);  // the template changed; no new ReplicaSet
}

TEST_F(SyncTest, CreateFailureSetsReplicaSetCreateError) {
  class FailingCluster final : public Cluster {
   public:
    explicit FailingCluster(FakeCluster& inner) : inner_(inner) {}
    RSList ReplicaSets(std::string_view ns) override { return inner_.ReplicaSets(ns); }
    RSPtr CachedReplicaSet(std::string_view ns, std::string_view n) override {
      return inner_.CachedReplicaSet(ns, n);
    }
    std::vector<PodPtr> Pods(std::string_view ns, const api::selectors::LabelSelector& s) override {
      return inner_.Pods(ns, s);
    }
    Result<DeploymentPtr> GetDeployment(std::string_view ns, std::string_view n) override {
      return inner_.GetDeployment(ns, n);
    }
    Result<DeploymentPtr> UpdateDeploymentStatus(const Deployment& d) override {
      return inner_.UpdateDeploymentStatus(d);
    }
    Result<RSPtr> CreateReplicaSet(const ReplicaSet&) override {
      return Status(Code::kForbidden, "exceeded quota");
    }
    Result<RSPtr> UpdateReplicaSet(const ReplicaSet& rs) override {
      return inner_.UpdateReplicaSet(rs);
    }
    Result<RSPtr> PatchReplicaSet(std::string_view ns, std::string_view n,
                                  std::string_view p) override {
      return inner_.PatchReplicaSet(ns, n, p);
    }
    Status DeleteReplicaSet(std::string_view ns, std::string_view n) override {
      return inner_.DeleteReplicaSet(ns, n);
    }

   private:
    FakeCluster& inner_;
  } failing(cluster_);
  Syncer syncer(failing, events_, clock_);
  const std::string name = RSName();
  SyncOutcome out = syncer.Sync(D());
  EXPECT_EQ(out.status.code(), Code::kForbidden);
  const std::string msg = "Failed to create new replica set \"" + name + "\": exceeded quota";
  EXPECT_THAT(Events("ReplicaSetCreateError"), ElementsAre(msg));
  ASSERT_NE(Cond("Progressing"), nullptr);
  EXPECT_EQ(Cond("Progressing")->status, "False");
  EXPECT_EQ(Cond("Progressing")->reason, "ReplicaSetCreateError");
  EXPECT_EQ(Cond("Progressing")->message, msg);
}

TEST_F(SyncTest, AnnotationsAreCopiedToTheCurrentReplicaSetOnly) {
  Converge();
  const std::string first = RSName();
  SetImage("nginx:1.27");
  const std::string second = RSName();
  Converge();
  D().metadata.annotations["kubernetes.io/change-cause"] = "v2";
  Converge();
  EXPECT_EQ(cluster_.rss[second].metadata.annotations["kubernetes.io/change-cause"], "v2");
  EXPECT_FALSE(cluster_.rss[first].metadata.annotations.contains("kubernetes.io/change-cause"));
}

TEST_F(SyncTest, UnknownStrategyIsAnError) {
  Edit([](Deployment& d) { d.spec.strategy.type = "Blue"; });
  SyncOutcome out = Sync();
  EXPECT_FALSE(out.status.ok());
  EXPECT_THAT(out.status.message(), HasSubstr("unexpected deployment strategy type: Blue"));
}

}  // namespace
}  // namespace svcplane::controllers::deployment
