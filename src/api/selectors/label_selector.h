#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/meta/fields.h"
#include "api/meta/string_map.h"
#include "api/validation/field_errors.h"
#include "base/result.h"

namespace svcplane::api::selectors {

// selection.Operator of apimachinery's labels package.
enum class Operator {
  kIn,            // "in"
  kNotIn,         // "notin"
  kEquals,        // "="
  kDoubleEquals,  // "=="
  kNotEquals,     // "!="
  kExists,        // "exists"
  kDoesNotExist,  // "!"
  kGreaterThan,   // "gt"
  kLessThan,      // "lt"
};

// The selection.Operator string ("in", "notin", "=", "==", "!=", "exists", "!", "gt", "lt").
std::string_view OperatorName(Operator op);

// One term of a label selector (labels.Requirement): an immutable key, operator and values,
// validated on construction. Values are kept in the order given (the parser hands them sorted
// and de-duplicated); String() prints them sorted as upstream does.
class Requirement {
 public:
  // labels.NewRequirement: the key must be a qualified name, values valid label values; In and
  // NotIn need >= 1 value, =, ==, != exactly one, Exists/DoesNotExist none, gt/lt exactly one
  // integer. Failures are field errors under `path` ("key", "values[0][<key>]"); the returned
  // Status is kBadRequest carrying the aggregate message. `values_nil` only changes how an empty
  // value list is printed in messages (`[]string(nil)` vs `[]string{}`), as Go distinguishes.
  static Result<Requirement> Create(std::string key, Operator op, std::vector<std::string> values,
                                    const validation::FieldPath& path = {},
                                    bool values_nil = false);
  // A "key=value" requirement without validation, for label sets the API already validated
  // (labels.SelectorFromValidatedSet).
  static Requirement PreValidatedEquals(std::string key, std::string value);
  // Same checks, returning the individual errors (empty = valid).
  static validation::FieldErrorList Validate(std::string_view key, Operator op,
                                             const std::vector<std::string>& values,
                                             const validation::FieldPath& path = {},
                                             bool values_nil = false);

  // No allocation; labels.Requirement.Matches semantics (NotIn/!= match an absent key, gt/lt
  // need an integer label value).
  bool Matches(const meta::StringMap& labels) const;

  const std::string& key() const { return key_; }
  Operator op() const { return op_; }
  const std::vector<std::string>& values() const { return values_; }

  // "k in (a,b)", "!k", "k!=v", "k>5".
  std::string String() const;

  bool operator==(const Requirement& o) const {
    return key_ == o.key_ && op_ == o.op_ && values_ == o.values_;
  }

 private:
  Requirement(std::string key, Operator op, std::vector<std::string> values);
  bool HasValue(std::string_view v) const;

  std::string key_;
  Operator op_;
  std::vector<std::string> values_;
  int64_t int_value_ = 0;  // pre-parsed operand of gt/lt
};

// A conjunction of requirements (labels.Selector). Cheap to copy relative to parsing; Matches
// never allocates. Requirements are kept sorted by key (stable), as upstream's parser and Add do.
class LabelSelector {
 public:
  // labels.Everything(): no requirements, matches everything, Empty() is true.
  LabelSelector() = default;
  static LabelSelector Everything() { return LabelSelector(); }
  // labels.Nothing(): matches nothing, Empty() is false, String() is "".
  static LabelSelector Nothing();

  bool Matches(const meta::StringMap& labels) const;
  // True if the selector does not restrict the selection space.
  bool Empty() const { return !nothing_ && requirements_.empty(); }
  bool MatchesNothing() const { return nothing_; }
  // Canonical form, requirements sorted by key, joined by ",": "app in (a,b),!tier".
  std::string String() const;
  // The value `label` must have, if the first requirement on it is =, == or a one-value in.
  std::optional<std::string_view> RequiresExactMatch(std::string_view label) const;

