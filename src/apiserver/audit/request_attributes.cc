#include "apiserver/audit/request_attributes.h"

#include <string>
#include <string_view>
#include <vector>

namespace svcplane::apiserver::audit {
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

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string ResourceVerb(std::string_view method) {
  if (method == "POST") return "create";
  if (method == "GET" || method == "HEAD") return "get";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return "delete";
  return "";
}

bool WatchRequested(const http::Request& req) {
  auto w = req.Query("watch");
  return w.has_value() && *w != "false" && *w != "0";
}

}  // namespace

authorization::Attributes RequestAttributes(const http::Request& req) {
  authorization::Attributes a;
  a.user = &req.identity;
  a.path = req.path;
  auto seg = Split(req.path);
  size_t rest = 0;
  if (seg.size() >= 3 && seg[0] == "api") {
    a.api_version = seg[1];
    rest = 2;
  } else if (seg.size() >= 4 && seg[0] == "apis") {
    a.api_group = seg[1];
    a.api_version = seg[2];
    rest = 3;
  } else {
    a.verb = Lower(req.method);
    return a;
  }
  a.resource_request = true;
  a.verb = ResourceVerb(req.method);
  std::vector<std::string_view> r(seg.begin() + static_cast<long>(rest), seg.end());
  if (!r.empty() && r[0] == "watch") {  // legacy /api/v1/watch/...
    a.verb = "watch";
    r.erase(r.begin());
  }
  if (r.size() >= 2 && r[0] == "namespaces") {
    a.ns = r[1];
    // /namespaces/{ns} and /namespaces/{ns}/status|finalize name the namespace itself.
    if (r.size() == 2 || r[2] == "status" || r[2] == "finalize") {
      a.resource = "namespaces";
      a.name = r[1];
      if (r.size() >= 3) a.subresource = r[2];
      r.clear();
    } else {
      r.erase(r.begin(), r.begin() + 2);
    }
  }
  if (!r.empty()) {
    a.resource = r[0];
    if (r.size() >= 2) a.name = r[1];
    if (r.size() >= 3) a.subresource = r[2];
  }
  if (a.name.empty() && a.verb == "get") a.verb = WatchRequested(req) ? "watch" : "list";
  if (a.name.empty() && a.verb == "delete") a.verb = "deletecollection";
  if (a.verb == "list" || a.verb == "watch" || a.verb == "deletecollection") {
    if (auto fs = req.Query("fieldSelector")) {
      a.field_selector = std::string(*fs);
      if (fs->starts_with("metadata.name=") && fs->find(',') == std::string_view::npos) {
        a.name = std::string(fs->substr(14));
      }
    }
    if (auto ls = req.Query("labelSelector")) a.label_selector = std::string(*ls);
  }
  return a;
}

}  // namespace svcplane::apiserver::audit
