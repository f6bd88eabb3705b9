// rbac.authorization.k8s.io/v1 validation (pkg/apis/rbac/validation/validation.go).

#include "api/selectors/label_selector.h"
#include "api/validation/internal/common.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using rbac::v1::PolicyRule;
using rbac::v1::RoleRef;
using rbac::v1::Subject;

// minimalNameRequirements: names of roles and bindings (and roleRef.name) only have to be valid
// URL path segments, so `system:foo` is fine.
std::vector<std::string> RbacName(std::string_view name, bool /*prefix*/) {
  return IsValidPathSegmentName(name);
}

FieldErrorList ValidatePolicyRule(const PolicyRule& rule, bool namespaced, const FieldPath& path) {
  FieldErrorList errs;
  if (rule.verbs.empty()) {
    errs.push_back(Required(path.Child("verbs"), "verbs must contain at least one value"));
  }
  if (!rule.non_resource_urls.empty()) {
    std::string urls = GoStringSlice(rule.non_resource_urls);
    if (namespaced) {
      errs.push_back(InvalidRendered(path.Child("nonResourceURLs"), urls,
                                     "namespaced rules cannot apply to non-resource URLs"));
    }
    if (!rule.api_groups.empty() || !rule.resources.empty() || !rule.resource_names.empty()) {
      errs.push_back(InvalidRendered(path.Child("nonResourceURLs"), urls,
                                     "rules cannot apply to both regular resources and "
                                     "non-resource URLs"));
    }
    return errs;
  }
  if (rule.api_groups.empty()) {
    errs.push_back(
        Required(path.Child("apiGroups"), "resource rules must supply at least one api group"));
  }
  if (rule.resources.empty()) {
    errs.push_back(
        Required(path.Child("resources"), "resource rules must supply at least one resource"));
  }
  if (!rule.resource_names.empty() && rule.resources.size() > 1) {
    errs.push_back(
        Required(path.Child("resourceNames"), "resource names cannot apply to multiple resources"));
  }
  return errs;
}

FieldErrorList ValidateRules(const std::vector<PolicyRule>& rules, bool namespaced) {
  FieldErrorList errs;
  for (size_t i = 0; i < rules.size(); ++i) {
    internal::Append(&errs, ValidatePolicyRule(rules[i], namespaced, Path("rules").Index(i)));
  }
  return errs;
}

FieldErrorList ValidateAggregationRule(const rbac::v1::AggregationRule& agg) {
  FieldErrorList errs;
  FieldPath path = Path("aggregationRule").Child("clusterRoleSelectors");
  if (agg.cluster_role_selectors.empty()) {
    errs.push_back(Required(path,
                            "at least one clusterRoleSelector required if aggregationRule is "
                            "non-nil"));
  }
  for (size_t i = 0; i < agg.cluster_role_selectors.size(); ++i) {
    const auto& spec = agg.cluster_role_selectors[i];
    internal::Append(&errs, selectors::ValidateLabelSelectorSpec(spec, path.Index(i)));
    // Upstream converts the selector too and reports a failure once more, with the nil
    // selector it got back as the value.
    if (!selectors::SelectorFromSpec(&spec).ok()) {
      errs.push_back(Invalid(path.Index(i), "null", "invalid label selector."));
    }
  }
  return errs;
}

// %#v of the internal rbac.RoleRef, as upstream prints it in `cannot change roleRef`.
std::string RenderRoleRef(const RoleRef& ref) {
  return "rbac.RoleRef{APIGroup:" + GoQuote(ref.api_group) + ", Kind:" + GoQuote(ref.kind) +
         ", Name:" + GoQuote(ref.name) + "}";
}

FieldErrorList ValidateSubject(const Subject& s, bool namespaced, const FieldPath& path) {
  FieldErrorList errs;
  if (s.name.empty()) errs.push_back(Required(path.Child("name")));
  const std::string rbac_group(rbac::v1::kGroupName);
  if (s.kind == rbac::v1::kServiceAccountKind) {
    if (!s.name.empty()) {
      for (const std::string& msg : NameIsDNSSubdomain(s.name, false)) {
        errs.push_back(Invalid(path.Child("name"), s.name, msg));
      }
    }
    if (!s.api_group.empty()) {
      errs.push_back(NotSupported(path.Child("apiGroup"), s.api_group, {""}));
    }
    if (!namespaced && s.ns.empty()) errs.push_back(Required(path.Child("namespace")));
  } else if (s.kind == rbac::v1::kUserKind || s.kind == rbac::v1::kGroupKind) {
    if (s.name.empty()) {
      errs.push_back(Invalid(path.Child("name"), s.name,
                             s.kind == rbac::v1::kUserKind ? "user name cannot be empty"
                                                           : "group name cannot be empty"));
    }
    if (s.api_group != rbac_group) {
      errs.push_back(NotSupported(path.Child("apiGroup"), s.api_group, {rbac::v1::kGroupName}));
    }
  } else {
    errs.push_back(
        NotSupported(path.Child("kind"), s.kind,
                     {rbac::v1::kServiceAccountKind, rbac::v1::kUserKind, rbac::v1::kGroupKind}));
  }
  return errs;
}

