// GET /openapi/v2 content negotiation, following kube-openapi's handler (goautoneg clause order,
// 406 when nothing matches) and net/http's ServeContent (If-None-Match → 304).
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "apiserver/openapi/openapi.h"

namespace svcplane::apiserver::openapi {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    size_t i = s.find(sep);
    out.push_back(Trim(s.substr(0, i)));
    if (i == std::string_view::npos) return out;
    s.remove_prefix(i + 1);
  }
}

struct Clause {
  std::string_view type;
  std::string_view subtype;
  double q = 1.0;
};

// goautoneg.ParseAccept: clauses by descending q, then concrete types before wildcards.
std::vector<Clause> ParseAccept(std::string_view accept) {
  std::vector<Clause> out;
  for (std::string_view part : Split(accept, ',')) {
    std::vector<std::string_view> params = Split(part, ';');
    size_t slash = params[0].find('/');
    if (slash == std::string_view::npos) continue;
    Clause c{Trim(params[0].substr(0, slash)), Trim(params[0].substr(slash + 1))};
    for (size_t i = 1; i < params.size(); ++i) {
      size_t eq = params[i].find('=');
      if (eq == std::string_view::npos || Trim(params[i].substr(0, eq)) != "q") continue;
      std::string value(Trim(params[i].substr(eq + 1)));
      char* end = nullptr;
      double q = std::strtod(value.c_str(), &end);
      c.q = end == value.c_str() ? 0 : q;
    }
    if (c.q > 0) out.push_back(c);
  }
  std::stable_sort(out.begin(), out.end(), [](const Clause& a, const Clause& b) {
    if (a.q != b.q) return a.q > b.q;
    if ((a.type == "*") != (b.type == "*")) return b.type == "*";
    return a.subtype != "*" && b.subtype == "*";
  });
  return out;
}

// net/http's checkIfNoneMatch with a weak comparison: "*" or any listed tag equal to `etag`.
bool NoneMatchHits(std::string_view if_none_match, std::string_view etag) {
  for (std::string_view tag : Split(if_none_match, ',')) {
    if (tag == "*") return true;
    if (tag.starts_with("W/")) tag.remove_prefix(2);
    if (tag == etag) return true;
  }
  return false;
}

}  // namespace

V2Response Documents::ServeV2(std::string_view accept, std::string_view if_none_match) const {
  struct Offer {
    std::string_view subtype;
    std::string_view content_type;
    const std::string* body;
  };
  const Offer offers[] = {
      {"json", "application/json", &swagger_json_},
      {kV2ProtobufAccept.substr(kV2ProtobufAccept.find('/') + 1), kV2ProtobufContentType,
       &swagger_proto_},
      {kV2ProtobufContentType.substr(kV2ProtobufContentType.find('/') + 1), kV2ProtobufContentType,
       &swagger_proto_},
  };
  if (Trim(accept).empty()) accept = "*/*";
  for (const Clause& c : ParseAccept(accept)) {
    for (const Offer& o : offers) {
      if (c.type != "application" && c.type != "*") continue;
      if (c.subtype != o.subtype && c.subtype != "*") continue;
      if (!if_none_match.empty() && NoneMatchHits(if_none_match, swagger_etag_)) {
        return V2Response{304, {}, {}, swagger_etag_};
      }
      return V2Response{200, o.content_type, *o.body, swagger_etag_};
    }
  }
  return V2Response{406, {}, {}, {}};
}

}  // namespace svcplane::apiserver::openapi
