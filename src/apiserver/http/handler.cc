#include "apiserver/http/handler.h"

#include <strings.h>

namespace svcplane::apiserver::http {

std::optional<std::string_view> Request::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k.size() == name.size() && ::strncasecmp(k.data(), name.data(), k.size()) == 0) return v;
  }
  return std::nullopt;
}

std::optional<std::string_view> Request::Query(std::string_view name) const {
  for (const auto& [k, v] : query) {
    if (k == name) return v;
  }
  return std::nullopt;
}

const std::string& DrainBody(Response& r) {
  if (!r.body_source) return r.body;
  r.body.clear();
  while (r.body_source(&r.body)) {
  }
  r.body_source = nullptr;  // a source runs once
  return r.body;
}

}  // namespace svcplane::apiserver::http
