#include "controllers/clusterroleaggregation/aggregation.h"

#include <algorithm>

#include "api/selectors/label_selector.h"

namespace svcplane::controllers::clusterroleaggregation {

using api::rbac::v1::ClusterRole;
using api::rbac::v1::PolicyRule;

Result<std::vector<PolicyRule>> AggregatedRules(const ClusterRole& role,
                                                std::span<const ClusterRole* const> all) {
  std::vector<PolicyRule> rules;
  if (!role.aggregation_rule) return rules;
  for (const auto& spec : role.aggregation_rule->cluster_role_selectors) {
    auto selector = api::selectors::SelectorFromSpec(&spec);
    if (!selector.ok()) return selector.status();
    std::vector<const ClusterRole*> matched;
    for (const ClusterRole* cr : all) {
      if (selector->Matches(cr->metadata.labels)) matched.push_back(cr);
    }
    std::sort(matched.begin(), matched.end(), [](const ClusterRole* a, const ClusterRole* b) {
      return a->metadata.name < b->metadata.name;
    });
    for (const ClusterRole* cr : matched) {
      if (cr->metadata.name == role.metadata.name) continue;
      for (const PolicyRule& rule : cr->rules) {
        if (std::find(rules.begin(), rules.end(), rule) == rules.end()) rules.push_back(rule);
      }
    }
  }
  return rules;
}

bool SameRules(const std::vector<PolicyRule>& a, const std::vector<PolicyRule>& b) {
  return a == b;
}

}  // namespace svcplane::controllers::clusterroleaggregation
