#include "apiserver/authorization/reconcile.h"

#include <algorithm>

#include "apiserver/authorization/bootstrap_policy.h"
#include "apiserver/authorization/escalation.h"

namespace svcplane::apiserver::authorization {

using api::rbac::v1::ClusterRole;
using api::rbac::v1::ClusterRoleBinding;

namespace {

bool Protected(const api::meta::ObjectMeta& meta) {
  auto it = meta.annotations.find(kAutoUpdateAnnotation);
  return it != meta.annotations.end() && it->second == "false";
}

// Adds the keys of `expected` that `into` lacks; returns whether it added any.
bool MergeMissing(const api::meta::StringMap& expected, api::meta::StringMap& into) {
  bool changed = false;
  for (const auto& [k, v] : expected) {
    if (into.find(k) == into.end()) {
      into[k] = v;
      changed = true;
    }
  }
  return changed;
}

bool MergeMeta(const api::meta::ObjectMeta& expected, api::meta::ObjectMeta& into) {
  bool a = MergeMissing(expected.annotations, into.annotations);
  bool l = MergeMissing(expected.labels, into.labels);
  return a || l;
}

}  // namespace

Reconciled<ClusterRole> ReconcileClusterRole(const ClusterRole* existing,
                                             const ClusterRole& bootstrap) {
  Reconciled<ClusterRole> out;
  if (existing == nullptr) {
    out.action = ReconcileAction::kCreate;
    out.object = bootstrap;
    return out;
  }
  if (Protected(existing->metadata)) return out;
  ClusterRole role = *existing;
  bool changed = MergeMeta(bootstrap.metadata, role.metadata);

  Coverage missing = Covers(existing->rules, bootstrap.rules);
  if (!missing.covered) {
    role.rules.insert(role.rules.end(), missing.missing.begin(), missing.missing.end());
    changed = true;
  }

  if (!bootstrap.aggregation_rule && existing->aggregation_rule) {
    role.aggregation_rule.reset();
    changed = true;
  } else if (bootstrap.aggregation_rule) {
    for (const auto& selector : bootstrap.aggregation_rule->cluster_role_selectors) {
      const auto* have = existing->aggregation_rule
                             ? &existing->aggregation_rule->cluster_role_selectors
                             : nullptr;
      if (have && std::find(have->begin(), have->end(), selector) != have->end()) continue;
      if (!role.aggregation_rule) role.aggregation_rule.emplace();
      role.aggregation_rule->cluster_role_selectors.push_back(selector);
      changed = true;
    }
  }
  if (changed) {
    out.action = ReconcileAction::kUpdate;
    out.object = std::move(role);
  }
  return out;
}

Reconciled<ClusterRoleBinding> ReconcileClusterRoleBinding(const ClusterRoleBinding* existing,
                                                           const ClusterRoleBinding& bootstrap) {
  Reconciled<ClusterRoleBinding> out;
  if (existing == nullptr) {
    out.action = ReconcileAction::kCreate;
    out.object = bootstrap;
    return out;
  }
  if (Protected(existing->metadata)) return out;
  auto same_ref = [](const auto& a, const auto& b) {
    return a.api_group == b.api_group && a.kind == b.kind && a.name == b.name;
  };
  if (!same_ref(existing->role_ref, bootstrap.role_ref)) {
    out.action = ReconcileAction::kRecreate;
    out.object = bootstrap;
    return out;
  }
  ClusterRoleBinding binding = *existing;
  bool changed = MergeMeta(bootstrap.metadata, binding.metadata);
  auto same_subject = [](const auto& a, const auto& b) {
    return a.kind == b.kind && a.api_group == b.api_group && a.name == b.name && a.ns == b.ns;
  };
  for (const auto& s : bootstrap.subjects) {
    bool present = std::any_of(existing->subjects.begin(), existing->subjects.end(),
                               [&](const auto& e) { return same_subject(e, s); });
    if (!present) {
      binding.subjects.push_back(s);
      changed = true;
    }
  }
  if (changed) {
    out.action = ReconcileAction::kUpdate;
    out.object = std::move(binding);
  }
  return out;
}

}  // namespace svcplane::apiserver::authorization
