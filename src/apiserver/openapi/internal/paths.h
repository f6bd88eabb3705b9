#pragma once

#include <boost/json.hpp>
#include <string_view>

#include "api/resources.h"

namespace svcplane::apiserver::openapi::internal {

// Adds to `paths` every operation served for `r` (collection, item, subresources and the
// all-namespaces list), with upstream's operationIds, query parameters and request/response
// content types. `schema` and `list_schema` are the component names of the kind and its List;
// `scale_schema` that of autoscaling/v1 Scale, for a resource serving the scale subresource.
void AddResourcePaths(const api::ResourceInfo& r, std::string_view schema,
                      std::string_view list_schema, boost::json::object* paths,
                      std::string_view scale_schema = {});

}  // namespace svcplane::apiserver::openapi::internal
