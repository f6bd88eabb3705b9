#include "apiserver/rest/resource_handler.h"

#include <boost/json/parse.hpp>

namespace svcplane::apiserver::rest {

http::Response JsonResponse(int status, std::string body, std::string_view content_type) {
  http::Response r;
  r.status = status;
  r.body = std::move(body);
  if (!content_type.empty()) r.content_type = std::string(content_type);
  return r;
}

namespace {

std::string_view MediaType(const http::Request& req) {
  std::string_view ct = req.Header("Content-Type").value_or("");
  ct = ct.substr(0, ct.find(';'));
  while (!ct.empty() && ct.back() == ' ') ct.remove_suffix(1);
  return ct;
}

}  // namespace

bool IsJsonBody(const http::Request& req) {
  std::string_view ct = MediaType(req);
  return ct.empty() || ct == "application/json" || ct == "*/*";
}

Result<std::string> RequestBodyJson(const http::Request& req) {
  std::string_view ct = MediaType(req);
  if (IsJsonBody(req)) return req.body;
  if (ct == "application/yaml" || ct == "application/x-yaml" || ct == "text/yaml") {
    auto docs = api::codec::YamlToJson(req.body);
    if (!docs.ok()) return docs.status();
    if (docs->size() != 1) return BadRequestError("expected exactly one YAML document");
    return std::move((*docs)[0]);
  }
  return Status(Code::kUnsupportedMediaType,
                "the body of the request was in an unknown format - accepted media types "
                "include: application/json, application/yaml, "
                "application/vnd.kubernetes.protobuf");
}

Result<boost::json::object> ApplyBody(std::string_view body) {
  auto docs = api::codec::YamlToJson(body);
  if (!docs.ok()) return BadRequestError("error decoding YAML: " + docs.status().message());
  // Like yaml.Unmarshal, the first document only; none (or null) is an empty object.
  if (docs->empty()) return boost::json::object();
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(docs->front(), ec);
  if (ec) return BadRequestError("error decoding YAML: " + ec.message());
  if (v.is_object()) return std::move(v.as_object());
  if (v.is_null()) return boost::json::object();
  // What Go's json.Unmarshal says for a value that is not a map.
  std::string_view what = v.is_string()  ? "string"
                          : v.is_array() ? "array"
                          : v.is_bool()  ? "bool"
                                         : "number";
  return BadRequestError(std::string("error decoding YAML: json: cannot unmarshal ") +
                         std::string(what) + " into Go value of type map[string]interface {}");
}

bool AcceptsProtobuf(std::string_view accept) {
  for (const auto& mr : table::ParseAccept(accept)) {
    const bool conversion =
        !mr.Param("as").empty() || !mr.Param("g").empty() || !mr.Param("v").empty();
    if (mr.type == "application" && mr.subtype == "vnd.kubernetes.protobuf") {
      if (!conversion) return true;
      continue;  // a protobuf Table or PartialObjectMetadata: not served, try the next clause
    }
    std::string clause = mr.type + "/" + mr.subtype;
    for (const auto& [k, v] : mr.params) clause += ";" + k + "=" + v;
    if (table::NegotiateResponse(clause) != table::ResponseFormat::kNotAcceptable) return false;
  }
  return false;
}

bool IsProtobufBody(const http::Request& req) {
  std::string_view ct = req.Header("Content-Type").value_or("");
  ct = ct.substr(0, ct.find(';'));
  while (!ct.empty() && ct.back() == ' ') ct.remove_suffix(1);
  return ct == api::codec::kProtobufContentType;
}

http::Response ProtobufResponse(int status, std::string body) {
  http::Response r;
  r.status = status;
  r.body = std::move(body);
  r.content_type = std::string(api::codec::kProtobufContentType);
  return r;
}

std::string WatchLine(std::string_view type, std::string_view object_json) {
  std::string out;
  out.reserve(object_json.size() + type.size() + 24);
  api::codec::EncodeWatchEvent(type, object_json, &out);
  out.push_back('\n');
  return out;
}

void AppendWatchLine(std::string_view type, const registry::ObjectJson& object, std::string* out) {
  out->append("{\"type\":\"");
  out->append(type);
  out->append("\",\"object\":");
  object.AppendTo(out);
  out->append("}\n");
}

}  // namespace svcplane::apiserver::rest
