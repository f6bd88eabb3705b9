#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace svcplane::apiserver::table {

// One clause of an Accept header: "application/json;as=Table;v=v1;g=meta.k8s.io".
// type/subtype are lower-cased; parameter names are lower-cased, values kept (quotes removed).
struct MediaRange {
  std::string type;
  std::string subtype;
  std::vector<std::pair<std::string, std::string>> params;

  // "" when absent.
  std::string_view Param(std::string_view name) const;
};

// Splits an Accept header into its clauses, in order. Malformed clauses (no '/') are dropped.
std::vector<MediaRange> ParseAccept(std::string_view accept);

// What a GET/LIST/WATCH response should be encoded as (api-wire §11).
enum class ResponseFormat {
  kJson,                   // the object itself
  kTableV1,                // meta.k8s.io/v1 Table
  kTableV1beta1,           // meta.k8s.io/v1beta1 Table (same shape, other apiVersion)
  kPartialObjectMetadata,  // PartialObjectMetadata / PartialObjectMetadataList (meta.k8s.io/v1)
  kNotAcceptable,          // answer 406
};

// Walks the clauses in order like kube-apiserver: application/json, application/*, */* match;
// as/g/v select a conversion, allowed only to Table (v1, v1beta1) and PartialObjectMetadata[List]
// (v1); clauses asking for anything else, and protobuf/CBOR/YAML clauses, are skipped. An empty
// header means JSON. Nothing matched → kNotAcceptable.
ResponseFormat NegotiateResponse(std::string_view accept);

// The Content-Type kube-apiserver answers with for a negotiated format, e.g.
// "application/json;as=Table;v=v1;g=meta.k8s.io" (kubectl also accepts plain application/json).
// `list` picks PartialObjectMetadataList over PartialObjectMetadata. "" for kNotAcceptable.
std::string_view ResponseContentType(ResponseFormat format, bool list);

}  // namespace svcplane::apiserver::table
