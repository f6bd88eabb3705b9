#include "sim/pod_timing.h"

#include <gtest/gtest.h>

#include <set>

namespace svcplane::sim {
namespace {

namespace core = api::core::v1;
using std::chrono::milliseconds;
using std::chrono::seconds;

core::Pod MakePod(std::string uid = "uid-1") {
  core::Pod p;
  p.metadata.name = "web-1";
  p.metadata.namespace_ = "default";
  p.metadata.uid = std::move(uid);
  return p;
}

TEST(ReadyAfterTest, ParsesDurationsAndNever) {
  auto two = ParseReadyAfter("2s");
  ASSERT_TRUE(two.ok());
  EXPECT_FALSE(two->never);
  EXPECT_EQ(two->delay, seconds(2));
  auto half = ParseReadyAfter("500ms");
  ASSERT_TRUE(half.ok());
  EXPECT_EQ(half->delay, milliseconds(500));
  EXPECT_EQ(ParseReadyAfter("1m30s")->delay, seconds(90));
  EXPECT_EQ(ParseReadyAfter("0")->delay, Duration::zero());
  auto never = ParseReadyAfter("never");
  ASSERT_TRUE(never.ok());
  EXPECT_TRUE(never->never);
}

TEST(ReadyAfterTest, InvalidValuesAreInvalidWithTheReason) {
  for (const char* bad : {"", "soon", "2", "3d", "Never", "-1s"}) {
    auto r = ParseReadyAfter(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), Code::kInvalid) << bad;
    EXPECT_EQ(r.status().message().rfind("sim.svcplane.io/ready-after: ", 0), 0u)
        << r.status().message();
  }
  EXPECT_EQ(ParseReadyAfter("2").status().message(),
            "sim.svcplane.io/ready-after: time: missing unit in duration \"2\" (want a duration "
            "such as 2s or 500ms, or never)");
  EXPECT_EQ(ParseReadyAfter("-1s").status().message(),
            "sim.svcplane.io/ready-after: negative duration \"-1s\"");
}

TEST(PlanReadyTest, AnnotationOverridesTheDelayOrKeepsThePodNotReady) {
  SimOptions opts;
  opts.pod_ready_delay = milliseconds(700);
  core::Pod p = MakePod();
  std::string invalid;
  ReadyPlan plan = PlanReady(opts, p, &invalid);
  EXPECT_EQ(plan.delay, milliseconds(700));
  EXPECT_TRUE(plan.ready);
  EXPECT_EQ(invalid, "");

  p.metadata.annotations[kReadyAfterAnnotation] = "2s";
  plan = PlanReady(opts, p, &invalid);
  EXPECT_EQ(plan.delay, seconds(2));
  EXPECT_TRUE(plan.ready);

  p.metadata.annotations[kReadyAfterAnnotation] = "never";
  plan = PlanReady(opts, p, &invalid);
  EXPECT_FALSE(plan.ready);
  EXPECT_EQ(plan.delay, milliseconds(700));  // its containers still start on time
  EXPECT_EQ(invalid, "");
}

TEST(PlanReadyTest, InvalidAnnotationFallsBackToTheDefaultAndSaysWhy) {
  SimOptions opts;
  opts.pod_ready_delay = milliseconds(700);
  core::Pod p = MakePod();
  p.metadata.annotations[kReadyAfterAnnotation] = "tomorrow";
  std::string invalid;
  ReadyPlan plan = PlanReady(opts, p, &invalid);
  EXPECT_EQ(plan.delay, milliseconds(700));
  EXPECT_TRUE(plan.ready);
  EXPECT_EQ(invalid,
            "sim.svcplane.io/ready-after: time: invalid duration \"tomorrow\" (want a duration "
            "such as 2s or 500ms, or never)");
}

TEST(JitterTest, NoJitterIsExactlyTheBase) {
  EXPECT_EQ(JitteredDelay(seconds(1), Duration::zero(), "uid-1", PodStage::kCreate), seconds(1));
  SimOptions opts;  // defaults: no jitter
  EXPECT_EQ(CreateDelay(opts, MakePod()), opts.pod_create_delay);
  EXPECT_EQ(PlanReady(opts, MakePod()).delay, opts.pod_ready_delay);
}

TEST(JitterTest, StaysInRangeIsStablePerPodAndSpreadsOverPods) {
  const Duration base = seconds(1), jitter = seconds(5);
  std::set<int64_t> tenths;  // which tenth of the jitter range each Pod landed in
  for (int i = 0; i < 1000; ++i) {
    const std::string uid = "0c5e2f7a-1b2c-4d5e-8f90-" + std::to_string(100000 + i);
    const Duration d = JitteredDelay(base, jitter, uid, PodStage::kCreate);
    ASSERT_GE(d, base) << uid;
    ASSERT_LT(d, base + jitter) << uid;
    EXPECT_EQ(d, JitteredDelay(base, jitter, uid, PodStage::kCreate)) << "stable";
    tenths.insert((d - base) * 10 / jitter);
  }
  EXPECT_EQ(tenths.size(), 10u);
  // The stages of one Pod draw independently.
  EXPECT_NE(JitteredDelay(base, jitter, "uid-1", PodStage::kCreate),
            JitteredDelay(base, jitter, "uid-1", PodStage::kReady));
}

TEST(TerminateDelayTest, NeverPastTheEndOfTheGracePeriod) {
  SimOptions opts;
  opts.pod_terminate_delay = seconds(5);
  const WallTime now = WallTime{} + seconds(1700000000);
  core::Pod p = MakePod();
  // Not (yet) terminating: the configured delay.
  EXPECT_EQ(TerminateDelay(opts, p, now), seconds(5));
  // 30 s of grace left: the configured delay.
  p.metadata.deletion_timestamp = api::meta::Time::FromUnix(1700000000 + 30);
  EXPECT_EQ(TerminateDelay(opts, p, now), seconds(5));
  // 2 s left: 2 s.
  p.metadata.deletion_timestamp = api::meta::Time::FromUnix(1700000000 + 2);
  EXPECT_EQ(TerminateDelay(opts, p, now), seconds(2));
  EXPECT_EQ(TerminateDelay(opts, p, now + milliseconds(1500)), milliseconds(500));
  // Already past: at once.
  EXPECT_EQ(TerminateDelay(opts, p, now + seconds(3)), Duration::zero());
  // Jitter is capped the same way.
  opts.pod_terminate_delay = seconds(1);
  opts.pod_terminate_jitter = seconds(60);
  p.metadata.deletion_timestamp = api::meta::Time::FromUnix(1700000000 + 10);
  for (int i = 0; i < 100; ++i) {
    p.metadata.uid = "uid-" + std::to_string(i);
    const Duration d = TerminateDelay(opts, p, now);
    EXPECT_GE(d, seconds(1));
    EXPECT_LE(d, seconds(10));
  }
}

}  // namespace
}  // namespace svcplane::sim
