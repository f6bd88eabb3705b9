#include "controllers/deployment/util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/deployment/hash.h"

namespace svcplane::controllers::deployment {
namespace {

using api::meta::IntOrString;
using ::testing::ElementsAre;

IntOrString Pct(std::string s) { return IntOrString::FromString(std::move(s)); }
IntOrString Int(int32_t v) { return IntOrString::FromInt(v); }

Deployment MakeDeployment(int32_t replicas, IntOrString surge = Pct("25%"),
                          IntOrString unavailable = Pct("25%")) {
  Deployment d;
  d.metadata.name = "web";
  d.metadata.namespace_ = "default";
  d.metadata.uid = "d-uid";
  d.metadata.rest->generation = 1;
  d.spec.replicas = replicas;
  d.spec.strategy.type = "RollingUpdate";
  d.spec.strategy.rolling_update.emplace();
  d.spec.strategy.rolling_update->max_surge = surge;
  d.spec.strategy.rolling_update->max_unavailable = unavailable;
  d.spec.template_.metadata.labels = {{"app", "web"}};
  d.spec.template_.spec.containers.resize(1);
  d.spec.template_.spec.containers[0].name = "nginx";
  d.spec.template_.spec.containers[0].image = "nginx";
  d.spec.progress_deadline_seconds = 600;
  d.spec.revision_history_limit = 10;
  return d;
}

RSPtr MakeRS(std::string name, int32_t spec, int32_t available, int64_t created,
             std::map<std::string, std::string> annotations = {}) {
  auto rs = std::make_shared<ReplicaSet>();
  rs->metadata.name = std::move(name);
  rs->metadata.namespace_ = "default";
  rs->metadata.uid = rs->metadata.name + "-uid";
  rs->metadata.creation_timestamp = api::meta::Time::FromUnix(created);
  rs->metadata.rest->generation = 1;
  for (auto& [k, v] : annotations) rs->metadata.annotations[k] = v;
  rs->spec.replicas = spec;
  rs->status.replicas = spec;
  rs->status.ready_replicas = available;
  rs->status.available_replicas = available;
  rs->status.observed_generation = 1;
  return rs;
}

// --- maxSurge / maxUnavailable -----------------------------------------------------------------

TEST(FencepostsTest, PercentRoundsSurgeUpAndUnavailableDown) {
  auto f = ResolveFenceposts(Pct("25%"), Pct("25%"), 3);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->max_surge, 1);        // ceil(0.75)
  EXPECT_EQ(f->max_unavailable, 0);  // floor(0.75)
  f = ResolveFenceposts(Pct("25%"), Pct("25%"), 10);
  EXPECT_EQ(f->max_surge, 3);
  EXPECT_EQ(f->max_unavailable, 2);
  f = ResolveFenceposts(Pct("1%"), Pct("1%"), 2);
  EXPECT_EQ(f->max_surge, 1);
  EXPECT_EQ(f->max_unavailable, 0);
  f = ResolveFenceposts(Int(2), Int(3), 10);
  EXPECT_EQ(f->max_surge, 2);
  EXPECT_EQ(f->max_unavailable, 3);
}

TEST(FencepostsTest, BothZeroAllowsOneUnavailable) {
  auto f = ResolveFenceposts(Int(0), Pct("10%"), 5);  // 10% of 5 rounds down to 0
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->max_surge, 0);
  EXPECT_EQ(f->max_unavailable, 1);
  f = ResolveFenceposts(std::nullopt, std::nullopt, 3);
  EXPECT_EQ(f->max_unavailable, 1);
}

TEST(FencepostsTest, BadStringsAreErrors) {
  EXPECT_FALSE(ResolveFenceposts(Pct("abc"), Int(1), 3).ok());
  EXPECT_FALSE(ResolveFenceposts(Int(1), Pct("x%"), 3).ok());
}

