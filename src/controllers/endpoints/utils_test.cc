#include "controllers/endpoints/utils.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/endpointslice/testing/fixtures.h"
#include "controllers/endpointslice/trigger_time_tracker.h"

namespace svcplane::controllers::endpoints {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

EndpointAddress A(std::string ip, std::string uid = "") {
  EndpointAddress a;
  a.ip = std::move(ip);
  if (!uid.empty()) {
    api::meta::ObjectReference r;
    r.kind = "Pod";
    r.uid = std::move(uid);
    a.target_ref = r;
  }
  return a;
}

EndpointPort P(int32_t port, std::string name = "") {
  EndpointPort p;
  p.name = std::move(name);
  p.port = port;
  p.protocol = "TCP";
  return p;
}

EndpointSubset S(std::vector<EndpointAddress> ready, std::vector<EndpointAddress> not_ready,
                 std::vector<EndpointPort> ports) {
  EndpointSubset s;
  s.addresses = std::move(ready);
  s.not_ready_addresses = std::move(not_ready);
  s.ports = std::move(ports);
  return s;
}

TEST(RepackSubsetsTest, MergesSamePortsAndSortsAddresses) {
  auto out = RepackSubsets({S({A("1.0.0.2")}, {}, {P(80)}), S({A("1.0.0.1")}, {}, {P(80)})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].addresses, ElementsAre(A("1.0.0.1"), A("1.0.0.2")));
  EXPECT_THAT(out[0].ports, ElementsAre(P(80)));
}

TEST(RepackSubsetsTest, GroupsPortsWithIdenticalAddressSets) {
  auto out =
      RepackSubsets({S({A("1.0.0.1")}, {}, {P(81, "b")}), S({A("1.0.0.1")}, {}, {P(80, "a")}),
                     S({A("1.0.0.2")}, {}, {P(90, "c")})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(out[0].ports, ElementsAre(P(80, "a"), P(81, "b")));
  EXPECT_THAT(out[0].addresses, ElementsAre(A("1.0.0.1")));
  EXPECT_THAT(out[1].ports, ElementsAre(P(90, "c")));
}

TEST(RepackSubsetsTest, NotReadyWinsAndDedupsByIpAndUid) {
  auto out =
      RepackSubsets({S({A("1.0.0.1", "u1")}, {}, {P(80)}), S({}, {A("1.0.0.1", "u1")}, {P(80)}),
                     S({A("1.0.0.1", "u1")}, {}, {P(80)}),
                     // Same IP, other pod: a different address.
                     S({A("1.0.0.1", "u2")}, {}, {P(80)})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].addresses, ElementsAre(A("1.0.0.1", "u2")));
  EXPECT_THAT(out[0].not_ready_addresses, ElementsAre(A("1.0.0.1", "u1")));
}

TEST(RepackSubsetsTest, NilTargetRefSortsFirstAndPortlessSubsetsSurvive) {
  auto out = RepackSubsets({S({A("1.0.0.1", "z")}, {}, {}), S({A("1.0.0.1")}, {}, {})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].addresses, ElementsAre(A("1.0.0.1"), A("1.0.0.1", "z")));
  EXPECT_THAT(out[0].ports, IsEmpty());
}

TEST(RepackSubsetsTest, PortsWithoutAddressesVanish) {
  EXPECT_THAT(RepackSubsets({S({}, {}, {P(80)})}), IsEmpty());
}

// Scenario 30.
TEST(SubsetsEqualTest, IgnoresResourceVersionAndOrderOnly) {
  std::vector<EndpointSubset> base = {
      S({A("1.0.0.1", "u"), A("1.0.0.2", "v")}, {A("2.0.0.1")}, {P(80)}),
      S({A("3.0.0.1")}, {}, {P(90)})};
  auto rv = base;
  rv[0].addresses[0].target_ref->resource_version = "7";
  EXPECT_TRUE(SubsetsEqualIgnoreResourceVersion(base, rv));
  auto reordered = base;
  std::swap(reordered[0], reordered[1]);
  std::swap(reordered[1].addresses[0], reordered[1].addresses[1]);
  EXPECT_TRUE(SubsetsEqualIgnoreResourceVersion(base, reordered));

  auto removed = base;
  removed.pop_back();
  EXPECT_FALSE(SubsetsEqualIgnoreResourceVersion(base, removed));
  auto ip = base;
  ip[0].addresses[1].ip = "1.0.0.9";
  EXPECT_FALSE(SubsetsEqualIgnoreResourceVersion(base, ip));
  auto not_ready_ip = base;
  not_ready_ip[0].not_ready_addresses[0].ip = "2.0.0.9";
  EXPECT_FALSE(SubsetsEqualIgnoreResourceVersion(base, not_ready_ip));
  auto port = base;
  port[1].ports[0].port = 91;
  EXPECT_FALSE(SubsetsEqualIgnoreResourceVersion(base, port));
  EXPECT_TRUE(SubsetsEqualIgnoreResourceVersion({}, {}));
}

std::vector<EndpointSubset> Sized(const std::vector<int>& ready,
                                  const std::vector<int>& not_ready) {
  std::vector<EndpointSubset> out;
  int ip = 0;
  for (size_t i = 0; i < ready.size(); ++i) {
    EndpointSubset s;
    for (int k = 0; k < ready[i]; ++k) s.addresses.push_back(A("10.0.0." + std::to_string(++ip)));
    for (int k = 0; k < not_ready[i]; ++k) {
      s.not_ready_addresses.push_back(A("10.0.1." + std::to_string(++ip)));
    }
    s.ports.push_back(P(static_cast<int32_t>(i + 1)));
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<int> Counts(const std::vector<EndpointSubset>& subsets, bool ready) {
  std::vector<int> out;
  for (const auto& s : subsets) {
    out.push_back(static_cast<int>(ready ? s.addresses.size() : s.not_ready_addresses.size()));
  }
  return out;
}

// Scenarios 23 and 24.
TEST(TruncateTest, UpstreamProportions) {
  auto a = Sized({90, 110, 50, 10, 20}, {101, 200, 200, 201, 298});
  EXPECT_TRUE(TruncateSubsets(&a));
  EXPECT_THAT(Counts(a, true), ElementsAre(90, 110, 50, 10, 20));
  EXPECT_THAT(Counts(a, false), ElementsAre(73, 144, 144, 145, 214));

  auto b = Sized({205, 400, 402, 400, 693}, {100, 200, 200, 200, 300});
  EXPECT_TRUE(TruncateSubsets(&b));
  EXPECT_THAT(Counts(b, true), ElementsAre(98, 191, 192, 191, 328));
  EXPECT_THAT(Counts(b, false), ElementsAre(0, 0, 0, 0, 0));

  auto c = Sized({500, 500}, {0, 0});
  EXPECT_FALSE(TruncateSubsets(&c));
  // The first addresses (in sorted order) are kept.
  auto d = Sized({1001}, {0});
  EXPECT_TRUE(TruncateSubsets(&d));
  EXPECT_EQ(d[0].addresses.size(), 1000u);
  EXPECT_EQ(d[0].addresses[0].ip, "10.0.0.1");
}

// Scenario 31 at the tracker level.
TEST(TriggerTimeTrackerTest, FirstSyncThenEarliestNewChange) {
  endpointslice::TriggerTimeTracker t;
  Service svc = endpointslice::testing::MakeService();
  svc.metadata.creation_timestamp = api::meta::Time::FromUnix(100);
  auto pod = [](int i, int64_t t) {
    Pod p = endpointslice::testing::MakePod(i);
    p.status.conditions[0].last_transition_time = api::meta::Time::FromUnix(t);
    return std::make_shared<const Pod>(p);
  };
  constexpr int64_t kS = 1000000000;
  EXPECT_EQ(t.Compute("ns/svc", svc, {pod(1, 150)}), 100 * kS);
  EXPECT_EQ(t.Compute("ns/svc", svc, {pod(1, 150)}), std::nullopt);
  EXPECT_EQ(t.Compute("ns/svc", svc, {pod(1, 300), pod(2, 200)}), 200 * kS);
  EXPECT_EQ(t.Compute("ns/svc", svc, {pod(1, 300), pod(2, 200)}), std::nullopt);
  // A pod without a Ready condition has the zero time: never a candidate.
  Pod bare = endpointslice::testing::MakePod(3);
  bare.status.conditions.clear();
  EXPECT_EQ(t.Compute("ns/svc", svc, {std::make_shared<const Pod>(bare)}), std::nullopt);
  t.Delete("ns/svc");
  EXPECT_EQ(t.Compute("ns/svc", svc, {}), 100 * kS);
}

TEST(SelectorTest, AllKeysMustMatch) {
  EXPECT_TRUE(SelectorMatches({}, {{"a", "b"}}));
  EXPECT_TRUE(SelectorMatches({{"a", "b"}}, {{"a", "b"}, {"c", "d"}}));
  EXPECT_FALSE(SelectorMatches({{"a", "b"}, {"c", "x"}}, {{"a", "b"}, {"c", "d"}}));
  EXPECT_FALSE(SelectorMatches({{"a", "b"}}, {}));
}

}  // namespace
}  // namespace svcplane::controllers::endpoints
