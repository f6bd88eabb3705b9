#include "controllers/replicaset/replica_set_utils.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>

namespace svcplane::controllers::replicaset {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

const WallTime kNow = WallTime{} + std::chrono::seconds(1'800'000'000);
constexpr int64_t kNowSeconds = 1'800'000'000;

ReplicaSet MakeRs(int32_t replicas = 3) {
  ReplicaSet rs;
  rs.metadata.name = "web";
  rs.metadata.namespace_ = "default";
  rs.metadata.uid = "rs-uid";
  rs.metadata.rest->generation = 2;
  rs.spec.replicas = replicas;
  api::selectors::LabelSelectorSpec sel;
  sel.match_labels = {{"app", "web"}};
  rs.spec.selector = sel;
  rs.spec.template_.metadata.labels = {{"app", "web"}, {"tier", "front"}};
  rs.spec.template_.metadata.annotations = {{"note", "x"}};
  rs.spec.template_.metadata.finalizers = {"example.com/f"};
  api::core::v1::Container c;
  c.name = "nginx";
  c.image = "nginx";
  rs.spec.template_.spec.containers.push_back(c);
  return rs;
}

PodPtr MakePod(std::string name, api::meta::StringMap labels, bool ready = false,
               int64_t ready_seconds_ago = 0) {
  Pod p;
  p.metadata.name = std::move(name);
  p.metadata.namespace_ = "default";
  p.metadata.uid = "uid-" + p.metadata.name;
  p.metadata.labels = std::move(labels);
  p.status.phase = "Running";
  if (ready) {
    api::core::v1::PodCondition c;
    c.type = "Ready";
    c.status = "True";
    c.last_transition_time = api::meta::Time::FromUnix(kNowSeconds - ready_seconds_ago);
    p.status.conditions.push_back(c);
  }
  return std::make_shared<const Pod>(std::move(p));
}

// Runs the batch's calls one after the other, recording the batch sizes.
struct RecordingRunner {
  std::vector<int> sizes;
  std::vector<Status> operator()(int size, const std::function<Status()>& fn) {
    sizes.push_back(size);
    std::vector<Status> out;
    for (int i = 0; i < size; ++i) out.push_back(fn());
    return out;
  }
};

TEST(SlowStartTest, BatchesDoubleUpTo500) {
  EXPECT_THAT(SlowStartBatchSizes(500, 1), ElementsAre(1, 2, 4, 8, 16, 32, 64, 128, 245));
  EXPECT_THAT(SlowStartBatchSizes(7, 1), ElementsAre(1, 2, 4));
  EXPECT_THAT(SlowStartBatchSizes(3, 1), ElementsAre(1, 2));
  EXPECT_THAT(SlowStartBatchSizes(0, 1), IsEmpty());

  RecordingRunner runner;
  int calls = 0;
  auto result = SlowStartBatch(
      500, kSlowStartInitialBatch,
      [&] {
        ++calls;
        return Status::Ok();
      },
      [&](int size, const std::function<Status()>& fn) { return runner(size, fn); });
  EXPECT_EQ(result.successes, 500);
  EXPECT_TRUE(result.error.ok());
  EXPECT_EQ(calls, 500);
  EXPECT_THAT(runner.sizes, ElementsAre(1, 2, 4, 8, 16, 32, 64, 128, 245));
}

TEST(SlowStartTest, StopsAfterTheFirstFailedBatch) {
  RecordingRunner runner;
  int calls = 0;
  // The 5th call fails: it is in the third batch (calls 4..7), which still runs whole.
  auto result = SlowStartBatch(
      20, 1,
      [&] {
        ++calls;
        return calls == 5 ? Status(Code::kForbidden, "quota exceeded") : Status::Ok();
      },
      [&](int size, const std::function<Status()>& fn) { return runner(size, fn); });
  EXPECT_THAT(runner.sizes, ElementsAre(1, 2, 4));
  EXPECT_EQ(calls, 7);
  EXPECT_EQ(result.successes, 6);
  EXPECT_EQ(result.error.message(), "quota exceeded");
}

TEST(SlowStartTest, ParallelRunnerRunsEveryCall) {
  std::atomic<int> calls{0};
  auto result = SlowStartBatch(37, 1, [&] {
    calls.fetch_add(1);
    return Status::Ok();
  });
  EXPECT_EQ(calls.load(), 37);
  EXPECT_EQ(result.successes, 37);
}

TEST(PodFromTemplateTest, GenerateNameLabelsOwner) {
  ReplicaSet rs = MakeRs();
  auto pod = PodFromTemplate(rs);
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  EXPECT_EQ(pod->metadata.name, "");
  EXPECT_EQ(pod->metadata.rest->generate_name, "web-");
  EXPECT_EQ(pod->metadata.namespace_, "default");
  EXPECT_EQ(pod->metadata.labels, rs.spec.template_.metadata.labels);
  EXPECT_EQ(pod->metadata.annotations, rs.spec.template_.metadata.annotations);
  EXPECT_THAT(pod->metadata.finalizers, ElementsAre("example.com/f"));
  EXPECT_EQ(pod->spec, rs.spec.template_.spec);
  ASSERT_THAT(pod->metadata.owner_references, SizeIs(1));
  const auto& ref = pod->metadata.owner_references[0];
  EXPECT_EQ(ref.api_version, "apps/v1");
  EXPECT_EQ(ref.kind, "ReplicaSet");
  EXPECT_EQ(ref.name, "web");
  EXPECT_EQ(ref.uid, "rs-uid");
  EXPECT_EQ(ref.controller, true);
  EXPECT_EQ(ref.block_owner_deletion, true);
}

TEST(PodFromTemplateTest, LongNameUsesBareNameAndNoLabelsFails) {
  ReplicaSet rs = MakeRs();
  rs.metadata.name = std::string(253, 'a');
  auto pod = PodFromTemplate(rs);
  ASSERT_TRUE(pod.ok());
  EXPECT_EQ(pod->metadata.rest->generate_name, rs.metadata.name);
  rs.metadata.name = std::string(252, 'a');
  EXPECT_EQ(PodFromTemplate(rs)->metadata.rest->generate_name, rs.metadata.name + "-");

  rs.spec.template_.metadata.labels.clear();
  auto none = PodFromTemplate(rs);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "unable to create pods, no labels");
}

TEST(PatchTest, AdoptAndReleaseBodies) {
  ReplicaSet rs = MakeRs();
  EXPECT_EQ(AdoptPatch(rs, "pod-uid"),
            R"({"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet",)"
            R"("name":"web","uid":"rs-uid","controller":true,"blockOwnerDeletion":true}],)"
            R"("uid":"pod-uid"}})");
  EXPECT_EQ(ReleasePatch("rs-uid", "pod-uid"),
            R"({"metadata":{"uid":"pod-uid","ownerReferences":[{"$patch":"delete",)"
            R"("uid":"rs-uid"}]}})");
}

TEST(ClaimTest, Decisions) {
  ReplicaSet rs = MakeRs();
  auto selector = *api::selectors::SelectorFromSpec(&*rs.spec.selector);
  auto owned = [&](std::string uid, api::meta::StringMap labels) {
    Pod p = *MakePod("p", std::move(labels));
    api::meta::OwnerReference ref = ControllerRef(rs);
    ref.uid = std::move(uid);
    p.metadata.owner_references.push_back(ref);
    return p;
  };
  EXPECT_EQ(DecideClaim(rs, selector, owned("rs-uid", {{"app", "web"}})), ClaimAction::kKeep);
  EXPECT_EQ(DecideClaim(rs, selector, owned("rs-uid", {{"app", "other"}})), ClaimAction::kRelease);
  EXPECT_EQ(DecideClaim(rs, selector, owned("other-uid", {{"app", "web"}})), ClaimAction::kIgnore);
  EXPECT_EQ(DecideClaim(rs, selector, *MakePod("o", {{"app", "web"}})), ClaimAction::kAdopt);
  EXPECT_EQ(DecideClaim(rs, selector, *MakePod("o", {{"app", "other"}})), ClaimAction::kIgnore);

  // A non-controller owner reference leaves the pod an orphan.
  Pod with_owner = *MakePod("o", {{"app", "web"}});
  api::meta::OwnerReference plain;
  plain.uid = "cm";
  with_owner.metadata.owner_references.push_back(plain);
  EXPECT_EQ(DecideClaim(rs, selector, with_owner), ClaimAction::kAdopt);

  Pod deleting = *MakePod("o", {{"app", "web"}});
  deleting.metadata.deletion_timestamp = api::meta::Time::FromUnix(1);
  EXPECT_EQ(DecideClaim(rs, selector, deleting), ClaimAction::kIgnore);

  Pod elsewhere = *MakePod("o", {{"app", "web"}});
  elsewhere.metadata.namespace_ = "other";
  EXPECT_EQ(DecideClaim(rs, selector, elsewhere), ClaimAction::kIgnore);

  ReplicaSet gone = rs;
  gone.metadata.deletion_timestamp = api::meta::Time::FromUnix(1);
  EXPECT_EQ(DecideClaim(gone, selector, *MakePod("o", {{"app", "web"}})), ClaimAction::kIgnore);
  EXPECT_EQ(DecideClaim(gone, selector, owned("rs-uid", {{"app", "other"}})), ClaimAction::kSkip);
  EXPECT_EQ(DecideClaim(gone, selector, owned("rs-uid", {{"app", "web"}})), ClaimAction::kKeep);
}

TEST(StatusTest, CountsWithMinReadySeconds) {
  ReplicaSet rs = MakeRs(4);
  rs.spec.min_ready_seconds = 10;
  std::vector<PodPtr> pods = {
      MakePod("a", {{"app", "web"}, {"tier", "front"}}, true, 60),  // available
      MakePod("b", {{"app", "web"}, {"tier", "front"}}, true, 5),   // ready, not yet available
      MakePod("c", {{"app", "web"}}, true, 10),  // not fully labeled; 10 s is not > 10 s
      MakePod("d", {{"app", "web"}, {"tier", "front"}, {"extra", "1"}}),  // not ready
  };
  auto s = CalculateStatus(rs, pods, Status::Ok(), kNow);
  EXPECT_EQ(s.replicas, 4);
  EXPECT_EQ(s.fully_labeled_replicas, 3);
  EXPECT_EQ(s.ready_replicas, 3);
  EXPECT_EQ(s.available_replicas, 1);
  EXPECT_THAT(s.conditions, IsEmpty());
  EXPECT_EQ(s.observed_generation, 0);  // the write sets it

  rs.spec.min_ready_seconds = 0;
  EXPECT_EQ(CalculateStatus(rs, pods, Status::Ok(), kNow).available_replicas, 3);
}

TEST(StatusTest, ReplicaFailureAddedOnceAndRemoved) {
  ReplicaSet rs = MakeRs(3);
  std::vector<PodPtr> one = {MakePod("a", {{"app", "web"}})};
  Status err(Code::kForbidden, "pods \"web-x\" is forbidden: exceeded quota");
  auto s = CalculateStatus(rs, one, err, kNow);
  ASSERT_THAT(s.conditions, SizeIs(1));
  EXPECT_EQ(s.conditions[0].type, "ReplicaFailure");
  EXPECT_EQ(s.conditions[0].status, "True");
  EXPECT_EQ(s.conditions[0].reason, "FailedCreate");
  EXPECT_EQ(s.conditions[0].message, "pods \"web-x\" is forbidden: exceeded quota");
  EXPECT_EQ(s.conditions[0].last_transition_time.unix_seconds, kNowSeconds);

  // Already there: kept as it was (message and time unchanged).
  rs.status = s;
  auto again =
      CalculateStatus(rs, one, Status(Code::kInternal, "other"), kNow + std::chrono::hours(1));
  EXPECT_EQ(again.conditions, s.conditions);

  // Success removes it.
  EXPECT_THAT(CalculateStatus(rs, one, Status::Ok(), kNow).conditions, IsEmpty());

  // Too many pods: FailedDelete.
  ReplicaSet small = MakeRs(0);
  auto d = CalculateStatus(small, one, Status(Code::kInternal, "unable to delete pods"), kNow);
  ASSERT_THAT(d.conditions, SizeIs(1));
  EXPECT_EQ(d.conditions[0].reason, "FailedDelete");
}

TEST(StatusTest, SkipWriteOnlyWhenEqualAndGenerationObserved) {
  ReplicaSet rs = MakeRs(1);
  std::vector<PodPtr> pods = {MakePod("a", {{"app", "web"}, {"tier", "front"}}, true, 100)};
  auto s = CalculateStatus(rs, pods, Status::Ok(), kNow);
  EXPECT_FALSE(StatusUpToDate(rs, s));  // counters differ
  rs.status = s;
  EXPECT_FALSE(StatusUpToDate(rs, s));  // generation 2 not observed
  rs.status.observed_generation = 2;
  s.observed_generation = 2;
  EXPECT_TRUE(StatusUpToDate(rs, s));
  auto with_condition = CalculateStatus(rs, pods, Status(Code::kInternal, "x"), kNow);
  EXPECT_FALSE(StatusUpToDate(rs, with_condition));
}

TEST(StatusTest, DesiredReplicasDefaultsToOne) {
  ReplicaSet rs = MakeRs();
  rs.spec.replicas.reset();
  EXPECT_EQ(DesiredReplicas(rs), 1);
}

}  // namespace
}  // namespace svcplane::controllers::replicaset

namespace svcplane::controllers::replicaset {
namespace {

TEST(StatusTest, NextAvailabilityCheck) {
  ReplicaSet rs = MakeRs(3);
  std::vector<PodPtr> pods = {MakePod("a", {{"app", "web"}}, true, 60),
                              MakePod("b", {{"app", "web"}}, true, 2),
                              MakePod("c", {{"app", "web"}}, true, 4), MakePod("d", {})};
  EXPECT_FALSE(NextAvailabilityCheck(rs, pods, kNow).has_value());  // minReadySeconds 0
  rs.spec.min_ready_seconds = 10;
  // c became ready 4 s ago: available after 6 more seconds (+1 s for the strict comparison).
  EXPECT_EQ(NextAvailabilityCheck(rs, pods, kNow), std::chrono::seconds(7));
  rs.spec.min_ready_seconds = 1;
  EXPECT_FALSE(NextAvailabilityCheck(rs, pods, kNow).has_value());  // all ready ones available
}

}  // namespace
}  // namespace svcplane::controllers::replicaset
