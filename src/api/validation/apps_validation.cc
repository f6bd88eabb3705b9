// apps/v1 Deployment and ReplicaSet validation (pkg/apis/apps/validation/validation.go and the
// apps/v1 parts of pkg/registry/apps/*/strategy.go). Values of non-scalar types are rendered
// as Go's %#v of the internal types, as apimachinery <= 1.33 prints them.

#include <algorithm>
#include <cctype>

#include "api/selectors/label_selector.h"
#include "api/validation/internal/common.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using apps::v1::Deployment;
using apps::v1::ReplicaSet;
using selectors::LabelSelectorSpec;

constexpr std::string_view kGreaterThanReplicas = "cannot be greater than status.replicas";

void NonNegative(int64_t v, const FieldPath& path, FieldErrorList* errs) {
  if (v < 0) errs->push_back(Invalid(path, v, std::string(internal::kIsNegative)));
}

// %#v of a map[string]string: keys sorted (fmt sorts maps), `(nil)` when empty (the decoder
// cannot tell an empty map from an absent one; absent is what clients send).
std::string GoStringMap(const meta::StringMap& m) {
  if (m.empty()) return "map[string]string(nil)";
  std::string out = "map[string]string{";
  bool first = true;
  for (const auto& [k, v] : m) {
    if (!first) out += ", ";
    first = false;
    out += GoQuote(k) + ":" + GoQuote(v);
  }
  return out + "}";
}

std::string GoLabelSelector(const LabelSelectorSpec& s) {
  std::string out = "v1.LabelSelector{MatchLabels:" + GoStringMap(s.match_labels) +
                    ", MatchExpressions:[]v1.LabelSelectorRequirement";
  if (s.match_expressions.empty()) return out + "(nil)}";
  out += "{";
  for (size_t i = 0; i < s.match_expressions.size(); ++i) {
    const auto& r = s.match_expressions[i];
    if (i > 0) out += ", ";
    out += "v1.LabelSelectorRequirement{Key:" + GoQuote(r.key) + ", Operator:" + GoQuote(r.op) +
           ", Values:" + GoStringSlice(r.values, r.values.empty()) + "}";
  }
  return out + "}}";
}

// %#v of an intstr.IntOrString value (its String() has a pointer receiver, so fmt ignores it).
std::string GoIntOrString(const meta::IntOrString& v) {
  return "intstr.IntOrString{Type:" + std::string(v.is_string ? "1" : "0") +
         ", IntVal:" + std::to_string(v.is_string ? 0 : v.int_value) +
         ", StrVal:" + GoQuote(v.is_string ? v.str_value : "") + "}";
}

