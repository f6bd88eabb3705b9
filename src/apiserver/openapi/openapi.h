#pragma once

#include <map>
#include <string>
#include <string_view>

namespace svcplane::apiserver::openapi {

// What GET /openapi/v2 answers: 200 with a body, 304 (If-None-Match matched) or 406 (no
// acceptable format). The views point into the Documents they came from.
struct V2Response {
  int status = 200;
  std::string_view content_type;  // empty for 304 and 406
  std::string_view body;
  std::string_view etag;  // quoted; empty for 406
};

// The protobuf media types of /openapi/v2: client-go asks for the "@" spelling, kube-apiserver
// answers with the "." one.
inline constexpr std::string_view kV2ProtobufAccept =
    "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
inline constexpr std::string_view kV2ProtobufContentType =
    "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

// OpenAPI v3 documents for every group-version we serve and the Swagger 2.0 document of them all
// (/openapi/v2, as JSON and as gnostic protobuf), generated once from the reflected type
// definitions (api/meta/fields.h) and api::AllResources(), and kept as bytes. Immutable after
// construction; safe to read from any thread.
//
// kubectl <= 1.28 loads /openapi/v2 (protobuf only) before create/apply/explain even when v3 is
// served; newer ones use it for client-side validation when the server lacks fieldValidation
// for a kind (a `kind: List` manifest, for instance).
class Documents {
 public:
  Documents();

  // GET /openapi/v3: {"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=..."}}}.
  const std::string& Index() const { return index_; }
  // GET /openapi/v3/<path> with path "api/v1" or "apis/<group>/<version>" (any ?hash= value is
  // fine); nullptr → 404.
  const std::string* GroupVersion(std::string_view path) const;
  // The content hash advertised in the index for `path` ("" if unknown); usable as an ETag.
  std::string_view Hash(std::string_view path) const;

  // GET /openapi/v2, negotiated like kube-apiserver: the first Accept clause (by q, then
  // specificity) matching JSON or either protobuf spelling wins; no header means JSON. Both
  // formats share one ETag (the SHA-512 of the JSON) and answer 304 to a matching If-None-Match.
  V2Response ServeV2(std::string_view accept, std::string_view if_none_match) const;
  const std::string& SwaggerJson() const { return swagger_json_; }
  const std::string& SwaggerProtobuf() const { return swagger_proto_; }

 private:
  struct Doc {
    std::string body;
    std::string hash;
  };
  std::string index_;
  std::map<std::string, Doc, std::less<>> docs_;
  std::string swagger_json_;
  std::string swagger_proto_;
  std::string swagger_etag_;  // quoted
};

}  // namespace svcplane::apiserver::openapi
