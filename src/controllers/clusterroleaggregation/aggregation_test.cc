#include "controllers/clusterroleaggregation/aggregation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace svcplane::controllers::clusterroleaggregation {
namespace {

using api::rbac::v1::AggregationRule;
using api::rbac::v1::ClusterRole;
using api::rbac::v1::PolicyRule;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

PolicyRule Rule(std::string verb, std::string resource) {
  PolicyRule r;
  r.verbs = {std::move(verb)};
  r.api_groups = {""};
  r.resources = {std::move(resource)};
  return r;
}

ClusterRole Role(std::string name, api::meta::StringMap labels, std::vector<PolicyRule> rules) {
  ClusterRole cr;
  cr.metadata.name = std::move(name);
  cr.metadata.labels = std::move(labels);
  cr.rules = std::move(rules);
  return cr;
}

ClusterRole Aggregating(std::string name, std::vector<std::string> label_keys) {
  ClusterRole cr;
  cr.metadata.name = std::move(name);
  cr.aggregation_rule.emplace();
  for (auto& key : label_keys) {
    api::selectors::LabelSelectorSpec sel;
    sel.match_labels[key] = "true";
    cr.aggregation_rule->cluster_role_selectors.push_back(sel);
  }
  return cr;
}

TEST(AggregatedRulesTest, SortedByNameDeduplicatedSkippingItself) {
  ClusterRole view = Aggregating("view", {"agg-view"});
  view.metadata.labels["agg-view"] = "true";    // matches its own selector: skipped
  view.rules = {Rule("delete", "everything")};  // stomped
  ClusterRole b = Role("b-leases", {{"agg-view", "true"}}, {Rule("get", "leases")});
  ClusterRole a =
      Role("a-pods", {{"agg-view", "true"}}, {Rule("get", "pods"), Rule("get", "leases")});
  ClusterRole other = Role("other", {{"agg-edit", "true"}}, {Rule("get", "secrets")});
  std::vector<const ClusterRole*> all = {&view, &b, &a, &other};
  auto rules = AggregatedRules(view, all);
  ASSERT_TRUE(rules.ok());
  EXPECT_THAT(*rules, ElementsAre(Rule("get", "pods"), Rule("get", "leases")));
  EXPECT_FALSE(SameRules(*rules, view.rules));
}

TEST(AggregatedRulesTest, SelectorsInOrderAndChains) {
  // edit aggregates view (itself aggregated) and its own label, in selector order.
  ClusterRole edit = Aggregating("edit", {"agg-edit", "agg-extra"});
  ClusterRole view = Role("view", {{"agg-edit", "true"}}, {Rule("get", "pods")});
  ClusterRole extra = Role("extra", {{"agg-extra", "true"}}, {Rule("create", "pods")});
  std::vector<const ClusterRole*> all = {&extra, &view, &edit};
  auto rules = AggregatedRules(edit, all);
  ASSERT_TRUE(rules.ok());
  EXPECT_THAT(*rules, ElementsAre(Rule("get", "pods"), Rule("create", "pods")));
}

TEST(AggregatedRulesTest, NothingMatchesGivesNoRulesAndNoWrite) {
  ClusterRole agg = Aggregating("agg", {"team"});
  std::vector<const ClusterRole*> all = {&agg};
  auto rules = AggregatedRules(agg, all);
  ASSERT_TRUE(rules.ok());
  EXPECT_THAT(*rules, IsEmpty());
  EXPECT_TRUE(SameRules(*rules, agg.rules));  // `rules: null` stays as it is
}

TEST(AggregatedRulesTest, BadSelectorIsAnError) {
  ClusterRole agg = Aggregating("agg", {});
  api::selectors::LabelSelectorSpec sel;
  sel.match_expressions.push_back({"k", "Sometimes", {"v"}});
  agg.aggregation_rule->cluster_role_selectors.push_back(sel);
  std::vector<const ClusterRole*> all = {&agg};
  EXPECT_FALSE(AggregatedRules(agg, all).ok());
}

}  // namespace
}  // namespace svcplane::controllers::clusterroleaggregation