TEST(FencepostsTest, DeploymentHelpersCapAndZero) {
  EXPECT_EQ(MaxUnavailable(MakeDeployment(3, Int(1), Int(5))), 3);  // capped at replicas
  EXPECT_EQ(MaxUnavailable(MakeDeployment(0, Int(1), Int(5))), 0);
  EXPECT_EQ(MaxSurge(MakeDeployment(0)), 0);                  // 25% of 0
  EXPECT_EQ(MaxSurge(MakeDeployment(0, Int(2), Int(0))), 2);  // an integer surge stays
  EXPECT_EQ(MinAvailable(MakeDeployment(10)), 8);
  Deployment recreate = MakeDeployment(3);
  recreate.spec.strategy.type = "Recreate";
  EXPECT_EQ(MaxSurge(recreate), 0);
  EXPECT_EQ(MaxUnavailable(recreate), 0);
  EXPECT_EQ(MinAvailable(recreate), 0);
}

TEST(DeadlineTest, MaxInt32MeansUnset) {
  Deployment d = MakeDeployment(3);
  EXPECT_TRUE(HasProgressDeadline(d));
  d.spec.progress_deadline_seconds = 2147483647;
  EXPECT_FALSE(HasProgressDeadline(d));
  d.spec.progress_deadline_seconds.reset();
  EXPECT_FALSE(HasProgressDeadline(d));
  d.spec.revision_history_limit = 2147483647;
  EXPECT_FALSE(HasRevisionHistoryLimit(d));
}

// --- Revisions and annotations -----------------------------------------------------------------

TEST(RevisionTest, MissingIsZeroBadIsSkipped) {
  EXPECT_EQ(*Revision(MakeRS("a", 1, 1, 1)->metadata), 0);
  EXPECT_FALSE(Revision(MakeRS("a", 1, 1, 1, {{kRevisionAnnotation, "x"}})->metadata).ok());
  EXPECT_EQ(MaxRevision({MakeRS("a", 1, 1, 1, {{kRevisionAnnotation, "3"}}),
                         MakeRS("b", 1, 1, 1, {{kRevisionAnnotation, "bad"}}),
                         MakeRS("c", 1, 1, 1, {{kRevisionAnnotation, "7"}})}),
            7);
}

TEST(NewReplicaSetAnnotationsTest, NewReplicaSetGetsRevisionAndReplicaCounts) {
  Deployment d = MakeDeployment(3);
  d.metadata.annotations = {{"kubernetes.io/change-cause", "v2"},
                            {kLastAppliedConfigAnnotation, "{}"},
                            {kRevisionAnnotation, "9"},
                            {kDeprecatedRollbackToAnnotation, "1"}};
  ReplicaSet rs;
  EXPECT_TRUE(SetNewReplicaSetAnnotations(d, rs, "1", /*exists=*/false));
  EXPECT_EQ(rs.metadata.annotations, (api::meta::StringMap{{kDesiredReplicasAnnotation, "3"},
                                                           {kMaxReplicasAnnotation, "4"},
                                                           {kRevisionAnnotation, "1"},
                                                           {"kubernetes.io/change-cause", "v2"}}));
  // Again: nothing changes.
  EXPECT_FALSE(SetNewReplicaSetAnnotations(d, rs, "1", /*exists=*/true));
}

TEST(NewReplicaSetAnnotationsTest, RollbackRecordsRevisionHistory) {
  Deployment d = MakeDeployment(3);
  ReplicaSet rs = *MakeRS("web-a", 0, 0, 1, {{kRevisionAnnotation, "1"}});
  EXPECT_TRUE(SetNewReplicaSetAnnotations(d, rs, "3", /*exists=*/true));
  EXPECT_EQ(rs.metadata.annotations[kRevisionAnnotation], "3");
  EXPECT_EQ(rs.metadata.annotations[kRevisionHistoryAnnotation], "1");
  EXPECT_TRUE(SetNewReplicaSetAnnotations(d, rs, "5", /*exists=*/true));
  EXPECT_EQ(rs.metadata.annotations[kRevisionAnnotation], "5");
  EXPECT_EQ(rs.metadata.annotations[kRevisionHistoryAnnotation], "1,3");
  // A lower revision never replaces a higher one (old ReplicaSets were deleted meanwhile).
  EXPECT_FALSE(SetNewReplicaSetAnnotations(d, rs, "4", /*exists=*/true));
  EXPECT_EQ(rs.metadata.annotations[kRevisionAnnotation], "5");
  // Numeric, not string, comparison: 10 > 9.
  ReplicaSet nine = *MakeRS("web-b", 0, 0, 1, {{kRevisionAnnotation, "9"}});
  EXPECT_TRUE(SetNewReplicaSetAnnotations(d, nine, "10", /*exists=*/true));
  EXPECT_EQ(nine.metadata.annotations[kRevisionAnnotation], "10");
}

