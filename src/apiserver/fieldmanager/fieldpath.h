#pragma once

// Sets of field paths, as structured-merge-diff v4.6.0's fieldpath package: the unit of
// ownership in server-side apply. A Set is a trie; its canonical serialisation is the FieldsV1
// JSON stored in metadata.managedFields (spec server-side-apply.md §2.2).

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "base/result.h"

namespace svcplane::apiserver::fieldmanager {

// One step of a path (fieldpath.PathElement). Exactly one of the alternatives is meaningful,
// selected by `kind`. The enum order is the canonical order of kinds: f < k < v < i.
// Values (key fields, set items) compare as SMD's value.Compare: numbers by numeric value
// whatever their JSON representation (int64 80 equals double 80.0), so never compare them with
// boost's operator==. Parsed FieldsV1 keeps integer literals as int64 (upstream reads float64;
// the bytes written back and the conflict texts are the same for every value our kinds hold).
struct PathElement {
  enum class Kind : uint8_t { kField, kKey, kValue, kIndex };
  Kind kind = Kind::kField;
  std::string field;                                            // kField: struct field or map key
  std::vector<std::pair<std::string, boost::json::value>> key;  // kKey: sorted by name, scalars
  boost::json::value value;                                     // kValue: a scalar set item
  int64_t index = 0;                                            // kIndex

  static PathElement Field(std::string name);
  // `fields` need not be sorted; the element keeps them sorted by name.
  static PathElement Key(std::vector<std::pair<std::string, boost::json::value>> fields);
  static PathElement Value(boost::json::value v);
  static PathElement Index(int64_t i);

  // As the conflict messages print it: `.name`, `[port=80,protocol="TCP"]`, `[="v"]`, `[3]`.
  std::string String() const;
  // As a FieldsV1 key: `f:name`, `k:{"port":80,"protocol":"TCP"}`, `v:"v"`, `i:3`.
  std::string FieldsV1Key() const;
};

// Canonical order (§2.2): <0, 0, >0. Value comparison follows SMD value.Compare.
int Compare(const PathElement& a, const PathElement& b);
bool operator==(const PathElement& a, const PathElement& b);
inline bool operator<(const PathElement& a, const PathElement& b) { return Compare(a, b) < 0; }

using Path = std::vector<PathElement>;
// The conflict-message form of a path: `.spec.ports[port=80,protocol="TCP"].targetPort`.
std::string PathString(const Path& path);

// A set of paths (fieldpath.Set): the elements that are members at this level, and the sets
// below each element that has members underneath. A path may be both a member and a prefix of
// other members (FieldsV1 writes that as ".": {}). Value type; immutable operations return new
// sets.
class Set {
 public:
  Set() = default;

  bool Empty() const { return members_.empty() && children_.empty(); }
  // Number of member paths in the whole trie.
  size_t Size() const;

  void Insert(const Path& path);
  bool Has(const Path& path) const;
  // Whether `path` is a member or a prefix of a member.
  bool HasPrefix(const Path& path) const;

  Set Union(const Set& other) const;
  // Members of this set that are not members of `other` (children are compared recursively;
  // a member of `other` does not remove this set's paths below it). SMD Set.Difference.
  Set Difference(const Set& other) const;
  // Removes every path that has a member of `other` as a prefix, as well as the members of
  // `other` themselves. SMD Set.RecursiveDifference.
  Set RecursiveDifference(const Set& other) const;
  Set Intersection(const Set& other) const;

  // Only the leaf members: members that are not also prefixes of other members (SMD Leaves).
  Set Leaves() const;
  // The paths below `pe`, with `pe` removed (SMD WithPrefix); empty when nothing is below it.
  Set WithPrefix(const PathElement& pe) const;

  // The member paths, as SMD iterates them: this level's members in canonical order, then the
  // children's members, child by child in canonical order.
  void Iterate(const std::function<void(const Path&)>& fn) const;
  // One PathString per line in Iterate order (SMD Set.String), for logs and test failures.
  std::string String() const;

  // Direct access for schema walks.
  const std::vector<PathElement>& members() const { return members_; }
  const std::vector<std::pair<PathElement, Set>>& children() const { return children_; }
  // The set below `pe`, or null when nothing is below it.
  const Set* Child(const PathElement& pe) const;
  bool HasMember(const PathElement& pe) const;

  // Canonical compact FieldsV1 JSON (§2.2): "." first, then elements in canonical order; an
  // empty set is "{}".
  std::string ToFieldsV1() const;
  // Parses FieldsV1 JSON; unknown key prefixes are skipped, malformed k:/v:/i: payloads, keys
  // shorter than two bytes or without the ':' and values other than objects and null are
  // errors (code kBadRequest; callers that need another code rewrap the message). Duplicate
  // entries merge, and any order is accepted, so the result is canonical.
  static Result<Set> FromFieldsV1(std::string_view json);

  friend bool operator==(const Set& a, const Set& b) = default;

 private:
  static Status ReadFieldsV1(const boost::json::object& obj, Set* out, bool* is_member);

  std::vector<PathElement> members_;                   // sorted, unique
  std::vector<std::pair<PathElement, Set>> children_;  // sorted by element, unique, non-empty
};

}  // namespace svcplane::apiserver::fieldmanager
