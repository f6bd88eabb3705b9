// Beyond upstream: the opt-in rebalancing mode (ReconcilerOptions::rebalance).

#include <gtest/gtest.h>

#include <random>

#include "controllers/endpointslice/reconciler.h"
#include "controllers/endpointslice/testing/reconciler_harness.h"
#include "controllers/endpointslice/testing/rolling_update.h"

namespace svcplane::controllers::endpointslice {
namespace {

using testing::Harness;
using testing::RollingUpdate;

ReconcilerOptions Rebalancing(int budget = 10) {
  ReconcilerOptions o;
  o.rebalance = true;
  o.rebalance_max_extra_writes = budget;
  return o;
}

std::multiset<std::string> DesiredKeys(Harness& h) {
  std::multiset<std::string> want;
  for (const auto& p : h.pods()) {
    want.insert(EndpointKey(*PodToEndpoint(*p, h.service(), "IPv4", "", "")));
  }
  return want;
}

void SeedFragmented(Harness& h) {
  h.AddPods(0, 300);
  for (int i = 0; i < 10; ++i) h.SeedSlice(i * 30, i * 30 + 30, "frag-" + std::to_string(i));
}

TEST(Rebalance, DefaultModeLeavesFragmentsAlone) {
  Harness h(ReconcilerOptions{});
  SeedFragmented(h);
  EXPECT_EQ(h.Sync().Writes(), 0);
  EXPECT_EQ(h.ServiceSlices().size(), 10u);
}

TEST(Rebalance, CompactsWithinBudgetPerSync) {
  Harness h(Rebalancing(/*budget=*/4));
  SeedFragmented(h);
  const auto want = DesiredKeys(h);
  int syncs = 0;
  while (h.ServiceSlices().size() > 3 && syncs < 20) {
    SlicePlan plan = h.Sync();
    ASSERT_TRUE(h.status().ok()) << h.status().ToString();
    ++syncs;
    EXPECT_LE(plan.Writes(), 4) << "sync " << syncs;  // default mode would write nothing
    EXPECT_GT(plan.Writes(), 0) << "no progress at sync " << syncs;
    ASSERT_EQ(h.StoredKeys(), want) << "endpoint lost or duplicated at sync " << syncs;
  }
  EXPECT_EQ(h.ServiceSlices().size(), 3u);  // 300 endpoints: minimum 3, 10% slack rounds to 3
  EXPECT_EQ(h.Sync().Writes(), 0);          // converged: nothing more to do
}

TEST(Rebalance, NoExtraWritesWhenAlreadyCompact) {
  Harness h(Rebalancing());
  h.AddPods(0, 250);
  h.Sync();
  EXPECT_EQ(h.ServiceSlices().size(), 3u);
  EXPECT_EQ(h.Sync().Writes(), 0);
  // A one-pod change still costs exactly one write.
  h.ReplacePod(7, testing::MakePod(7, "ns", "node-1", false));
  EXPECT_EQ(h.Sync().Writes(), 1);
}

TEST(Rebalance, SlackAllowsTenPercentMore) {
  ReconcilerOptions o = Rebalancing();
  Harness h(o);
  // 2000 endpoints in 22 slices of ~91: minimum 20, allowed 22 → nothing to do.
  h.AddPods(0, 2000);
  for (int i = 0; i < 22; ++i) {
    int from = i * 2000 / 22, to = (i + 1) * 2000 / 22;
    h.SeedSlice(from, to, "s-" + std::to_string(100 + i));
  }
  EXPECT_EQ(h.Sync().Writes(), 0);
}

TEST(Rebalance, RollingUpdateStaysNearMinimum) {
  Harness plain(ReconcilerOptions{}), rebal(Rebalancing());
  for (Harness* h : {&plain, &rebal}) {
    h->AddPods(0, 1000);
    h->Sync();
  }
  auto a = RollingUpdate(plain, 10000, 25);
  auto b = RollingUpdate(rebal, 10000, 25);
  EXPECT_LE(b.slices, 11u);  // ≤ 1.1 × ceil(1000 / 100)
  EXPECT_GT(a.slices, b.slices);
  EXPECT_EQ(rebal.StoredKeys(), DesiredKeys(rebal));
  EXPECT_EQ(plain.StoredKeys(), DesiredKeys(plain));
}

// Random churn in rebalancing mode: endpoints are never lost or duplicated, the extra writes
// over what the default mode plans for the same inputs stay within the budget, and once
// the churn stops the slice count settles within 10 % of the minimum.
TEST(Rebalance, RandomChurnKeepsInvariants) {
  Harness h(Rebalancing(/*budget=*/6));
  ReconcilerOptions plain_opts;
  plain_opts.incremental = false;
  Reconciler plain(plain_opts);
  std::mt19937 rng(11);
  h.AddPods(0, 700);
  int next = 700;
  for (int round = 0; round < 40; ++round) {
    auto& pods = h.pods();
    int removals = static_cast<int>(rng() % 60), additions = static_cast<int>(rng() % 60);
    for (int k = 0; k < removals && !pods.empty(); ++k) {
      pods.erase(pods.begin() + static_cast<long>(rng() % pods.size()));
    }
    h.AddPods(next, next + additions);
    next += additions;
    SlicePlan baseline =
        plain.Plan(testing::Share(h.service()), h.pods(), h.nodes(), h.ServiceSlices());
    SlicePlan plan = h.Sync();
    ASSERT_TRUE(h.status().ok()) << h.status().ToString();
    EXPECT_LE(plan.Writes(), baseline.Writes() + 6) << "round " << round;
    ASSERT_EQ(h.StoredKeys(), DesiredKeys(h)) << "round " << round;
  }
  for (int i = 0; i < 30 && h.Sync().Writes() > 0; ++i) {
  }
  const size_t min_slices = (h.pods().size() + 99) / 100;
  EXPECT_LE(h.ServiceSlices().size(), static_cast<size_t>(min_slices * 1.1));
  EXPECT_EQ(h.StoredKeys(), DesiredKeys(h));
}

}  // namespace
}  // namespace svcplane::controllers::endpointslice
