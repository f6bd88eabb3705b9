#pragma once

#include <cstddef>
#include <string_view>

#include <boost/json/value.hpp>

#include "base/status.h"

namespace svcplane::apiserver::patch {

// The API server's limit on operations in one JSON patch (maxJSONPatchOperations upstream).
inline constexpr size_t kMaxJsonPatchOperations = 10000;

// Applies an RFC 6902 JSON patch (`patch` must be the parsed array of operations) to `doc` with
// evanphx/json-patch v4 semantics, which the API server uses: add/remove/replace/move/copy/test,
// RFC 6901 pointers (`~0`, `~1`), `-` appends, negative array indexes count from the end, a `test`
// against a missing or null value passes when the expected value is null.
//
// Errors (and `doc` is then untouched):
//   kBadRequest            the patch is not an array of objects
//   kRequestEntityTooLarge more than kMaxJsonPatchOperations operations
//   kInvalid               an operation failed; the message names its index, op and path
Status ApplyJsonPatch(boost::json::value& doc, const boost::json::value& patch);

namespace internal {
// The in-place engine behind ApplyJsonPatch: same errors, but on an operation failure `doc` keeps
// the earlier operations, so callers pass a copy they can drop.
Status JsonPatchInPlace(boost::json::value& doc, const boost::json::value& patch);
}  // namespace internal

}  // namespace svcplane::apiserver::patch
