#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/meta/types.h"
#include "api/selectors/label_selector.h"

// rbac.authorization.k8s.io/v1 (k8s.io/api/rbac/v1/types.go). Field numbers are upstream's
// generated.proto. Upstream's non-omitempty slices (`rules`, `verbs`) are served `null` when
// empty (kNullWhenEmpty): every object kube-apiserver returns went through protobuf in etcd,
// where empty and nil are one, so a ClusterRole created with only an aggregationRule shows
// `rules: null` in `kubectl get -o yaml`. A plain vector keeps the model simple for the
// authorizer and the controllers; nothing distinguishes nil from empty on the server.
namespace svcplane::api::rbac::v1 {

using meta::F;
using meta::kAlways;
using meta::kNullWhenEmpty;
using meta::kOmitEmpty;
using meta::Tag;

inline constexpr std::string_view kGroupName = "rbac.authorization.k8s.io";

struct PolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
  std::vector<std::string> non_resource_urls;
  meta::UnknownFields unknown;
  bool operator==(const PolicyRule&) const = default;
};
constexpr auto FieldsOf(Tag<PolicyRule>) {
  using T = PolicyRule;
  return std::make_tuple(F("verbs", &T::verbs, kNullWhenEmpty, 1),
                         F("apiGroups", &T::api_groups, kOmitEmpty, 2),
                         F("resources", &T::resources, kOmitEmpty, 3),
                         F("resourceNames", &T::resource_names, kOmitEmpty, 4),
                         F("nonResourceURLs", &T::non_resource_urls, kOmitEmpty, 5));
}

// Subject kinds.
inline constexpr std::string_view kUserKind = "User";
inline constexpr std::string_view kGroupKind = "Group";
inline constexpr std::string_view kServiceAccountKind = "ServiceAccount";

struct Subject {
  std::string kind;
  std::string api_group;  // defaulted: rbac group for User/Group, "" for ServiceAccount
  std::string name;
  std::string ns;  // ServiceAccount only
  meta::UnknownFields unknown;
  bool operator==(const Subject&) const = default;
};
constexpr auto FieldsOf(Tag<Subject>) {
  using T = Subject;
  return std::make_tuple(F("kind", &T::kind, kAlways, 1),
                         F("apiGroup", &T::api_group, kOmitEmpty, 2),
                         F("name", &T::name, kAlways, 3), F("namespace", &T::ns, kOmitEmpty, 4));
}

struct RoleRef {
  std::string api_group;
  std::string kind;  // Role | ClusterRole
  std::string name;
  meta::UnknownFields unknown;
  bool operator==(const RoleRef&) const = default;
};
constexpr auto FieldsOf(Tag<RoleRef>) {
  using T = RoleRef;
  return std::make_tuple(F("apiGroup", &T::api_group, kAlways, 1), F("kind", &T::kind, kAlways, 2),
                         F("name", &T::name, kAlways, 3));
}

struct Role {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  std::vector<PolicyRule> rules;
  meta::UnknownFields unknown;
  bool operator==(const Role&) const = default;
};
constexpr auto FieldsOf(Tag<Role>) {
  using T = Role;
  return std::make_tuple(F("kind", &T::kind), F("apiVersion", &T::api_version),
                         F("metadata", &T::metadata, kAlways, 1),
                         F("rules", &T::rules, kNullWhenEmpty, 2));
}

struct RoleBinding {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  std::vector<Subject> subjects;
  RoleRef role_ref;
  meta::UnknownFields unknown;
  bool operator==(const RoleBinding&) const = default;
};
constexpr auto FieldsOf(Tag<RoleBinding>) {
  using T = RoleBinding;
  return std::make_tuple(F("kind", &T::kind), F("apiVersion", &T::api_version),
                         F("metadata", &T::metadata, kAlways, 1),
                         F("subjects", &T::subjects, kOmitEmpty, 2),
                         F("roleRef", &T::role_ref, kAlways, 3));
}

struct AggregationRule {
  std::vector<selectors::LabelSelectorSpec> cluster_role_selectors;
  meta::UnknownFields unknown;
  bool operator==(const AggregationRule&) const = default;
};
constexpr auto FieldsOf(Tag<AggregationRule>) {
  using T = AggregationRule;
  return std::make_tuple(F("clusterRoleSelectors", &T::cluster_role_selectors, kOmitEmpty, 1));
}

struct ClusterRole {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  std::vector<PolicyRule> rules;
  std::optional<AggregationRule> aggregation_rule;
  meta::UnknownFields unknown;
  bool operator==(const ClusterRole&) const = default;
};
constexpr auto FieldsOf(Tag<ClusterRole>) {
  using T = ClusterRole;
  return std::make_tuple(F("kind", &T::kind), F("apiVersion", &T::api_version),
                         F("metadata", &T::metadata, kAlways, 1),
                         F("rules", &T::rules, kNullWhenEmpty, 2),
                         F("aggregationRule", &T::aggregation_rule, kOmitEmpty, 3));
}

struct ClusterRoleBinding {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  std::vector<Subject> subjects;
  RoleRef role_ref;
  meta::UnknownFields unknown;
  bool operator==(const ClusterRoleBinding&) const = default;
};
constexpr auto FieldsOf(Tag<ClusterRoleBinding>) {
  using T = ClusterRoleBinding;
  return std::make_tuple(F("kind", &T::kind), F("apiVersion", &T::api_version),
                         F("metadata", &T::metadata, kAlways, 1),
                         F("subjects", &T::subjects, kOmitEmpty, 2),
                         F("roleRef", &T::role_ref, kAlways, 3));
}

}  // namespace svcplane::api::rbac::v1
