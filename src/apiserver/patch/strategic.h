#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "apiserver/patch/schema.h"
#include "base/status.h"

namespace svcplane::apiserver::patch {

// Applies a strategic merge patch as apimachinery's strategicpatch.StrategicMergeMapPatch does on
// the server (MergeParallelList and IgnoreUnmatchedNulls on): maps merge per key and `null`
// deletes; lists follow `schema` (merge by key, merge as a set, or replace); directives
// `$patch: replace|delete` (maps and list items), `$setElementOrder/<list>`,
// `$deleteFromPrimitiveList/<list>` and `$retainKeys` are honoured and never appear in the result.
//
// `patch` must be a JSON object (null is a no-op). On error `target` is untouched and the Status is
// kBadRequest for malformed directives or list items without their merge key, kInvalid for lists
// of lists, with upstream's messages.
//
// Where upstream leaves directive keys or nulls inside values it copies verbatim (replaced lists,
// appended list items, `$patch: replace` maps), the typed decode that follows upstream drops them;
// this function drops them itself so the stored object matches what upstream would store.
Status ApplyStrategicMergePatch(boost::json::value& target, const boost::json::value& patch,
                                const Schema& schema);

namespace internal {
// The in-place engine behind ApplyStrategicMergePatch. On error `target` is left half-patched, so
// callers pass a copy they can drop.
Status StrategicMergeInPlace(boost::json::object& target, const boost::json::object& patch,
                             const Schema& schema);
}  // namespace internal

}  // namespace svcplane::apiserver::patch