TEST(NewReplicaSetAnnotationsTest, HistoryIsTrimmedFromTheFront) {
  Deployment d = MakeDeployment(3);
  ReplicaSet rs = *MakeRS("web-a", 0, 0, 1,
                          {{kRevisionAnnotation, "7"}, {kRevisionHistoryAnnotation, "1,3,5"}});
  EXPECT_TRUE(SetNewReplicaSetAnnotations(d, rs, "9", /*exists=*/true, /*limit=*/4));
  EXPECT_EQ(rs.metadata.annotations[kRevisionHistoryAnnotation], "5,7");
}

TEST(NewReplicaSetAnnotationsTest, UnparsableRevisionIsLeftAlone) {
  Deployment d = MakeDeployment(3);
  ReplicaSet rs = *MakeRS("web-a", 0, 0, 1, {{kRevisionAnnotation, "x"}});
  EXPECT_FALSE(SetNewReplicaSetAnnotations(d, rs, "2", /*exists=*/true));
  EXPECT_EQ(rs.metadata.annotations[kRevisionAnnotation], "x");
}

// --- New and old ReplicaSets -------------------------------------------------------------------

TEST(FindNewReplicaSetTest, OldestTemplateEqualIgnoringHash) {
  Deployment d = MakeDeployment(3);
  auto other = std::const_pointer_cast<ReplicaSet>(MakeRS("web-other", 1, 1, 1));
  other->spec.template_ = d.spec.template_;
  other->spec.template_.spec.containers[0].image = "nginx:old";
  auto newer = std::const_pointer_cast<ReplicaSet>(MakeRS("web-b", 1, 1, 20));
  newer->spec.template_ = d.spec.template_;
  newer->spec.template_.metadata.labels[kPodTemplateHashLabel] = "b";
  auto older = std::const_pointer_cast<ReplicaSet>(MakeRS("web-a", 1, 1, 10));
  older->spec.template_ = d.spec.template_;
  older->spec.template_.metadata.labels[kPodTemplateHashLabel] = "a";
  RSList all{other, newer, older};
  EXPECT_EQ(FindNewReplicaSet(d, all), older);
  RSList old = FindOldReplicaSets(all, older);
  EXPECT_THAT(old, ElementsAre(other, newer));
  d.spec.template_.spec.containers[0].image = "nginx:new";
  EXPECT_EQ(FindNewReplicaSet(d, all), nullptr);
}

TEST(FindNewReplicaSetTest, ExplicitZerosInRawMembersStillMatch) {
  Deployment d = MakeDeployment(3);  // as kubectl's JSON patch of `rollout undo` leaves it
  auto rs = std::const_pointer_cast<ReplicaSet>(MakeRS("web-a", 0, 0, 1));
  rs->spec.template_ = d.spec.template_;  // as created from a protobuf Deployment
  rs->spec.template_.metadata.labels[kPodTemplateHashLabel] = "a";
  rs->spec.template_.spec.containers[0].unknown.items.push_back({"stdin", "false"});
  rs->spec.template_.spec.unknown.items.push_back({"hostPID", "false"});
  EXPECT_EQ(FindNewReplicaSet(d, {rs}), rs);
  rs->spec.template_.spec.unknown.items.push_back({"hostNetwork", "true"});
  EXPECT_EQ(FindNewReplicaSet(d, {rs}), nullptr);
}

TEST(FindActiveOrLatestTest, OnlyActiveOrNewestOrNone) {
  auto a = MakeRS("a", 0, 0, 1);
  auto b = MakeRS("b", 0, 0, 2);
  auto n = MakeRS("n", 0, 0, 3);
  EXPECT_EQ(FindActiveOrLatest(nullptr, {a, b}), b);  // none active: the newest old one
  EXPECT_EQ(FindActiveOrLatest(n, {a, b}), n);        // none active: the new one
  auto active = MakeRS("c", 2, 2, 1);
  EXPECT_EQ(FindActiveOrLatest(n, {a, active}), active);
  EXPECT_EQ(FindActiveOrLatest(MakeRS("n2", 1, 0, 3), {active}), nullptr);
}