bool IsValidPercent(std::string_view s) {
  if (s.size() < 2 || s.back() != '%') return false;
  return std::all_of(s.begin(), s.end() - 1,
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

constexpr std::string_view kPercentMsg =
    "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or "
    "'93%', regex used for validation is '[0-9]+%')";

// strconv.Atoi of the digits; out-of-range values saturate (they fail the checks anyway).
int64_t Digits(std::string_view s) {
  int64_t v = 0;
  for (char c : s) v = std::min<int64_t>(v * 10 + (c - '0'), int64_t{1} << 40);
  return v;
}

// getIntOrPercentValue: the percentage number, or IntValue() (Atoi of a string, 0 on failure).
int64_t IntOrPercentValue(const meta::IntOrString& v) {
  if (!v.is_string) return v.int_value;
  if (IsValidPercent(v.str_value)) return Digits(v.str_value.substr(0, v.str_value.size() - 1));
  const std::string& s = v.str_value;
  bool digits = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
  return digits ? Digits(s) : 0;
}

void ValidatePositiveIntOrPercent(const meta::IntOrString& v, const FieldPath& path,
                                  FieldErrorList* errs) {
  if (v.is_string) {
    if (!IsValidPercent(v.str_value)) {
      errs->push_back(InvalidRendered(path, GoIntOrString(v), std::string(kPercentMsg)));
    }
  } else {
    NonNegative(v.int_value, path, errs);
  }
}

void ValidateStrategy(const apps::v1::DeploymentStrategy& s, const FieldPath& path,
                      FieldErrorList* errs) {
  if (s.type == apps::v1::kRecreateStrategy) {
    if (s.rolling_update) {
      errs->push_back(Forbidden(path.Child("rollingUpdate"),
                                "may not be specified when strategy `type` is 'Recreate'"));
    }
  } else if (s.type == apps::v1::kRollingUpdateStrategy) {
    if (!s.rolling_update) {
      errs->push_back(
          Required(path.Child("rollingUpdate"), "this should be defaulted and never be nil"));
      return;
    }
    const FieldPath unavailable_path = path.Child("rollingUpdate").Child("maxUnavailable");
    // The internal type holds values, not pointers: an absent one is the int 0.
    const meta::IntOrString unavailable =
        s.rolling_update->max_unavailable.value_or(meta::IntOrString::FromInt(0));
    const meta::IntOrString surge =
        s.rolling_update->max_surge.value_or(meta::IntOrString::FromInt(0));
    ValidatePositiveIntOrPercent(unavailable, unavailable_path, errs);
    ValidatePositiveIntOrPercent(surge, path.Child("rollingUpdate").Child("maxSurge"), errs);
    if (IntOrPercentValue(unavailable) == 0 && IntOrPercentValue(surge) == 0) {
      errs->push_back(InvalidRendered(unavailable_path, GoIntOrString(unavailable),
                                      "may not be 0 when `maxSurge` is 0"));
    }
    if (unavailable.is_string && IsValidPercent(unavailable.str_value) &&
        IntOrPercentValue(unavailable) > 100) {
      errs->push_back(InvalidRendered(unavailable_path, GoIntOrString(unavailable),
                                      "must not be greater than 100%"));
    }
  } else {
    FieldError e;
    e.type = FieldErrorType::kNotSupported;
    e.field = path.String();
    e.bad_value = "apps.DeploymentStrategy{Type:" + GoQuote(s.type) +
                  ", RollingUpdate:(*apps.RollingUpdateDeployment)" +
                  (s.rolling_update ? "(0xc000000000)" : "(nil)") + "}";
    e.detail = "supported values: \"Recreate\", \"RollingUpdate\"";
    errs->push_back(std::move(e));
  }
}

// ValidatePodTemplateSpecForReplicaSet.
void ValidateTemplate(const core::v1::PodTemplateSpec& t, const LabelSelectorSpec* selector_spec,
                      const FieldPath& path, FieldErrorList* errs) {
  auto selector = selectors::SelectorFromSpec(selector_spec);
  if (!selector.ok()) return;  // reported by the caller as "invalid label selector"
  // A nil selector selects nothing (not Empty()), so it never matches the labels.
  if (!selector->Empty()) {
    if (!selector->Matches(t.metadata.labels)) {
      errs->push_back(InvalidRendered(path.Child("metadata").Child("labels"),
                                      GoStringMap(t.metadata.labels),
                                      "`selector` does not match template `labels`"));
    }
  }
  internal::Append(errs, ValidatePodTemplateSpec(t, path));
  const FieldPath spec = path.Child("spec");
  const std::string& rp = t.spec.rest->restart_policy;
  if (rp != "Always") errs->push_back(NotSupported(spec.Child("restartPolicy"), rp, {"Always"}));
  if (t.spec.rest->active_deadline_seconds) {
    errs->push_back(Forbidden(spec.Child("activeDeadlineSeconds"),
                              "activeDeadlineSeconds in ReplicaSet is not Supported"));
  }
}

// The selector and template part shared by DeploymentSpec and ReplicaSetSpec.
void ValidateSelectorAndTemplate(const std::optional<LabelSelectorSpec>& selector,
                                 const core::v1::PodTemplateSpec& t, const FieldPath& path,
                                 FieldErrorList* errs) {
  const FieldPath sel_path = path.Child("selector");
  if (!selector) {
    errs->push_back(Required(sel_path));
  } else {
    internal::Append(errs, selectors::ValidateLabelSelectorSpec(*selector, sel_path));
    if (selector->match_labels.empty() && selector->match_expressions.empty()) {
      errs->push_back(InvalidRendered(sel_path, GoLabelSelector(*selector),
                                      "empty selector is invalid for deployment"));
    }
  }
  const LabelSelectorSpec* spec = selector ? &*selector : nullptr;
  if (!selectors::SelectorFromSpec(spec).ok()) {
    errs->push_back(
        InvalidRendered(sel_path, GoLabelSelector(*selector), "invalid label selector"));
    return;
  }
  ValidateTemplate(t, spec, path.Child("template"), errs);
}

FieldErrorList ValidateDeploymentSpec(const apps::v1::DeploymentSpec& spec) {
  FieldErrorList errs;
  const FieldPath path = Path("spec");
  NonNegative(spec.replicas.value_or(0), path.Child("replicas"), &errs);
  ValidateSelectorAndTemplate(spec.selector, spec.template_, path, &errs);
  ValidateStrategy(spec.strategy, path.Child("strategy"), &errs);
  NonNegative(spec.min_ready_seconds, path.Child("minReadySeconds"), &errs);
  if (spec.revision_history_limit) {
    NonNegative(*spec.revision_history_limit, path.Child("revisionHistoryLimit"), &errs);
  }
  if (spec.progress_deadline_seconds) {
    const FieldPath p = path.Child("progressDeadlineSeconds");
    NonNegative(*spec.progress_deadline_seconds, p, &errs);
    if (*spec.progress_deadline_seconds <= spec.min_ready_seconds) {
      errs.push_back(
          Invalid(p, *spec.progress_deadline_seconds, "must be greater than minReadySeconds"));
    }
  }
  return errs;
}

FieldErrorList ValidateReplicaSetSpec(const apps::v1::ReplicaSetSpec& spec) {
  FieldErrorList errs;
  const FieldPath path = Path("spec");
  NonNegative(spec.replicas.value_or(0), path.Child("replicas"), &errs);
  NonNegative(spec.min_ready_seconds, path.Child("minReadySeconds"), &errs);
  ValidateSelectorAndTemplate(spec.selector, spec.template_, path, &errs);
  return errs;
}

// apps/v1 makes the selector immutable (Semantic.DeepEqual: nil and empty are equal).
void SelectorImmutable(const std::optional<LabelSelectorSpec>& n,
                       const std::optional<LabelSelectorSpec>& old, FieldErrorList* errs) {
  const LabelSelectorSpec empty;
  if (n.has_value() == old.has_value() && n.value_or(empty) == old.value_or(empty)) return;
  errs->push_back(InvalidRendered(Path("spec").Child("selector"),
                                  n ? GoLabelSelector(*n) : std::string("null"),
                                  "field is immutable"));
}

void NotAboveReplicas(int32_t v, int32_t replicas, const FieldPath& path, FieldErrorList* errs) {
  if (v > replicas) errs->push_back(Invalid(path, v, std::string(kGreaterThanReplicas)));
}

}  // namespace

FieldErrorList ValidatePodTemplateSpec(const core::v1::PodTemplateSpec& t, const FieldPath& path) {
  FieldErrorList errs = ValidateLabels(t.metadata.labels, path.Child("labels"));
  internal::Append(&errs, ValidateAnnotations(t.metadata.annotations, path.Child("annotations")));
  internal::Append(&errs, ValidatePodSpec(t.spec, path.Child("spec")));
  return errs;
}

FieldErrorList ValidateCreate(const Deployment& d) {
  FieldErrorList errs = ValidateObjectMeta(d.metadata, true, NameIsDNSSubdomain, Path("metadata"));
  internal::Append(&errs, ValidateDeploymentSpec(d.spec));
  return errs;
}

FieldErrorList ValidateUpdate(const Deployment& d, const Deployment& old) {
  FieldErrorList errs = ValidateObjectMetaUpdate(d.metadata, old.metadata, Path("metadata"));
  internal::Append(&errs, ValidateDeploymentSpec(d.spec));
  SelectorImmutable(d.spec.selector, old.spec.selector, &errs);
  return errs;
}

FieldErrorList ValidateStatusUpdate(const Deployment& d, const Deployment& old) {
  FieldErrorList errs = ValidateObjectMetaUpdate(d.metadata, old.metadata, Path("metadata"));
  const FieldPath path = Path("status");
  const auto& s = d.status;
  NonNegative(s.observed_generation, path.Child("observedGeneration"), &errs);
  NonNegative(s.replicas, path.Child("replicas"), &errs);
  NonNegative(s.updated_replicas, path.Child("updatedReplicas"), &errs);
  NonNegative(s.ready_replicas, path.Child("readyReplicas"), &errs);
  NonNegative(s.available_replicas, path.Child("availableReplicas"), &errs);
  NonNegative(s.unavailable_replicas, path.Child("unavailableReplicas"), &errs);
  if (s.collision_count) NonNegative(*s.collision_count, path.Child("collisionCount"), &errs);
  NotAboveReplicas(s.updated_replicas, s.replicas, path.Child("updatedReplicas"), &errs);
  NotAboveReplicas(s.ready_replicas, s.replicas, path.Child("readyReplicas"), &errs);
  NotAboveReplicas(s.available_replicas, s.replicas, path.Child("availableReplicas"), &errs);
  if (s.available_replicas > s.ready_replicas) {
    errs.push_back(Invalid(path.Child("availableReplicas"), s.available_replicas,
                           "cannot be greater than readyReplicas"));
  }
  const auto& oc = old.status.collision_count;
  if (oc && (!s.collision_count || *s.collision_count < *oc)) {
    errs.push_back(Invalid(path.Child("collisionCount"), s.collision_count.value_or(0),
                           "cannot be decremented"));
  }
  return errs;
}

FieldErrorList ValidateCreate(const ReplicaSet& rs) {
  FieldErrorList errs = ValidateObjectMeta(rs.metadata, true, NameIsDNSSubdomain, Path("metadata"));
  internal::Append(&errs, ValidateReplicaSetSpec(rs.spec));
  return errs;
}

FieldErrorList ValidateUpdate(const ReplicaSet& rs, const ReplicaSet& old) {
  FieldErrorList errs = ValidateObjectMetaUpdate(rs.metadata, old.metadata, Path("metadata"));
  internal::Append(&errs, ValidateReplicaSetSpec(rs.spec));
  SelectorImmutable(rs.spec.selector, old.spec.selector, &errs);
  return errs;
}

FieldErrorList ValidateStatusUpdate(const ReplicaSet& rs, const ReplicaSet& old) {
  FieldErrorList errs = ValidateObjectMetaUpdate(rs.metadata, old.metadata, Path("metadata"));
  const FieldPath path = Path("status");
  const auto& s = rs.status;
  NonNegative(s.replicas, path.Child("replicas"), &errs);
  NonNegative(s.fully_labeled_replicas, path.Child("fullyLabeledReplicas"), &errs);
  NonNegative(s.ready_replicas, path.Child("readyReplicas"), &errs);
  NonNegative(s.available_replicas, path.Child("availableReplicas"), &errs);
  NonNegative(s.observed_generation, path.Child("observedGeneration"), &errs);
  NotAboveReplicas(s.fully_labeled_replicas, s.replicas, path.Child("fullyLabeledReplicas"), &errs);
  NotAboveReplicas(s.ready_replicas, s.replicas, path.Child("readyReplicas"), &errs);
  NotAboveReplicas(s.available_replicas, s.replicas, path.Child("availableReplicas"), &errs);
  if (s.available_replicas > s.ready_replicas) {
    errs.push_back(Invalid(path.Child("availableReplicas"), s.available_replicas,
                           "cannot be greater than readyReplicas"));
  }
  return errs;
}

}  // namespace svcplane::api::validation
