#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/resources.h"
#include "apiserver/http/handler.h"
#include "apiserver/registry/types.h"
#include "base/result.h"

namespace svcplane::apiserver::rest {

// Go's strconv-free rule kube-apiserver applies to boolean query parameters: "0" and any case
// of "false" are false; everything else present (including "" and Python's "True") is true.
bool QueryBool(const http::Request& req, std::string_view name);

struct ListParams {
  registry::ListQuery query;
  bool watch = false;
  bool allow_bookmarks = false;
  bool send_initial_events = false;
  std::optional<int64_t> timeout_seconds;
};

// Parses and validates list/watch parameters (api-wire §3, §4): selectors (with the resource's
// field labels), limit/continue, resourceVersion(Match), watch options. `item_name` non-empty
// for a GET on an item path with watch=1, which means fieldSelector=metadata.name=<name>.
Result<ListParams> ParseListParams(const http::Request& req, const api::ResourceInfo& resource,
                                   std::string_view item_name);

// DeleteOptions from the body when it is non-empty, else from the query (never both).
Result<registry::DeleteOptions> ParseDeleteOptions(const http::Request& req);

// dryRun: absent → false, "All" → true, anything else → 422.
Result<bool> ParseDryRun(const http::Request& req);

}  // namespace svcplane::apiserver::rest
