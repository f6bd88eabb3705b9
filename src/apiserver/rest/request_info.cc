#include "apiserver/rest/request_info.h"

#include <vector>

namespace svcplane::apiserver::rest {
namespace {

std::vector<std::string_view> Split(std::string_view path) {
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

Status NotFound() { return NotFoundError(std::string(kNotFoundMessage)); }

}  // namespace

Result<RequestInfo> ParseResourcePath(std::string_view path) {
  auto seg = Split(path);
  std::string_view group, version;
  size_t rest = 0;
  if (seg.size() >= 3 && seg[0] == "api") {
    version = seg[1];
    rest = 2;
  } else if (seg.size() >= 4 && seg[0] == "apis") {
    group = seg[1];
    version = seg[2];
    rest = 3;
  } else {
    return NotFound();
  }
  RequestInfo info;
  std::vector<std::string_view> r(seg.begin() + static_cast<long>(rest), seg.end());
  std::string_view resource;
  if (r.size() >= 3 && r[0] == "namespaces" && r[2] != "status" && r[2] != "finalize") {
    info.ns = std::string(r[1]);
    resource = r[2];
    if (r.size() > 5) return NotFound();
    if (r.size() >= 4) info.name = std::string(r[3]);
    if (r.size() == 5) info.subresource = std::string(r[4]);
  } else {
    resource = r[0];
    if (r.size() > 3) return NotFound();
    if (r.size() >= 2) info.name = std::string(r[1]);
    if (r.size() == 3) info.subresource = std::string(r[2]);
  }
  const api::ResourceInfo* res = api::FindResource(group, version, resource);
  if (res == nullptr) return NotFound();
  if (!res->namespaced && !info.ns.empty()) return NotFound();
  if (res->namespaced && info.ns.empty() && !info.name.empty()) return NotFound();
  if (!info.subresource.empty() && !res->HasSubresource(info.subresource)) return NotFound();
  info.resource = res;
  return info;
}

}  // namespace svcplane::apiserver::rest
