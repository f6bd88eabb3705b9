#pragma once

// Server-side field validation (`?fieldValidation=Strict|Warn`): the strict decoding problems of
// a JSON document, as kube-apiserver's strict JSON decoder (sigs.k8s.io/json UnmarshalStrict)
// reports them. The source of truth for "known" is upstream's schema (our .proto text, whose
// field names are the JSON names), not our model: parts the model keeps as raw JSON (volumes,
// probes, resources...) are checked too.

#include <string>
#include <string_view>
#include <vector>

#include "api/codec/internal/proto_names.h"

namespace svcplane::api::codec {

struct StrictOptions {
  bool unknown_fields = true;    // `unknown field "spec.bogus"`
  bool duplicate_fields = true;  // `duplicate field "metadata.name"`
};

// The problems of `json`, an object of the message `message_full_name`
// ("k8s.io.api.core.v1.Service"; "" walks no schema: duplicates only, as for a patch body, which
// upstream decodes into a map[string]interface{} or []jsonPatchOp), in document order:
//   unknown field "spec.bogus"         a member the type does not have (its value is not walked)
//   duplicate field "metadata.name"    a member seen before in the same object or map
// Paths are dotted, with "[i]" for list items; map keys are path segments ("metadata.labels.a").
// Values with a custom JSON form (Time, Quantity, IntOrString, RawExtension, FieldsV1) are not
// looked into. kind and apiVersion are known at the top. At most 100 problems, each once, as
// upstream. Malformed JSON yields what was found before the fault: the decoder reports it.
std::vector<std::string> StrictDecodingErrors(std::string_view json,
                                              std::string_view message_full_name,
                                              StrictOptions options = {});

template <typename T>
std::vector<std::string> StrictDecodingErrors(std::string_view json, StrictOptions options = {}) {
  static const std::string name = ProtoName(meta::Tag<T>{});
  return StrictDecodingErrors(json, name, options);
}

// `json` without the members StrictDecodingErrors reports as unknown (at any depth), as
// upstream's decoder drops them under Warn and Ignore; everything else is copied as it was
// (duplicates too). Malformed JSON is returned unchanged (the decoder reports it).
std::string PruneUnknownFields(std::string_view json, std::string_view message_full_name);

template <typename T>
std::string PruneUnknownFields(std::string_view json) {
  static const std::string name = ProtoName(meta::Tag<T>{});
  return PruneUnknownFields(json, name);
}

// For a JSON patch body (a list of operations {op, path, from, value}): upstream decodes it
// strictly into []jsonPatchOp and prefixes each problem with "json patch ".
std::vector<std::string> JsonPatchStrictErrors(std::string_view json);

// "strict decoding error: " + the problems joined with ", " (runtime.NewStrictDecodingError).
std::string StrictDecodingErrorMessage(const std::vector<std::string>& problems);

}  // namespace svcplane::api::codec
