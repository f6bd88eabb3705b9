#pragma once

#include <boost/json.hpp>

namespace svcplane::apiserver::openapi::internal {

// Rewrites the OpenAPI v3 pieces we generate (paths and components.schemas, see paths.h and
// schemas.h) as one Swagger 2.0 document, the shape kube-apiserver serves at /openapi/v2:
// references point at #/definitions/, a field's `allOf: [{$ref}]` becomes a plain `$ref` (v2
// consumers such as kube-openapi's proto models ignore allOf), query and path parameters carry
// their type inline, request bodies become `in: body` parameters with `consumes`, and response
// content becomes `schema` plus the operation's `produces`.
boost::json::object ToSwagger(boost::json::object info, boost::json::object v3_paths,
                              boost::json::object v3_schemas);

}  // namespace svcplane::apiserver::openapi::internal