  const std::vector<Requirement>& requirements() const { return requirements_; }
  // A copy with more requirements, re-sorted by key (Nothing stays Nothing).
  LabelSelector Add(std::vector<Requirement> more) const;

 private:
  std::vector<Requirement> requirements_;
  bool nothing_ = false;
};

// labels.Parse: the string grammar of `labelSelector=` (api-types.md §11). "" selects
// everything. Errors are kBadRequest with upstream's text, e.g.
//   unable to parse requirement: found 'IN', expected: in, notin, =, ==, !=, gt, lt
//   unable to parse requirement: <nil>: Invalid value: "-a": name part must consist of ...
//   found ',', expected: ',' or 'end of string'
// The message does not include the apiserver's own wrapping.
Result<LabelSelector> ParseLabelSelector(std::string_view selector);

// metav1.LabelSelectorRequirement with the operator as its API string
// ("In", "NotIn", "Exists", "DoesNotExist").
struct LabelSelectorRequirement {
  std::string key;
  std::string op;
  std::vector<std::string> values;
  bool operator==(const LabelSelectorRequirement&) const = default;
};
constexpr auto FieldsOf(meta::Tag<LabelSelectorRequirement>) {
  using T = LabelSelectorRequirement;
  return std::make_tuple(meta::F("key", &T::key, meta::kAlways, 1),
                         meta::F("operator", &T::op, meta::kAlways, 2),
                         meta::F("values", &T::values, meta::kOmitEmpty, 3));
}

// metav1.LabelSelector (matchLabels + matchExpressions).
struct LabelSelectorSpec {
  meta::StringMap match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
  bool operator==(const LabelSelectorSpec&) const = default;
};
constexpr auto FieldsOf(meta::Tag<LabelSelectorSpec>) {
  using T = LabelSelectorSpec;
  return std::make_tuple(meta::F("matchLabels", &T::match_labels, meta::kOmitEmpty, 1),
                         meta::F("matchExpressions", &T::match_expressions, meta::kOmitEmpty, 2));
}

// metav1.LabelSelectorAsSelector: nullptr -> Nothing(); no labels and no expressions ->
// Everything(); else matchLabels as "=" requirements plus the expressions. Unknown operators
// give `"Foo" is not a valid label selector operator`; other failures the NewRequirement
// aggregate (e.g. `values: Invalid value: []string(nil): for 'in', 'notin' operators, values
// set can't be empty`). kBadRequest.
Result<LabelSelector> SelectorFromSpec(const LabelSelectorSpec* spec);

// metav1 validation.ValidateLabelSelector for a selector stored in an object (e.g.
// spec.selector): matchLabels via ValidateLabels at <path>.matchLabels, each expression at
// <path>.matchExpressions[i]: values Required for In/NotIn (`must be specified when `operator`
// is 'In' or 'NotIn'`), Forbidden for Exists/DoesNotExist, operator Invalid (`not a valid
// selector operator`), key and values as label key/value.
validation::FieldErrorList ValidateLabelSelectorSpec(const LabelSelectorSpec& spec,
                                                     const validation::FieldPath& path);

// Set-based selectors (labels.Set). Which one to use:
//  - SelectorFromSet: labels.SelectorFromValidatedSet / Set.AsSelectorPreValidated. An empty
//    set selects EVERYTHING. No validation; use for sets the API already validated, e.g.
//    list filtering by a set, or matching a pod against a non-empty Service selector.
//  - ValidatedSelectorFromSet: the same, but each key/value goes through NewRequirement.
//  - ServiceEndpointsSelector: what the endpoints and EndpointSlice controllers use for
//    Service.spec.selector. A Service without a selector (nil or, after JSON round trip,
//    empty) selects NO pods: its endpoints are managed by someone else.
LabelSelector SelectorFromSet(const meta::StringMap& set);
Result<LabelSelector> ValidatedSelectorFromSet(const meta::StringMap& set);
LabelSelector ServiceEndpointsSelector(const meta::StringMap& service_selector);

}  // namespace svcplane::api::selectors
