#pragma once

#include <boost/json.hpp>
#include <string_view>

namespace svcplane::apiserver::openapi::internal {

// Schemas for upstream fields that our model keeps verbatim (Container env, probes, resources,
// PodSpec affinity, volumes...). kubectl apply walks the schema along every map and list it
// diffs and gives up with "error calculating patch" on a field it cannot find, so the common
// shapes are spelled out here by hand, with their strategic-merge keys.

// Extra (or replacing) properties for a generated component; nullptr if none.
const boost::json::object* OverlayProperties(std::string_view schema);
// The hand-written components those properties refer to.
const boost::json::object& OverlayComponents();

}  // namespace svcplane::apiserver::openapi::internal