TEST(SortTest, SizeOrders) {
  auto big_old = MakeRS("a", 5, 5, 1);
  auto big_new = MakeRS("b", 5, 5, 2);
  auto small = MakeRS("c", 1, 1, 3);
  RSList l{small, big_old, big_new};
  SortBySizeNewer(l);
  EXPECT_THAT(l, ElementsAre(big_new, big_old, small));
  SortBySizeOlder(l);
  EXPECT_THAT(l, ElementsAre(big_old, big_new, small));
}

// --- Scaling arithmetic ------------------------------------------------------------------------

TEST(NewRSNewReplicasTest, SurgeBoundsScaleUp) {
  Deployment d = MakeDeployment(3);  // surge 1
  auto old = MakeRS("old", 3, 3, 1);
  auto fresh = MakeRS("new", 0, 0, 2);
  EXPECT_EQ(*NewRSNewReplicas(d, {old, fresh}, *fresh), 1);
  auto one = MakeRS("new", 1, 0, 2);
  EXPECT_EQ(*NewRSNewReplicas(d, {old, one}, *one), 1);  // 4 pods already: no more
  auto old2 = MakeRS("old", 2, 2, 1);
  EXPECT_EQ(*NewRSNewReplicas(d, {old2, one}, *one), 2);
  Deployment ten = MakeDeployment(10);  // surge 3
  EXPECT_EQ(*NewRSNewReplicas(ten, {MakeRS("old", 10, 10, 1), fresh}, *fresh), 3);
  // Never past spec.replicas.
  Deployment big = MakeDeployment(2, Int(10), Int(0));
  EXPECT_EQ(*NewRSNewReplicas(big, {fresh}, *fresh), 2);
  Deployment recreate = MakeDeployment(3);
  recreate.spec.strategy.type = "Recreate";
  EXPECT_EQ(*NewRSNewReplicas(recreate, {old, fresh}, *fresh), 3);
  recreate.spec.strategy.type = "Other";
  EXPECT_FALSE(NewRSNewReplicas(recreate, {fresh}, *fresh).ok());
}

TEST(MaxScaledDownTest, CountsUnavailableNewPods) {
  Deployment d = MakeDeployment(3);  // unavailable 0
  auto old = MakeRS("old", 3, 3, 1);
  EXPECT_EQ(MaxScaledDown(d, {old, MakeRS("new", 1, 0, 2)}, *MakeRS("new", 1, 0, 2)), 0);
  EXPECT_EQ(MaxScaledDown(d, {old, MakeRS("new", 1, 1, 2)}, *MakeRS("new", 1, 1, 2)), 1);
}

TEST(IsSaturatedTest, NeedsSpecAnnotationAndAvailability) {
  Deployment d = MakeDeployment(3);
  EXPECT_TRUE(IsSaturated(d, MakeRS("n", 3, 3, 1, {{kDesiredReplicasAnnotation, "3"}})));
  EXPECT_FALSE(IsSaturated(d, MakeRS("n", 3, 2, 1, {{kDesiredReplicasAnnotation, "3"}})));
  EXPECT_FALSE(IsSaturated(d, MakeRS("n", 3, 3, 1, {{kDesiredReplicasAnnotation, "2"}})));
  EXPECT_FALSE(IsSaturated(d, MakeRS("n", 3, 3, 1)));
  EXPECT_FALSE(IsSaturated(d, nullptr));
}

// The docs' example (workloads.md §3.6): 10 replicas, surge 3, unavailable 2, mid-rollout
// old=8 new=5 (max-replicas 13), scaled to 15 -> old 11, new 7.
TEST(ProportionalScaleTest, DocsExampleScaleUp) {
  Deployment d = MakeDeployment(15, Int(3), Int(2));
  auto old = MakeRS("old", 8, 8, 1, {{kMaxReplicasAnnotation, "13"}});
  auto fresh = MakeRS("new", 5, 0, 2, {{kMaxReplicasAnnotation, "13"}});
  ProportionalPlan plan = PlanProportionalScale(d, {fresh, old});
  EXPECT_EQ(plan.operation, "up");
  EXPECT_THAT(plan.order, ElementsAre(old, fresh));
  EXPECT_THAT(plan.sizes, ElementsAre(11, 7));
}

