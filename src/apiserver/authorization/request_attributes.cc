#include "apiserver/authorization/request_attributes.h"

#include <cctype>
#include <span>
#include <string_view>

#include <boost/container/small_vector.hpp>

#include "api/selectors/field_selector.h"
#include "api/validation/names.h"

namespace svcplane::apiserver::authorization {
namespace {

// Built for every request, twice (the audit filter and the authorizer): the parts of a usual
// path fit inline, without an allocation.
using PathParts = boost::container::small_vector<std::string_view, 12>;

PathParts SplitPath(std::string_view path) {
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  PathParts parts;
  if (path.empty()) return parts;
  size_t start = 0;
  while (true) {
    size_t slash = path.find('/', start);
    parts.push_back(path.substr(start, slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return parts;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string VerbForMethod(std::string_view method) {
  if (method == "POST") return "create";
  if (method == "GET" || method == "HEAD") return "get";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return "delete";
  return "";
}

// metav1 Convert_Slice_string_To_bool: the first value; "0" and "false" (any case) are false,
// anything else (also "") true.
bool QueryBool(const http::Request& request, std::string_view key) {
  std::optional<std::string_view> v = request.Query(key);
  if (!v) return false;
  return !(*v == "0" || Lower(*v) == "false");
}

// ListOptions.FieldSelector.RequiresExactMatch("metadata.name"), kept only when it is a valid
// path segment; an unparsable selector gives no name (upstream resets the options).
std::string NameFromFieldSelector(const http::Request& request) {
  std::optional<std::string_view> raw = request.Query("fieldSelector");
  if (!raw) return "";
  auto selector = api::selectors::ParseFieldSelector(*raw);
  if (!selector.ok()) return "";
  std::optional<std::string_view> name = selector->RequiresExactMatch("metadata.name");
  if (!name || !api::validation::IsValidPathSegmentName(*name).empty()) return "";
  return std::string(*name);
}

}  // namespace

Attributes AttributesFromRequest(const http::Request& request) {
  Attributes a;
  a.user = &request.identity;
  a.path = request.path;
  a.verb = Lower(request.method);

  const PathParts parts = SplitPath(request.path);
  if (parts.size() < 3) return a;
  if (parts[0] != "api" && parts[0] != "apis") return a;
  size_t i = 1;
  if (parts[0] == "apis") {
    if (parts.size() < 4) return a;
    a.api_group = std::string(parts[1]);
    i = 2;
  }
  a.resource_request = true;
  a.api_version = std::string(parts[i++]);

  // /{specialVerb}/...: "watch" (legacy watch paths) and "proxy".
  bool proxy = false;
  if (parts[i] == "watch" || parts[i] == "proxy") {
    if (parts.size() - i < 2) {
      // Upstream answers an error here; authorize as the plain method on nothing.
      a.verb = VerbForMethod(request.method);
      return a;
    }
    a.verb = std::string(parts[i]);
    proxy = parts[i] == "proxy";
    ++i;
  } else {
    a.verb = VerbForMethod(request.method);
  }

  std::span<const std::string_view> rest(parts.data() + i, parts.size() - i);
  if (rest[0] == "namespaces" && rest.size() > 1) {
    a.ns = std::string(rest[1]);
    if (rest.size() > 2 && rest[2] != "status" && rest[2] != "finalize") rest = rest.subspan(2);
  }
  if (rest.size() >= 3 && !proxy) a.subresource = std::string(rest[2]);
  if (rest.size() >= 2) a.name = std::string(rest[1]);
  if (!rest.empty()) a.resource = std::string(rest[0]);

  bool legacy_watch = a.name.empty() && a.verb == "watch";
  bool collection = legacy_watch;
  if (a.name.empty() && (a.verb == "get" || a.verb == "delete")) {
    a.verb = a.verb == "delete"            ? "deletecollection"
             : QueryBool(request, "watch") ? "watch"
                                           : "list";
    a.name = NameFromFieldSelector(request);
    collection = true;
  }
  if (collection) {
    if (auto fs = request.Query("fieldSelector")) a.field_selector = std::string(*fs);
    if (auto ls = request.Query("labelSelector")) a.label_selector = std::string(*ls);
  }
  return a;
}

}  // namespace svcplane::apiserver::authorization
