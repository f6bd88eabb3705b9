#pragma once

// The pure half of the ClusterRole aggregation controller (upstream kube-controller-manager's
// clusterrole-aggregation-controller, pkg/controller/clusterroleaggregation): which rules a
// ClusterRole with an aggregationRule should hold, given every ClusterRole. No I/O; the
// controller lists, calls this and writes the result when it differs.

#include <span>
#include <vector>

#include "api/rbac/v1/rbac.h"
#include "base/result.h"

namespace svcplane::controllers::clusterroleaggregation {

// For each selector of role.aggregation_rule in order: the ClusterRoles of `all` it matches,
// sorted by name, skipping `role` itself; each of their rules appended unless an equal rule is
// already there. A selector that does not convert (e.g. a bad operator) is an error, as
// upstream's sync fails then. `role` must have an aggregationRule.
Result<std::vector<api::rbac::v1::PolicyRule>> AggregatedRules(
    const api::rbac::v1::ClusterRole& role, std::span<const api::rbac::v1::ClusterRole* const> all);

// Upstream's equality.Semantic.DeepEqual on []PolicyRule, which is what decides whether to
// write: element-wise equal (nil and empty lists are the same).
bool SameRules(const std::vector<api::rbac::v1::PolicyRule>& a,
               const std::vector<api::rbac::v1::PolicyRule>& b);

}  // namespace svcplane::controllers::clusterroleaggregation
