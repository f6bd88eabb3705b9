#pragma once

// Objects as JSON, read through a kind's merge schema: SMD's typed package (tofieldset, compare,
// merge, remove) over the schema of spec server-side-apply.md §3. Every function takes the
// object as served JSON (boost::json), never a typed C++ object.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

#include "apiserver/fieldmanager/fieldpath.h"
#include "base/result.h"

namespace svcplane::apiserver::fieldmanager {

// The compiled merge schema of one kind (opaque; built once, immutable, shared by threads).
class TypeSchema;

// The schema of one of our served kinds ("Pod", "Service", ... as api::AllResources() names
// them, RBAC kinds included), built on first use from the served OpenAPI definitions plus the
// markers of §3 (atomic maps and structs, key defaults). Null for an unknown kind.
const TypeSchema* SchemaForKind(std::string_view kind);

// The field set of an applied configuration (typed.ToFieldSet on a validated object): leaves,
// atomic nodes (even empty or null ones), associative-list items (with "." when they have
// children) and map keys that are not declared struct fields. As in SMD, an empty or null
// granular map, struct or associative list contributes nothing (so `finalizers: []` owns
// nothing). Validation descends into atomic nodes too. Errors are SMD's validation errors,
// each "<path>: <message>" exactly as spec §1.5 lists them (unknown fields, duplicate keys,
// missing key fields without default, type mismatches); the caller builds the 500 text.
Result<Set> ToFieldSet(const TypeSchema& schema, const boost::json::value& config,
                       std::vector<std::string>* errors);

// What changed from `from` to `to` (SMD typed.Compare). Lenient: live objects may hold duplicate
// keys (the first item with a key stands for it) and items without their keys are skipped.
// Fields no schema declares compare as deduced values. Nodes that appear in `to` without
// existing in `from` are Added (maps and lists included, so new maps and lists get "."), nodes
// whose value differs are Modified, nodes that disappear are Removed.
struct Comparison {
  Set added;
  Set modified;
  Set removed;
  bool IsSame() const { return added.Empty() && modified.Empty() && removed.Empty(); }
};
Comparison Compare(const TypeSchema& schema, const boost::json::value& from,
                   const boost::json::value& to);

// SMD typed.Merge(live, config): config's values win; granular structs and maps merge per key,
// associative lists per item (list order of spec §2.6 step 3), sets take the union, atomic
// nodes are replaced whole. `config` is expected to have passed ToFieldSet; errors (duplicate or
// keyless items where live and config both have the list) come back as kInternal with SMD's
// text. Items live repeats are kept as they are, or replaced by the config's item.
Result<boost::json::value> Merge(const TypeSchema& schema, const boost::json::value& live,
                                 const boost::json::value& config);

// `obj` without the nodes at the member paths of `paths` (SMD typed.RemoveItems), used to
// prune fields an applier stopped specifying. Like SMD, a map or list on a removal path that
// ends up empty (or is atomic) becomes null; decoding turns that into "absent".
boost::json::value RemoveItems(const TypeSchema& schema, const boost::json::value& obj,
                               const Set& paths);

}  // namespace svcplane::apiserver::fieldmanager