TEST(ProportionalScaleTest, ScaleDownAndLeftovers) {
  Deployment d = MakeDeployment(5, Int(3), Int(2));  // allowed 8, from 13
  auto old = MakeRS("old", 8, 8, 1, {{kMaxReplicasAnnotation, "13"}});
  auto fresh = MakeRS("new", 5, 0, 2, {{kMaxReplicasAnnotation, "13"}});
  ProportionalPlan plan = PlanProportionalScale(d, {fresh, old});
  EXPECT_EQ(plan.operation, "down");
  EXPECT_THAT(plan.sizes, ElementsAre(5, 3));
  // To zero: everything goes.
  Deployment zero = MakeDeployment(0, Int(3), Int(2));
  plan = PlanProportionalScale(zero, {fresh, old});
  EXPECT_THAT(plan.sizes, ElementsAre(0, 0));
  // Rounding leaves one replica over: it goes to the first (largest) ReplicaSet.
  Deployment eleven = MakeDeployment(11, Int(0), Int(1));  // allowed 11, from 10
  auto a = MakeRS("a", 5, 5, 1, {{kMaxReplicasAnnotation, "10"}});
  auto b = MakeRS("b", 5, 5, 2, {{kMaxReplicasAnnotation, "10"}});
  plan = PlanProportionalScale(eleven, {a, b});
  EXPECT_THAT(plan.order, ElementsAre(b, a));  // equal sizes: newer first on scale-up
  EXPECT_THAT(plan.sizes, ElementsAre(6, 5));  // round(5.5)=6 takes the one for b
}

TEST(ProportionalScaleTest, MissingAnnotationUsesStatusReplicas) {
  Deployment d = MakeDeployment(20, Int(0), Int(1));
  d.status.replicas = 10;
  auto a = MakeRS("a", 6, 6, 1);
  auto b = MakeRS("b", 4, 4, 2);
  ProportionalPlan plan = PlanProportionalScale(d, {a, b});
  EXPECT_THAT(plan.sizes, ElementsAre(12, 8));
}

// --- Conditions and status ---------------------------------------------------------------------

TEST(ConditionsTest, SetKeepsTransitionTimeAndAppends) {
  DeploymentStatus s;
  const auto t1 = api::meta::Time::FromUnix(100);
  const auto t2 = api::meta::Time::FromUnix(200);
  SetCondition(s, NewCondition("Progressing", "True", "A", "a", t1));
  SetCondition(s, NewCondition("Available", "True", "B", "b", t1));
  // Same status and reason: nothing changes.
  SetCondition(s, NewCondition("Progressing", "True", "A", "other", t2));
  EXPECT_EQ(s.conditions[0].message, "a");
  // Same status, new reason: moved to the end, transition time kept.
  SetCondition(s, NewCondition("Progressing", "True", "C", "c", t2));
  ASSERT_EQ(s.conditions.size(), 2u);
  EXPECT_EQ(s.conditions[1].reason, "C");
  EXPECT_EQ(s.conditions[1].last_transition_time, t1);
  EXPECT_EQ(s.conditions[1].last_update_time, t2);
  SetCondition(s, NewCondition("Progressing", "False", "D", "d", t2));
  EXPECT_EQ(s.conditions[1].last_transition_time, t2);
  RemoveCondition(s, "Available");
  ASSERT_EQ(s.conditions.size(), 1u);
  EXPECT_EQ(s.conditions[0].type, "Progressing");
}

