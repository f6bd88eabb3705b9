#pragma once

// Schema-driven transcoding between JSON text and the protobuf wire format, for the parts of an
// object our structs keep as JSON (UnknownFields, RawJson). JSON names are the proto field
// names (Kubernetes' generator makes them equal); apimachinery's special messages (Time,
// MicroTime, IntOrString, Quantity, FieldsV1, RawExtension) get their custom JSON forms, and
// `+inline` fields are flattened into their parent's JSON object as Go does.
//
// Zero values: Go's Marshal writes every non-pointer scalar, so the wire cannot tell "absent"
// from "zero". Going to JSON we drop empty strings (almost all string fields are omitempty) but
// keep zero numbers and false (a pointer's 0/false, e.g. runAsUser: 0, must survive).

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/codec/internal/json_writer.h"
#include "api/codec/internal/proto_schema.h"
#include "api/codec/internal/proto_wire.h"

namespace svcplane::api::codec::internal {

// Writes field `f` (tags included; every element of a repeated field or map) from the JSON text
// of its value. JSON null writes nothing. False with *error set on a type mismatch.
bool JsonFieldToProto(const ProtoField& f, std::string_view json, ProtoWriter& w,
                      std::string* error);

// The encoded fields of a JSON object's members, for merging into a message by number.
struct FieldSpan {
  uint32_t number;
  size_t offset;  // into the output buffer
  size_t size;
};
// Encodes every member of `json_object` that is a field of `m` (and not skipped) into `*out`,
// one span per member, sorted by field number. Members that do not fit the schema are dropped.
// One parse for all the members: the unknown fields of a struct go through here.
bool JsonMembersToProto(const ProtoMessage& m, std::string_view json_object, bool (*skip)(uint32_t),
                        std::string* out, std::vector<FieldSpan>* spans, std::string* error);

// Writes the body (no tag, no length) of message `m` from the JSON text of its value.
bool JsonMessageToProto(const ProtoMessage& m, std::string_view json, ProtoWriter& w,
                        std::string* error);

// One occurrence of a field on the wire.
struct WireValue {
  WireType wt;
  std::string_view raw;  // ProtoReader::ReadRaw's view
};

// Appends the JSON value of field `f` from all its occurrences (in wire order).
bool ProtoFieldToJson(const ProtoField& f, std::span<const WireValue> values, JsonWriter& w,
                      std::string* error);

// Appends the JSON value of message `m` from its body.
bool ProtoMessageToJson(const ProtoMessage& m, std::string_view body, JsonWriter& w,
                        std::string* error);

// True for a field ProtoFieldToJson would leave out of JSON (a single empty string).
bool OmitInJson(const ProtoField& f, std::span<const WireValue> values);

}  // namespace svcplane::api::codec::internal
