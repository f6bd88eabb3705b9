// The ReplicaSet controller on the in-memory fake cluster (client and informers in one, with a
// cache that can be held back and writes that can be failed) and a manual clock: the status
// write's one retry, and expectations while the informer lags (§7 scenario 39).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/errors.h"
#include "controllers/endpointslice/testing/fake_cluster.h"
#include "controllers/replicaset/controller.h"

namespace svcplane::controllers::replicaset {
namespace {

using endpointslice::RecordingEventSink;
using endpointslice::testing::FakeCluster;
using ::testing::Contains;

ReplicaSet MakeReplicaSet(const std::string& name, int32_t replicas) {
  ReplicaSet rs;
  rs.metadata.name = name;
  rs.metadata.namespace_ = "ns";
  rs.spec.replicas = replicas;
  api::selectors::LabelSelectorSpec sel;
  sel.match_labels = {{"app", name}};
  rs.spec.selector = sel;
  rs.spec.template_.metadata.labels = {{"app", name}};
  return rs;
}

class ReplicaSetFakeTest : public ::testing::Test {
 protected:
  ReplicaSetFakeTest()
      : controller_(cluster_, cluster_, events_, nullptr, clock_, ReplicaSetControllerOptions{}) {}
  ~ReplicaSetFakeTest() override {
    controller_.Shutdown();
    cluster_.Shutdown();
  }
  int Creates() {
    int n = 0;
    for (const auto& a : cluster_.Actions()) n += a.rfind("create pods ", 0) == 0;
    return n;
  }

  FakeClock clock_;
  FakeCluster cluster_;
  RecordingEventSink events_;
  ReplicaSetController controller_;
};

TEST_F(ReplicaSetFakeTest, StatusWriteIsRetriedOnceAfterAFailure) {
  ASSERT_TRUE(cluster_.ReplicaSets().Create(MakeReplicaSet("web", 1)).ok());
  cluster_.Drain();
  cluster_.ReplicaSets().FailNextUpdate(ConflictError("the object has been modified"));
  ASSERT_TRUE(controller_.SyncForTest("ns/web").ok());
  EXPECT_EQ(Creates(), 1);
  auto rs = *cluster_.ReplicaSets().Get("ns", "web");
  // The status counts the pods found at the start of the sync (none); the retried write
  // carried the observed generation.
  EXPECT_EQ(rs->status.replicas, 0);
  EXPECT_EQ(rs->status.observed_generation, 1);
  EXPECT_THAT(cluster_.Actions(), Contains("update-status replicasets ns/web"));
}

// Scenario 39: while the pod informer lags, the ReplicaSet does not create again until its
// creations are observed or five minutes pass (then it may over-create, as upstream #129795).
TEST_F(ReplicaSetFakeTest, ExpectationsHoldWhileThePodCacheLags) {
  ASSERT_TRUE(cluster_.ReplicaSets().Create(MakeReplicaSet("lag", 2)).ok());
  cluster_.Drain();
  cluster_.Pods().HoldCache();
  ASSERT_TRUE(controller_.SyncForTest("ns/lag").ok());
  EXPECT_EQ(Creates(), 2);
  ASSERT_TRUE(controller_.SyncForTest("ns/lag").ok());
  clock_.Advance(std::chrono::minutes(5));
  ASSERT_TRUE(controller_.SyncForTest("ns/lag").ok());
  EXPECT_EQ(Creates(), 2);  // the cache shows no pod, yet nothing more is created
  clock_.Advance(std::chrono::seconds(1));
  ASSERT_TRUE(controller_.SyncForTest("ns/lag").ok());
  EXPECT_EQ(Creates(), 4);  // expired: the lagging cache makes it create twice

  // Once the events arrive, all four are counted and the surplus goes.
  cluster_.Pods().ReleaseCache();
  cluster_.Drain();
  ASSERT_TRUE(controller_.ExpectationsForTest().Satisfied("ns/lag"));
  ASSERT_TRUE(controller_.SyncForTest("ns/lag").ok());
  EXPECT_EQ(cluster_.Pods().Size(), 2u);
}

TEST_F(ReplicaSetFakeTest, PodEventsEnqueueTheirReplicaSet) {
  ASSERT_TRUE(cluster_.ReplicaSets().Create(MakeReplicaSet("q", 0)).ok());
  cluster_.Drain();
  auto& queue = controller_.QueueForTest();
  while (queue.Len() > 0) {
    auto key = queue.Get();
    queue.Done(*key);
  }
  // An orphan matching the selector: its ReplicaSet may adopt it.
  Pod orphan;
  orphan.metadata.name = "o";
  orphan.metadata.namespace_ = "ns";
  orphan.metadata.labels = {{"app", "q"}};
  ASSERT_TRUE(cluster_.Pods().Create(orphan).ok());
  // A pod of another app: nobody's business.
  orphan.metadata.name = "x";
  orphan.metadata.labels = {{"app", "other"}};
  ASSERT_TRUE(cluster_.Pods().Create(orphan).ok());
  cluster_.Drain();
  ASSERT_EQ(queue.Len(), 1);
  EXPECT_EQ(*queue.Get(), "ns/q");
}

}  // namespace
}  // namespace svcplane::controllers::replicaset