TEST(CalculateStatusTest, CountersAndAvailability) {
  Deployment d = MakeDeployment(3);  // min available 3
  d.metadata.rest->generation = 4;
  d.status.collision_count = 2;
  auto old = std::const_pointer_cast<ReplicaSet>(MakeRS("old", 2, 2, 1));
  auto fresh = std::const_pointer_cast<ReplicaSet>(MakeRS("new", 2, 0, 2));
  fresh->status.ready_replicas = 1;
  DeploymentStatus s = CalculateStatus({old, fresh}, fresh, d, api::meta::Time::FromUnix(5));
  EXPECT_EQ(s.observed_generation, 4);
  EXPECT_EQ(s.replicas, 4);
  EXPECT_EQ(s.updated_replicas, 2);
  EXPECT_EQ(s.ready_replicas, 3);
  EXPECT_EQ(s.available_replicas, 2);
  EXPECT_EQ(s.unavailable_replicas, 2);
  EXPECT_EQ(s.collision_count, 2);
  ASSERT_EQ(s.conditions.size(), 1u);
  EXPECT_EQ(s.conditions[0].type, "Available");
  EXPECT_EQ(s.conditions[0].status, "False");
  EXPECT_EQ(s.conditions[0].reason, "MinimumReplicasUnavailable");
  EXPECT_EQ(s.conditions[0].message, "Deployment does not have minimum availability.");
  fresh->status.available_replicas = 1;
  s = CalculateStatus({old, fresh}, fresh, d, api::meta::Time::FromUnix(5));
  EXPECT_EQ(s.conditions[0].status, "True");
  EXPECT_EQ(s.conditions[0].reason, "MinimumReplicasAvailable");
  EXPECT_EQ(s.conditions[0].message, "Deployment has minimum availability.");
  // No new ReplicaSet: nothing is updated.
  s = CalculateStatus({old, nullptr}, nullptr, d, api::meta::Time::FromUnix(5));
  EXPECT_EQ(s.updated_replicas, 0);
  EXPECT_EQ(s.replicas, 2);
}

class RolloutStatusTest : public ::testing::Test {
 protected:
  WallTime At(int64_t s) { return std::chrono::system_clock::from_time_t(s); }
  Deployment d_ = MakeDeployment(3);
};

TEST_F(RolloutStatusTest, CompleteSaysNewReplicaSetAvailable) {
  auto fresh = MakeRS("web-h", 3, 3, 1);
  DeploymentStatus s = RolloutStatus({fresh}, fresh, d_, At(100));
  const auto* c = GetCondition(s, "Progressing");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "True");
  EXPECT_EQ(c->reason, "NewReplicaSetAvailable");
  EXPECT_EQ(c->message, "ReplicaSet \"web-h\" has successfully progressed.");
  // Available comes first, then Progressing.
  EXPECT_EQ(s.conditions[0].type, "Available");
  EXPECT_EQ(s.conditions[1].type, "Progressing");
}

TEST_F(RolloutStatusTest, ProgressRefreshesUpdateTime) {
  d_.status.conditions.push_back(NewCondition("Progressing", "True", "ReplicaSetUpdated",
                                              "ReplicaSet \"web-h\" is progressing.",
                                              api::meta::Time::FromUnix(10)));
  d_.status.updated_replicas = 1;
  auto old = MakeRS("web-old", 2, 2, 1);
  auto fresh = MakeRS("web-h", 2, 1, 2);
  DeploymentStatus s = RolloutStatus({old, fresh}, fresh, d_, At(100));
  const auto* c = GetCondition(s, "Progressing");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->reason, "ReplicaSetUpdated");
  EXPECT_EQ(c->message, "ReplicaSet \"web-h\" is progressing.");
  EXPECT_EQ(c->last_update_time.unix_seconds, 100);
  EXPECT_EQ(c->last_transition_time.unix_seconds, 10);
}

TEST_F(RolloutStatusTest, NoProgressPastDeadlineTimesOut) {
  d_.spec.progress_deadline_seconds = 10;
  d_.status.replicas = 4;
  d_.status.updated_replicas = 1;
  d_.status.ready_replicas = 3;
  d_.status.available_replicas = 3;
  d_.status.conditions.push_back(NewCondition("Progressing", "True", "NewReplicaSetCreated",
                                              "Created new replica set \"web-h\"",
                                              api::meta::Time::FromUnix(100)));
  auto old = MakeRS("web-old", 3, 3, 1);
  auto fresh = MakeRS("web-h", 1, 0, 2);
  // Exactly at the deadline: not yet ("Before", strictly).
  DeploymentStatus s = RolloutStatus({old, fresh}, fresh, d_, At(110));
  EXPECT_EQ(GetCondition(s, "Progressing")->reason, "NewReplicaSetCreated");
  EXPECT_EQ(StuckRequeueDelay(d_, s, At(105)), std::chrono::seconds(6));
  EXPECT_EQ(StuckRequeueDelay(d_, s, At(110)), Duration::zero());
  s = RolloutStatus({old, fresh}, fresh, d_, At(111));
  const auto* c = GetCondition(s, "Progressing");
  EXPECT_EQ(c->status, "False");
  EXPECT_EQ(c->reason, "ProgressDeadlineExceeded");
  EXPECT_EQ(c->message, "ReplicaSet \"web-h\" has timed out progressing.");
}

