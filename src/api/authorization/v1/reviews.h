#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/meta/types.h"

// authorization.k8s.io/v1 SelfSubjectAccessReview (`kubectl auth can-i`) and
// SelfSubjectRulesReview (`kubectl auth can-i --list`). Never stored: the request carries the
// question, the response the authorizer's answer in status. Field numbers are upstream's
// generated.proto.
namespace svcplane::api::authorization::v1 {

using meta::F;
using meta::kAlways;
using meta::kOmitEmpty;
using meta::Tag;

inline constexpr std::string_view kGroupName = "authorization.k8s.io";

// Only the raw selector is modelled; `requirements` (field 2) is dropped on decode.
struct SelectorAttributes {
  std::string raw_selector;
  bool operator==(const SelectorAttributes&) const = default;
};
constexpr auto FieldsOf(Tag<SelectorAttributes>) {
  using T = SelectorAttributes;
  return std::make_tuple(F("rawSelector", &T::raw_selector, kOmitEmpty, 1));
}

struct ResourceAttributes {
  std::string ns;
  std::string verb;
  std::string group;
  std::string version;
  std::string resource;
  std::string subresource;
  std::string name;
  std::optional<SelectorAttributes> field_selector;
  std::optional<SelectorAttributes> label_selector;
  bool operator==(const ResourceAttributes&) const = default;
};
constexpr auto FieldsOf(Tag<ResourceAttributes>) {
  using T = ResourceAttributes;
  return std::make_tuple(
      F("namespace", &T::ns, kOmitEmpty, 1), F("verb", &T::verb, kOmitEmpty, 2),
      F("group", &T::group, kOmitEmpty, 3), F("version", &T::version, kOmitEmpty, 4),
      F("resource", &T::resource, kOmitEmpty, 5), F("subresource", &T::subresource, kOmitEmpty, 6),
      F("name", &T::name, kOmitEmpty, 7), F("fieldSelector", &T::field_selector, kOmitEmpty, 8),
      F("labelSelector", &T::label_selector, kOmitEmpty, 9));
}

struct NonResourceAttributes {
  std::string path;
  std::string verb;
  bool operator==(const NonResourceAttributes&) const = default;
};
constexpr auto FieldsOf(Tag<NonResourceAttributes>) {
  using T = NonResourceAttributes;
  return std::make_tuple(F("path", &T::path, kOmitEmpty, 1), F("verb", &T::verb, kOmitEmpty, 2));
}

struct SelfSubjectAccessReviewSpec {
  std::optional<ResourceAttributes> resource_attributes;
  std::optional<NonResourceAttributes> non_resource_attributes;
  bool operator==(const SelfSubjectAccessReviewSpec&) const = default;
};
constexpr auto FieldsOf(Tag<SelfSubjectAccessReviewSpec>) {
  using T = SelfSubjectAccessReviewSpec;
  return std::make_tuple(F("resourceAttributes", &T::resource_attributes, kOmitEmpty, 1),
                         F("nonResourceAttributes", &T::non_resource_attributes, kOmitEmpty, 2));
}

struct SubjectAccessReviewStatus {
  bool allowed = false;
  bool denied = false;
  std::string reason;
  std::string evaluation_error;
  bool operator==(const SubjectAccessReviewStatus&) const = default;
};
constexpr auto FieldsOf(Tag<SubjectAccessReviewStatus>) {
  using T = SubjectAccessReviewStatus;
  return std::make_tuple(F("allowed", &T::allowed, kAlways, 1),
                         F("denied", &T::denied, kOmitEmpty, 4),
                         F("reason", &T::reason, kOmitEmpty, 2),
                         F("evaluationError", &T::evaluation_error, kOmitEmpty, 3));
}

struct SelfSubjectAccessReview {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  SelfSubjectAccessReviewSpec spec;
  SubjectAccessReviewStatus status;
  bool operator==(const SelfSubjectAccessReview&) const = default;
};
constexpr auto FieldsOf(Tag<SelfSubjectAccessReview>) {
  using T = SelfSubjectAccessReview;
  return std::make_tuple(F("kind", &T::kind), F("apiVersion", &T::api_version),
                         F("metadata", &T::metadata, kAlways, 1), F("spec", &T::spec, kAlways, 2),
                         F("status", &T::status, kAlways, 3));
}

struct SelfSubjectRulesReviewSpec {
  std::string ns;
  bool operator==(const SelfSubjectRulesReviewSpec&) const = default;
};
constexpr auto FieldsOf(Tag<SelfSubjectRulesReviewSpec>) {
  using T = SelfSubjectRulesReviewSpec;
  return std::make_tuple(F("namespace", &T::ns, kOmitEmpty, 1));
}

struct ResourceRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
  bool operator==(const ResourceRule&) const = default;
};
constexpr auto FieldsOf(Tag<ResourceRule>) {
  using T = ResourceRule;
  return std::make_tuple(F("verbs", &T::verbs, kAlways, 1),
                         F("apiGroups", &T::api_groups, kOmitEmpty, 2),
                         F("resources", &T::resources, kOmitEmpty, 3),
                         F("resourceNames", &T::resource_names, kOmitEmpty, 4));
}

struct NonResourceRule {
  std::vector<std::string> verbs;
  std::vector<std::string> non_resource_urls;
  bool operator==(const NonResourceRule&) const = default;
};
constexpr auto FieldsOf(Tag<NonResourceRule>) {
  using T = NonResourceRule;
  return std::make_tuple(F("verbs", &T::verbs, kAlways, 1),
                         F("nonResourceURLs", &T::non_resource_urls, kOmitEmpty, 2));
}

struct SubjectRulesReviewStatus {
  std::vector<ResourceRule> resource_rules;
  std::vector<NonResourceRule> non_resource_rules;
  bool incomplete = false;
  std::string evaluation_error;
  bool operator==(const SubjectRulesReviewStatus&) const = default;
};
constexpr auto FieldsOf(Tag<SubjectRulesReviewStatus>) {
  using T = SubjectRulesReviewStatus;
  return std::make_tuple(F("resourceRules", &T::resource_rules, kAlways, 1),
                         F("nonResourceRules", &T::non_resource_rules, kAlways, 2),
                         F("incomplete", &T::incomplete, kAlways, 3),
                         F("evaluationError", &T::evaluation_error, kOmitEmpty, 4));
}

struct SelfSubjectRulesReview {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  SelfSubjectRulesReviewSpec spec;
  SubjectRulesReviewStatus status;
  bool operator==(const SelfSubjectRulesReview&) const = default;
};
constexpr auto FieldsOf(Tag<SelfSubjectRulesReview>) {
  using T = SelfSubjectRulesReview;
  return std::make_tuple(F("kind", &T::kind), F("apiVersion", &T::api_version),
                         F("metadata", &T::metadata, kAlways, 1), F("spec", &T::spec, kAlways, 2),
                         F("status", &T::status, kAlways, 3));
}

}  // namespace svcplane::api::authorization::v1
