#include "apiserver/table/accept.h"

#include <algorithm>
#include <cctype>

namespace svcplane::apiserver::table {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Splits on `sep` outside double quotes.
std::vector<std::string_view> SplitUnquoted(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"') quoted = !quoted;
    if (s[i] == sep && !quoted) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(s.substr(start));
  return parts;
}

}  // namespace

std::string_view MediaRange::Param(std::string_view name) const {
  for (const auto& [k, v] : params) {
    if (k == name) return v;
  }
  return {};
}

std::vector<MediaRange> ParseAccept(std::string_view accept) {
  std::vector<MediaRange> out;
  for (std::string_view clause : SplitUnquoted(accept, ',')) {
    auto pieces = SplitUnquoted(clause, ';');
    std::string_view full = Trim(pieces[0]);
    size_t slash = full.find('/');
    if (slash == std::string_view::npos) continue;
    MediaRange mr;
    mr.type = Lower(Trim(full.substr(0, slash)));
    mr.subtype = Lower(Trim(full.substr(slash + 1)));
    if (mr.type.empty() || mr.subtype.empty()) continue;
    for (size_t i = 1; i < pieces.size(); ++i) {
      std::string_view p = Trim(pieces[i]);
      size_t eq = p.find('=');
      if (eq == std::string_view::npos) continue;
      std::string_view value = Trim(p.substr(eq + 1));
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
        value = value.substr(1, value.size() - 2);
      }
      mr.params.emplace_back(Lower(Trim(p.substr(0, eq))), std::string(value));
    }
    out.push_back(std::move(mr));
  }
  return out;
}

ResponseFormat NegotiateResponse(std::string_view accept) {
  if (Trim(accept).empty()) return ResponseFormat::kJson;
  for (const MediaRange& mr : ParseAccept(accept)) {
    bool json = (mr.type == "application" && (mr.subtype == "json" || mr.subtype == "*")) ||
                (mr.type == "*" && mr.subtype == "*");
    if (!json) continue;
    std::string_view as = mr.Param("as");
    std::string_view g = mr.Param("g");
    std::string_view v = mr.Param("v");
    if (as.empty() && g.empty() && v.empty()) return ResponseFormat::kJson;
    if (g != "meta.k8s.io") continue;
    if (as == "Table") {
      if (v == "v1") return ResponseFormat::kTableV1;
      if (v == "v1beta1") return ResponseFormat::kTableV1beta1;
      continue;
    }
    if ((as == "PartialObjectMetadata" || as == "PartialObjectMetadataList") && v == "v1") {
      return ResponseFormat::kPartialObjectMetadata;
    }
  }
  return ResponseFormat::kNotAcceptable;
}

std::string_view ResponseContentType(ResponseFormat format, bool list) {
  switch (format) {
    case ResponseFormat::kJson:
      return "application/json";
    case ResponseFormat::kTableV1:
      return "application/json;as=Table;v=v1;g=meta.k8s.io";
    case ResponseFormat::kTableV1beta1:
      return "application/json;as=Table;v=v1beta1;g=meta.k8s.io";
    case ResponseFormat::kPartialObjectMetadata:
      return list ? "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"
                  : "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io";
    case ResponseFormat::kNotAcceptable:
      return "";
  }
  return "";
}

}  // namespace svcplane::apiserver::table