TEST_F(RolloutStatusTest, NoDeadlineNoProgressingCondition) {
  d_.spec.progress_deadline_seconds.reset();
  d_.status.conditions.push_back(
      NewCondition("Progressing", "True", "X", "x", api::meta::Time::FromUnix(1)));
  auto fresh = MakeRS("web-h", 3, 3, 1);
  DeploymentStatus s = RolloutStatus({fresh}, fresh, d_, At(100));
  EXPECT_EQ(GetCondition(s, "Progressing"), nullptr);
  EXPECT_EQ(StuckRequeueDelay(d_, s, At(100)), std::nullopt);
}

TEST_F(RolloutStatusTest, ReplicaFailureIsCopiedFromTheNewReplicaSetFirst) {
  auto old = std::const_pointer_cast<ReplicaSet>(MakeRS("web-old", 1, 1, 1));
  auto fresh = std::const_pointer_cast<ReplicaSet>(MakeRS("web-h", 3, 0, 2));
  api::apps::v1::ReplicaSetCondition f;
  f.type = "ReplicaFailure";
  f.status = "True";
  f.reason = "FailedCreate";
  f.message = "old failure";
  old->status.conditions.push_back(f);
  DeploymentStatus s = RolloutStatus({old, fresh}, fresh, d_, At(100));
  EXPECT_EQ(GetCondition(s, "ReplicaFailure")->message, "old failure");
  f.message = "new failure";
  fresh->status.conditions.push_back(f);
  s = RolloutStatus({old, fresh}, fresh, d_, At(100));
  EXPECT_EQ(GetCondition(s, "ReplicaFailure")->message, "new failure");
  old->status.conditions.clear();
  fresh->status.conditions.clear();
  d_.status = s;
  s = RolloutStatus({old, fresh}, fresh, d_, At(100));
  EXPECT_EQ(GetCondition(s, "ReplicaFailure"), nullptr);
}

// --- History -----------------------------------------------------------------------------------

TEST(HistoryToDeleteTest, KeepsTheNewestLimitRevisions) {
  Deployment d = MakeDeployment(3);
  d.spec.revision_history_limit = 2;
  RSList old;
  for (int i = 1; i <= 5; ++i) {
    old.push_back(
        MakeRS("rs" + std::to_string(i), 0, 0, 10 - i, {{kRevisionAnnotation, std::to_string(i)}}));
  }
  std::vector<std::string> names;
  for (const auto& rs : HistoryToDelete(d, old)) names.push_back(rs->metadata.name);
  EXPECT_THAT(names, ElementsAre("rs1", "rs2", "rs3"));

  // One of the oldest still has pods, one is behind its generation: both are skipped and not
  // replaced by newer ones.
  auto busy = std::const_pointer_cast<ReplicaSet>(old[0]);
  busy->status.replicas = 1;
  auto behind = std::const_pointer_cast<ReplicaSet>(old[1]);
  behind->metadata.rest->generation = 2;
  names.clear();
  for (const auto& rs : HistoryToDelete(d, old)) names.push_back(rs->metadata.name);
  EXPECT_THAT(names, ElementsAre("rs3"));

  d.spec.revision_history_limit = 0;
  EXPECT_EQ(HistoryToDelete(d, {old[4]}).size(), 1u);
  d.spec.revision_history_limit.reset();
  EXPECT_TRUE(HistoryToDelete(d, old).empty());
}

}  // namespace
}  // namespace svcplane::controllers::deployment