// The roleRef and subjects checks shared by RoleBinding (namespaced: roleRef may name a Role)
// and ClusterRoleBinding.
FieldErrorList ValidateBindingBody(const RoleRef& ref, const std::vector<Subject>& subjects,
                                   bool namespaced) {
  FieldErrorList errs;
  FieldPath ref_path = Path("roleRef");
  if (ref.api_group != rbac::v1::kGroupName) {
    errs.push_back(NotSupported(ref_path.Child("apiGroup"), ref.api_group, {rbac::v1::kGroupName}));
  }
  bool kind_ok = ref.kind == "ClusterRole" || (namespaced && ref.kind == "Role");
  if (!kind_ok) {
    errs.push_back(namespaced
                       ? NotSupported(ref_path.Child("kind"), ref.kind, {"Role", "ClusterRole"})
                       : NotSupported(ref_path.Child("kind"), ref.kind, {"ClusterRole"}));
  }
  if (ref.name.empty()) {
    errs.push_back(Required(ref_path.Child("name")));
  } else {
    for (const std::string& msg : RbacName(ref.name, false)) {
      errs.push_back(Invalid(ref_path.Child("name"), ref.name, msg));
    }
  }
  for (size_t i = 0; i < subjects.size(); ++i) {
    internal::Append(&errs, ValidateSubject(subjects[i], namespaced, Path("subjects").Index(i)));
  }
  return errs;
}

FieldErrorList ValidateRoleRefUnchanged(const RoleRef& ref, const RoleRef& old) {
  // Upstream compares the structs (no unknown fields there).
  if (ref.api_group == old.api_group && ref.kind == old.kind && ref.name == old.name) return {};
  return {InvalidRendered(Path("roleRef"), RenderRoleRef(ref), "cannot change roleRef")};
}

}  // namespace

FieldErrorList ValidateCreate(const rbac::v1::Role& role) {
  FieldErrorList errs = ValidateObjectMeta(role.metadata, true, RbacName, Path("metadata"));
  internal::Append(&errs, ValidateRules(role.rules, true));
  return errs;
}

FieldErrorList ValidateUpdate(const rbac::v1::Role& role, const rbac::v1::Role& old) {
  FieldErrorList errs = ValidateCreate(role);
  internal::Append(&errs, ValidateObjectMetaUpdate(role.metadata, old.metadata, Path("metadata")));
  return errs;
}

FieldErrorList ValidateCreate(const rbac::v1::ClusterRole& role) {
  FieldErrorList errs = ValidateObjectMeta(role.metadata, false, RbacName, Path("metadata"));
  internal::Append(&errs, ValidateRules(role.rules, false));
  if (role.aggregation_rule)
    internal::Append(&errs, ValidateAggregationRule(*role.aggregation_rule));
  return errs;
}

FieldErrorList ValidateUpdate(const rbac::v1::ClusterRole& role, const rbac::v1::ClusterRole& old) {
  FieldErrorList errs = ValidateCreate(role);
  internal::Append(&errs, ValidateObjectMetaUpdate(role.metadata, old.metadata, Path("metadata")));
  return errs;
}

FieldErrorList ValidateCreate(const rbac::v1::RoleBinding& binding) {
  FieldErrorList errs = ValidateObjectMeta(binding.metadata, true, RbacName, Path("metadata"));
  internal::Append(&errs, ValidateBindingBody(binding.role_ref, binding.subjects, true));
  return errs;
}

FieldErrorList ValidateUpdate(const rbac::v1::RoleBinding& binding,
                              const rbac::v1::RoleBinding& old) {
  FieldErrorList errs = ValidateCreate(binding);
  internal::Append(&errs,
                   ValidateObjectMetaUpdate(binding.metadata, old.metadata, Path("metadata")));
  internal::Append(&errs, ValidateRoleRefUnchanged(binding.role_ref, old.role_ref));
  return errs;
}

FieldErrorList ValidateCreate(const rbac::v1::ClusterRoleBinding& binding) {
  FieldErrorList errs = ValidateObjectMeta(binding.metadata, false, RbacName, Path("metadata"));
  internal::Append(&errs, ValidateBindingBody(binding.role_ref, binding.subjects, false));
  return errs;
}

FieldErrorList ValidateUpdate(const rbac::v1::ClusterRoleBinding& binding,
                              const rbac::v1::ClusterRoleBinding& old) {
  FieldErrorList errs = ValidateCreate(binding);
  internal::Append(&errs,
                   ValidateObjectMetaUpdate(binding.metadata, old.metadata, Path("metadata")));
  internal::Append(&errs, ValidateRoleRefUnchanged(binding.role_ref, old.role_ref));
  return errs;
}

}  // namespace svcplane::api::validation
