#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "base/status.h"

namespace svcplane::apiserver::patch {

// Applies an RFC 7386 JSON merge patch with evanphx/json-patch's MergePatch semantics: objects
// merge recursively, `null` deletes a key, anything else (lists included) replaces, and nulls are
// pruned from the values the patch adds. A patch that is not an object is kBadRequest
// ("Invalid JSON Patch"); `doc` is then untouched.
Status ApplyMergePatch(boost::json::value& doc, const boost::json::value& patch);

namespace internal {
// The in-place engine: merges `patch` into `doc`, which must be an object. Cannot fail.
void MergePatchInPlace(boost::json::object& doc, const boost::json::object& patch);
}  // namespace internal

}  // namespace svcplane::apiserver::patch
