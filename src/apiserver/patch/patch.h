#pragma once

#include <string_view>

#include <boost/json/value.hpp>

#include "base/result.h"
#include "base/status.h"

namespace svcplane::apiserver::patch {

// The PATCH body formats of the Kubernetes API, selected by Content-Type.
enum class PatchType {
  kJsonPatch,       // application/json-patch+json (RFC 6902)
  kMergePatch,      // application/merge-patch+json (RFC 7386)
  kStrategicMerge,  // application/strategic-merge-patch+json
  kApply,           // application/apply-patch+yaml (server-side apply: registry/apply.h)
};

std::string_view PatchTypeMediaType(PatchType type);

// Maps a Content-Type header to a patch type; parameters (";charset=utf-8") and case are ignored.
// Anything else is kUnsupportedMediaType with upstream's message listing the accepted types.
Result<PatchType> ParsePatchType(std::string_view content_type);

// The one entry point of the REST layer: applies `patch_body` of `type` to `current`, an object
// of `kind` ("Pod", "Service", ...), and returns the patched object. Pure: `current` is never
// modified, so any error leaves the stored object as it was.
//
// Errors: kBadRequest for a body that is not JSON or has the wrong shape; kRequestEntityTooLarge
// for more than 10000 JSON patch operations; kInvalid when a JSON patch operation or test fails;
// kInternal for apply patches (the field manager merges those, never this function);
// kUnsupportedMediaType for strategic merge patches on kinds without a strategic schema (as
// upstream does for CRDs).
Result<boost::json::value> ApplyPatch(PatchType type, std::string_view kind,
                                      const boost::json::value& current,
                                      std::string_view patch_body);

}  // namespace svcplane::apiserver::patch
