#pragma once

#include <string>
#include <string_view>

#include "api/resources.h"
#include "base/result.h"

namespace svcplane::apiserver::rest {

// What a resource URL names (api-wire §1):
//   /api/v1/{resource}[/{name}[/{sub}]]                      cluster-scoped, or all namespaces
//   /api/v1/namespaces/{ns}/{resource}[/{name}[/{sub}]]      namespaced
//   /apis/{group}/{version}/...                              the same under a group
struct RequestInfo {
  const api::ResourceInfo* resource = nullptr;
  std::string ns;    // empty: cluster-scoped, or a namespaced collection across namespaces
  std::string name;  // empty: the collection
  std::string subresource;
};

// NotFound (the generic 404 message) for anything that is not a served resource path.
Result<RequestInfo> ParseResourcePath(std::string_view path);

inline constexpr std::string_view kNotFoundMessage =
    "the server could not find the requested resource";

}  // namespace svcplane::apiserver::rest
