#include "apiserver/rest/router.h"

#include <array>
#include <chrono>
#include <span>
#include <variant>
#include <vector>

namespace svcplane::apiserver::rest {
namespace {

http::Response NotFoundResponse() {
  return ErrorResponse(NotFoundError(std::string(kNotFoundMessage)));
}

std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') ++i;
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) out.push_back(path.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

void Router::Add(std::string_view group, std::string_view resource,
                 std::unique_ptr<Endpoint> endpoint) {
  endpoints_[std::string(group) + "/" + std::string(resource)] = std::move(endpoint);
}

http::Reply Router::Discovery(const http::Request& req, bool* handled) {
  *handled = true;
  auto seg = Segments(req.path);
  const bool aggregated = discovery::AcceptsAggregated(req.Header("Accept").value_or(""));
  auto doc = [](const std::string& body, std::string_view type = "application/json") {
    return http::Reply(JsonResponse(200, body, type));
  };
  if (seg.size() == 1 && seg[0] == "version") return doc(discovery_->Version());
  if (seg.size() == 1 && seg[0] == "api") {
    return aggregated ? doc(discovery_->AggregatedApi(), discovery::kAggregatedContentType)
                      : doc(discovery_->LegacyApi());
  }
  if (seg.size() == 1 && seg[0] == "apis") {
    return aggregated ? doc(discovery_->AggregatedApis(), discovery::kAggregatedContentType)
                      : doc(discovery_->LegacyApis());
  }
  if (seg.size() == 2 && seg[0] == "api") {
    const std::string* list = discovery_->ResourceList("", seg[1]);
    return list ? doc(*list) : http::Reply(NotFoundResponse());
  }
  if (seg.size() == 2 && seg[0] == "apis") {
    const std::string* group = discovery_->Group(seg[1]);
    return group ? doc(*group) : http::Reply(NotFoundResponse());
  }
  if (seg.size() == 3 && seg[0] == "apis") {
    const std::string* list = discovery_->ResourceList(seg[1], seg[2]);
    return list ? doc(*list) : http::Reply(NotFoundResponse());
  }
  if (seg.size() >= 2 && seg[0] == "openapi" && seg[1] == "v3") {
    if (seg.size() == 2) return doc(openapi_->Index());
    std::string_view rest = req.path;
    rest.remove_prefix(rest.find("v3/") + 3);
    const std::string* gv = openapi_->GroupVersion(rest);
    if (!gv) return http::Reply(NotFoundResponse());
    http::Response r = JsonResponse(200, *gv);
    r.headers.emplace_back("ETag", "\"" + std::string(openapi_->Hash(rest)) + "\"");
    return http::Reply(std::move(r));
  }
  if (seg.size() == 2 && seg[0] == "openapi" && seg[1] == "v2") {  // JSON or protobuf
    openapi::V2Response v2 = openapi_->ServeV2(req.Header("Accept").value_or(""),
                                               req.Header("If-None-Match").value_or(""));
    http::Response r;
    r.status = v2.status;
    if (!v2.content_type.empty()) r.content_type = v2.content_type;
    r.body = v2.body;
    r.headers.emplace_back("Vary", "Accept");
    if (!v2.etag.empty()) r.headers.emplace_back("ETag", std::string(v2.etag));
    return http::Reply(std::move(r));
  }
  if (seg.size() >= 1 && seg[0] == "openapi") return http::Reply(NotFoundResponse());
  *handled = false;
  return http::Reply(NotFoundResponse());
}

http::Reply Router::Handle(const http::Request& req) {
  auto info = ParseResourcePath(req.path);
  if (!info.ok()) {
    bool handled = false;
    http::Reply r = Discovery(req, &handled);
    if (handled && req.method != "GET") {
      return ErrorResponse(Status(Code::kMethodNotAllowed,
                                  "the server does not allow this method on the requested "
                                  "resource"));
    }
    return r;
  }
  auto it = endpoints_.find(std::string(info->resource->group) + "/" +
                            std::string(info->resource->resource));
  if (it == endpoints_.end()) return NotFoundResponse();
  if (!metrics_) return it->second->Handle(req, *info);
  const auto start = std::chrono::steady_clock::now();
  http::Reply reply = it->second->Handle(req, *info);
  const auto* response = std::get_if<http::Response>(&reply);
  metrics_->Record(req, *info, response ? response->status : 200,
                   std::chrono::steady_clock::now() - start);
  return reply;
}

bool RunsOnIoThread(const http::Request& req) {
  auto info = ParseResourcePath(req.path);
  if (!info.ok()) return false;
  const std::string_view resource = info->resource->resource;
  if (info->resource->group.empty() &&
      (resource == "services" || resource == "events" || resource == "namespaces")) {
    return false;
  }
  if (info->name.empty()) return req.method == "POST";
  return !req.Query("watch").has_value();
}

bool IsLongRunning(const http::Request& req) {
  if (auto watch = req.Query("watch"); watch && *watch != "false" && *watch != "0") return true;
  // Runs for every request: the segments go into a fixed array, not a heap-allocated vector.
  std::array<std::string_view, 9> seg_buf;
  size_t n = 0;
  for (std::string_view rest = req.path; !rest.empty() && n < seg_buf.size();) {
    rest.remove_prefix(1);
    const size_t slash = rest.find('/');
    seg_buf[n++] = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  }
  const std::span<const std::string_view> seg(seg_buf.data(), n);
  // After "api/<version>" or "apis/<group>/<version>": "watch/...", or
  // [namespaces/<ns>/]<resource>/<name>/<subresource>. Subresources this server does not serve
  // count too: upstream decides before routing.
  size_t prefix = 0;
  if (seg.size() >= 2 && seg[0] == "api") prefix = 2;
  if (seg.size() >= 3 && seg[0] == "apis") prefix = 3;
  if (prefix == 0 || seg.size() <= prefix) return false;
  if (seg[prefix] == "watch") return true;
  const size_t rest = seg.size() - prefix;
  const bool has_subresource = rest == 3 || (rest == 5 && seg[prefix] == "namespaces");
  if (!has_subresource) return false;
  for (std::string_view sub : {"exec", "attach", "portforward", "proxy", "log"}) {
    if (seg.back() == sub) return true;
  }
  return false;
}

}  // namespace svcplane::apiserver::rest
