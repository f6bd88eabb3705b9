#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace svcplane::api::selectors {

enum class FieldOperator { kEquals, kDoubleEquals, kNotEquals };

// One term of a field selector: `field=value`, `field==value` or `field!=value` (value unescaped).
struct FieldRequirement {
  std::string field;
  FieldOperator op = FieldOperator::kEquals;
  std::string value;

  bool operator==(const FieldRequirement&) const = default;
};

// The fields of one object as (field, value) pairs, e.g. {"metadata.name", "web"}. Built per
// object by the resource's strategy; views into the object, so building it allocates at most
// the vector. A field that is absent reads as "" (upstream fields.Set.Get semantics).
using FieldValue = std::pair<std::string_view, std::string_view>;

// fields.Selector: a conjunction of terms, sorted as upstream sorts the raw terms.
class FieldSelector {
 public:
  // fields.Everything().
  FieldSelector() = default;
  static FieldSelector Everything() { return FieldSelector(); }
  // fields.OneTermEqualSelector.
  static FieldSelector OneTermEqual(std::string field, std::string value);

  bool Empty() const { return requirements_.empty(); }

  // Linear scan over `fields` per term; no allocation.
  bool Matches(std::span<const FieldValue> fields) const;
  // For callers with their own lookup: get(field) -> std::optional<std::string_view>.
  template <typename Getter>
  bool MatchesWith(Getter&& get) const {
    for (const FieldRequirement& r : requirements_) {
      std::optional<std::string_view> v = get(std::string_view(r.field));
      std::string_view actual = v ? *v : std::string_view();
      bool equal = actual == r.value;
      if (r.op == FieldOperator::kNotEquals ? equal : !equal) return false;
    }
    return true;
  }

  // The value of the first `field=`/`field==` term; != terms never count.
  std::optional<std::string_view> RequiresExactMatch(std::string_view field) const;

  // "a=b,c!=d" with values escaped again (`\,` `\=` `\\`).
  std::string String() const;

  const std::vector<FieldRequirement>& requirements() const { return requirements_; }

  // fields.Selector.Transform: maps every (field, value) through fn; the first error wins.
  // A term whose field and value both come back empty is dropped.
  using TransformFn = std::function<Result<std::pair<std::string, std::string>>(
      std::string_view field, std::string_view value)>;
  Result<FieldSelector> Transform(const TransformFn& fn) const;

 private:
  friend Result<FieldSelector> ParseFieldSelector(std::string_view selector);
  std::vector<FieldRequirement> requirements_;
};

// fields.ParseSelector. Terms split on unescaped ',' (empty terms skipped), each split at the
// first "!=", "==" or "="; values unescape `\\` `\,` `\=`. kBadRequest errors as upstream:
//   invalid selector: 'x'; can't understand 'x'
//   invalid field selector: invalid escape sequence: \n
//   invalid field selector: unescaped character in value: 61     (Go prints the rune as a number)
Result<FieldSelector> ParseFieldSelector(std::string_view selector);

// fields.EscapeValue / UnescapeValue.
std::string EscapeFieldValue(std::string_view value);
Result<std::string> UnescapeFieldValue(std::string_view value);

// Field-label checks done by the API server per resource (api-wire.md §3.1), kBadRequest.
//  - CheckFieldLabels: types with an explicit list (pods, nodes, namespaces, events, ...):
//      field label not supported: <key>
//  - CheckDefaultFieldLabels: types with only metadata.name/metadata.namespace:
//      "<key>" is not a known field selector: only "metadata.name", "metadata.namespace"
// Terms are checked in selector order; the first unknown key is reported.
Status CheckFieldLabels(const FieldSelector& selector, std::span<const std::string_view> allowed);
Status CheckDefaultFieldLabels(const FieldSelector& selector);

// A list/watch on an item path (…/pods/NAME) behaves as fieldSelector=metadata.name=NAME. An
// empty selector becomes exactly that; a non-empty one must require metadata.name=NAME or the
// result is kBadRequest `fieldSelector metadata.name doesn't match requested name`.
Result<FieldSelector> SelectorForItemName(const FieldSelector& selector, std::string_view name);

// The metadata.name a selector pins down, if any (single-object watches).
std::optional<std::string_view> RequiredName(const FieldSelector& selector);

}  // namespace svcplane::api::selectors
