// The controller over a real in-process API (registries on a memory store): it writes the
// aggregated rules, follows label changes and deletions, and leaves roles without an
// aggregationRule alone.
#include "controllers/clusterroleaggregation/controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "apiserver/loopback/testing/memory_clientset.h"

namespace svcplane::controllers::clusterroleaggregation {
namespace {

using api::rbac::v1::ClusterRole;
using api::rbac::v1::PolicyRule;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

PolicyRule Rule(std::string verb, std::string group, std::string resource) {
  PolicyRule r;
  r.verbs = {std::move(verb)};
  r.api_groups = {std::move(group)};
  r.resources = {std::move(resource)};
  return r;
}

ClusterRole Aggregating(std::string name, std::string label) {
  ClusterRole cr;
  cr.metadata.name = std::move(name);
  cr.aggregation_rule.emplace();
  api::selectors::LabelSelectorSpec sel;
  sel.match_labels[label] = "true";
  cr.aggregation_rule->cluster_role_selectors.push_back(sel);
  return cr;
}

class ControllerTest : public ::testing::Test {
 protected:
  client::ResourceClient<ClusterRole>& roles() { return api_.clients().ClusterRoles(); }
  std::vector<PolicyRule> RulesOf(std::string_view name) {
    auto got = roles().Get("", name);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? (*got)->rules : std::vector<PolicyRule>{};
  }

  apiserver::loopback::testing::MemoryClientset api_;
  AggregationController controller_{roles(), RealClock::Get()};
};

TEST_F(ControllerTest, SyncAllWritesAggregatedRules) {
  ASSERT_TRUE(roles().Create(Aggregating("view", "aggregate-to-view")).ok());
  ClusterRole leases;
  leases.metadata.name = "lease-view";
  leases.metadata.labels["aggregate-to-view"] = "true";
  leases.rules = {Rule("get", "coordination.k8s.io", "leases")};
  ASSERT_TRUE(roles().Create(leases).ok());
  ClusterRole plain;
  plain.metadata.name = "plain";
  plain.rules = {Rule("get", "", "pods")};
  ASSERT_TRUE(roles().Create(plain).ok());

  ASSERT_TRUE(controller_.SyncAll().ok());
  EXPECT_THAT(RulesOf("view"), ElementsAre(Rule("get", "coordination.k8s.io", "leases")));
  EXPECT_THAT(RulesOf("plain"), ElementsAre(Rule("get", "", "pods")));
  auto before = roles().Get("", "view");
  ASSERT_TRUE(before.ok());
  // Nothing changed: no write.
  ASSERT_TRUE(controller_.SyncAll().ok());
  EXPECT_EQ((*roles().Get("", "view"))->metadata.resource_version,
            (*before)->metadata.resource_version);

  ASSERT_TRUE(roles().Delete("", "lease-view").ok());
  ASSERT_TRUE(controller_.SyncAll().ok());
  EXPECT_THAT(RulesOf("view"), IsEmpty());
}

TEST_F(ControllerTest, RunningControllerFollowsLabels) {
  ASSERT_TRUE(roles().Create(Aggregating("view", "aggregate-to-view")).ok());
  std::jthread watch([this](std::stop_token s) { controller_.Watch(s); });
  std::jthread work([this](std::stop_token s) { controller_.Work(s); });

  ClusterRole leases;
  leases.metadata.name = "lease-view";
  leases.rules = {Rule("get", "coordination.k8s.io", "leases")};
  ASSERT_TRUE(roles().Create(leases).ok());
  auto labelled = roles().Patch("", "lease-view", client::PatchType::kMerge,
                                R"({"metadata":{"labels":{"aggregate-to-view":"true"}}})");
  ASSERT_TRUE(labelled.ok()) << labelled.status().ToString();

  auto wait_for = [&](size_t n) {
    for (int i = 0; i < 500 && RulesOf("view").size() != n; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return RulesOf("view").size();
  };
  EXPECT_EQ(wait_for(1), 1u);
  ASSERT_TRUE(roles().Delete("", "lease-view").ok());
  EXPECT_EQ(wait_for(0), 0u);
  watch.request_stop();
  work.request_stop();
}

}  // namespace
}  // namespace svcplane::controllers::clusterroleaggregation
