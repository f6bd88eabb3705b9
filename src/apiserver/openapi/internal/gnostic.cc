#include "apiserver/openapi/internal/gnostic.h"

#include <bit>
#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "api/codec/internal/proto_wire.h"
#include "base/check.h"

namespace svcplane::apiserver::openapi::internal {
namespace {

namespace json = boost::json;
using api::codec::internal::ProtoWriter;

// Field numbers below are those of openapiv2/OpenAPIv2.proto (package openapi.v2).

enum class Kind { kString, kBool, kInt, kDouble, kStrings, kAny, kAnys, kMessage, kMessages };

using MessageFn = void (*)(ProtoWriter&, const json::value&);

struct Field {
  std::string_view key;  // the Swagger JSON key
  uint32_t number;
  Kind kind;
  MessageFn message = nullptr;  // kMessage(s): writes the body of one nested message
};

bool IsExtension(std::string_view key) { return key.starts_with("x-"); }

std::string_view Str(const json::value& v) {
  const json::string& s = v.as_string();
  return std::string_view(s.data(), s.size());
}

// message Any { google.protobuf.Any value = 1; string yaml = 2; }: gnostic keeps the YAML text.
void WriteAny(ProtoWriter& w, uint32_t number, const json::value& v) {
  size_t m = w.Begin(number);
  w.Bytes(2, json::serialize(v) + "\n");
  w.End(m);
}

// message NamedAny { string name = 1; Any value = 2; }
void WriteNamedAny(ProtoWriter& w, uint32_t number, std::string_view name, const json::value& v) {
  size_t m = w.Begin(number);
  w.Bytes(1, name);
  WriteAny(w, 2, v);
  w.End(m);
}

void WriteMessage(ProtoWriter& w, uint32_t number, MessageFn fn, const json::value& v) {
  size_t m = w.Begin(number);
  fn(w, v);
  w.End(m);
}

void WriteField(ProtoWriter& w, const Field& f, const json::value& v) {
  switch (f.kind) {
    case Kind::kString:
      if (!v.as_string().empty()) w.Bytes(f.number, Str(v));
      break;
    case Kind::kBool:
      if (v.as_bool()) w.Bool(f.number, true);
      break;
    case Kind::kInt:
      if (v.to_number<int64_t>() != 0) w.Int(f.number, v.to_number<int64_t>());
      break;
    case Kind::kDouble:
      if (v.to_number<double>() != 0) {
        w.Fixed64(f.number, std::bit_cast<uint64_t>(v.to_number<double>()));
      }
      break;
    case Kind::kStrings:
      for (const auto& s : v.as_array()) w.Bytes(f.number, Str(s));
      break;
    case Kind::kAny:
      WriteAny(w, f.number, v);
      break;
    case Kind::kAnys:
      for (const auto& e : v.as_array()) WriteAny(w, f.number, e);
      break;
    case Kind::kMessage:
      WriteMessage(w, f.number, f.message, v);
      break;
    case Kind::kMessages:
      for (const auto& e : v.as_array()) WriteMessage(w, f.number, f.message, e);
      break;
  }
}

// Writes the fields of `o` named in `fields` (ascending numbers), then every x- key as a
// NamedAny at `extensions` (0: none allowed). Any other key is a bug in our generators.
void WriteObject(ProtoWriter& w, const json::object& o, std::initializer_list<Field> fields,
                 uint32_t extensions) {
  for (const Field& f : fields) {
    auto it = o.find(json::string_view(f.key.data(), f.key.size()));
    if (it != o.end()) WriteField(w, f, it->value());
  }
  for (const auto& [key, value] : o) {
    std::string_view k(key.data(), key.size());
    if (IsExtension(k) && extensions != 0) {
      WriteNamedAny(w, extensions, k, value);
      continue;
    }
    bool known = false;
    for (const Field& f : fields) known = known || f.key == k;
    SVC_CHECK(known) << "no openapi.v2 field for Swagger key " << k;
  }
}

void WriteSchema(ProtoWriter& w, const json::value& v);

// message NamedSchema { string name = 1; Schema value = 2; }, repeated at `number`.
void WriteNamedSchemas(ProtoWriter& w, uint32_t number, const json::object& o) {
  for (const auto& [name, schema] : o) {
    size_t m = w.Begin(number);
    w.Bytes(1, std::string_view(name.data(), name.size()));
    WriteMessage(w, 2, WriteSchema, schema);
    w.End(m);
  }
}

// message Properties / Definitions { repeated NamedSchema additional_properties = 1; }
void WriteSchemaMap(ProtoWriter& w, const json::value& v) {
  WriteNamedSchemas(w, 1, v.as_object());
}

// message AdditionalPropertiesItem { oneof { Schema schema = 1; bool boolean = 2; } }
void WriteAdditionalProperties(ProtoWriter& w, const json::value& v) {
  if (v.is_bool()) {
    w.Bool(2, v.as_bool());  // a oneof member is written even when false
  } else {
    WriteMessage(w, 1, WriteSchema, v);
  }
}

// message TypeItem { repeated string value = 1; }
void WriteTypeItem(ProtoWriter& w, const json::value& v) {
  if (v.is_string()) {
    w.Bytes(1, Str(v));
  } else {
    for (const auto& t : v.as_array()) w.Bytes(1, Str(t));
  }
}

// message ItemsItem { repeated Schema schema = 1; }
void WriteItemsItem(ProtoWriter& w, const json::value& v) {
  if (v.is_array()) {
    for (const auto& s : v.as_array()) WriteMessage(w, 1, WriteSchema, s);
  } else {
    WriteMessage(w, 1, WriteSchema, v);
  }
}

void WriteSchema(ProtoWriter& w, const json::value& v) {
  const json::object& o = v.as_object();
  WriteObject(w, o,
              {{"$ref", 1, Kind::kString},
               {"format", 2, Kind::kString},
               {"title", 3, Kind::kString},
               {"description", 4, Kind::kString},
               {"default", 5, Kind::kAny},
               {"multipleOf", 6, Kind::kDouble},
               {"maximum", 7, Kind::kDouble},
               {"exclusiveMaximum", 8, Kind::kBool},
               {"minimum", 9, Kind::kDouble},
               {"exclusiveMinimum", 10, Kind::kBool},
               {"maxLength", 11, Kind::kInt},
               {"minLength", 12, Kind::kInt},
               {"pattern", 13, Kind::kString},
               {"maxItems", 14, Kind::kInt},
               {"minItems", 15, Kind::kInt},
               {"uniqueItems", 16, Kind::kBool},
               {"maxProperties", 17, Kind::kInt},
               {"minProperties", 18, Kind::kInt},
               {"required", 19, Kind::kStrings},
               {"enum", 20, Kind::kAnys},
               {"additionalProperties", 21, Kind::kMessage, WriteAdditionalProperties},
               {"type", 22, Kind::kMessage, WriteTypeItem},
               {"items", 23, Kind::kMessage, WriteItemsItem},
               {"allOf", 24, Kind::kMessages, WriteSchema},
               {"properties", 25, Kind::kMessage, WriteSchemaMap},
               {"discriminator", 26, Kind::kString},
               {"readOnly", 27, Kind::kBool},
               {"example", 30, Kind::kAny}},
              31);
}

// --- paths ---------------------------------------------------------------------------------

// Query and formData: QueryParameterSubSchema / FormDataParameterSubSchema (same numbers).
void WriteQueryParameter(ProtoWriter& w, const json::value& v) {
  WriteObject(w, v.as_object(),
              {{"required", 1, Kind::kBool},
               {"in", 2, Kind::kString},
               {"description", 3, Kind::kString},
               {"name", 4, Kind::kString},
               {"allowEmptyValue", 5, Kind::kBool},
               {"type", 6, Kind::kString},
               {"format", 7, Kind::kString},
               {"collectionFormat", 9, Kind::kString},
               {"default", 10, Kind::kAny},
               {"maximum", 11, Kind::kDouble},
               {"minimum", 13, Kind::kDouble},
               {"maxLength", 15, Kind::kInt},
               {"minLength", 16, Kind::kInt},
               {"pattern", 17, Kind::kString},
               {"uniqueItems", 20, Kind::kBool},
               {"enum", 21, Kind::kAnys}},
              23);
}

// Path and header: PathParameterSubSchema / HeaderParameterSubSchema (same numbers).
void WritePathParameter(ProtoWriter& w, const json::value& v) {
  WriteObject(w, v.as_object(),
              {{"required", 1, Kind::kBool},
               {"in", 2, Kind::kString},
               {"description", 3, Kind::kString},
               {"name", 4, Kind::kString},
               {"type", 5, Kind::kString},
               {"format", 6, Kind::kString},
               {"collectionFormat", 8, Kind::kString},
               {"default", 9, Kind::kAny},
               {"maximum", 10, Kind::kDouble},
               {"minimum", 12, Kind::kDouble},
               {"maxLength", 14, Kind::kInt},
               {"minLength", 15, Kind::kInt},
               {"pattern", 16, Kind::kString},
               {"uniqueItems", 19, Kind::kBool},
               {"enum", 20, Kind::kAnys}},
              22);
}

// message NonBodyParameter { oneof { header = 1; form_data = 2; query = 3; path = 4; } }
void WriteNonBodyParameter(ProtoWriter& w, const json::value& v) {
  std::string_view in = Str(v.at("in"));
  if (in == "header") {
    WriteMessage(w, 1, WritePathParameter, v);
  } else if (in == "formData") {
    WriteMessage(w, 2, WriteQueryParameter, v);
  } else if (in == "query") {
    WriteMessage(w, 3, WriteQueryParameter, v);
  } else {
    SVC_CHECK(in == "path") << "parameter in " << in;
    WriteMessage(w, 4, WritePathParameter, v);
  }
}

// message BodyParameter
void WriteBodyParameter(ProtoWriter& w, const json::value& v) {
  WriteObject(w, v.as_object(),
              {{"description", 1, Kind::kString},
               {"name", 2, Kind::kString},
               {"in", 3, Kind::kString},
               {"required", 4, Kind::kBool},
               {"schema", 5, Kind::kMessage, WriteSchema}},
              6);
}

// message Parameter { oneof { BodyParameter body_parameter = 1; NonBodyParameter = 2; } }
void WriteParameter(ProtoWriter& w, const json::value& v) {
  if (Str(v.at("in")) == "body") {
    WriteMessage(w, 1, WriteBodyParameter, v);
  } else {
    WriteMessage(w, 2, WriteNonBodyParameter, v);
  }
}

// message JsonReference { string _ref = 1; string description = 2; }
void WriteJsonReference(ProtoWriter& w, const json::value& v) {
  WriteObject(w, v.as_object(), {{"$ref", 1, Kind::kString}, {"description", 2, Kind::kString}}, 0);
}

// message ParametersItem { oneof { Parameter parameter = 1; JsonReference json_reference = 2; } }
void WriteParametersItem(ProtoWriter& w, const json::value& v) {
  if (v.as_object().contains("$ref")) {
    WriteMessage(w, 2, WriteJsonReference, v);
  } else {
    WriteMessage(w, 1, WriteParameter, v);
  }
}

// message SchemaItem { oneof { Schema schema = 1; FileSchema file_schema = 2; } }
void WriteSchemaItem(ProtoWriter& w, const json::value& v) { WriteMessage(w, 1, WriteSchema, v); }

// message Response
void WriteResponse(ProtoWriter& w, const json::value& v) {
  WriteObject(w, v.as_object(),
              {{"description", 1, Kind::kString}, {"schema", 2, Kind::kMessage, WriteSchemaItem}},
              5);
}

// message Responses { repeated NamedResponseValue response_code = 1; vendor_extension = 2; }
void WriteResponses(ProtoWriter& w, const json::value& v) {
  for (const auto& [code, r] : v.as_object()) {
    std::string_view name(code.data(), code.size());
    if (IsExtension(name)) continue;
    size_t m = w.Begin(1);
    w.Bytes(1, name);
    size_t value = w.Begin(2);  // ResponseValue { Response response = 1; JsonReference = 2; }
    if (r.as_object().contains("$ref")) {
      WriteMessage(w, 2, WriteJsonReference, r);
    } else {
      WriteMessage(w, 1, WriteResponse, r);
    }
    w.End(value);
    w.End(m);
  }
  for (const auto& [key, value] : v.as_object()) {
    std::string_view k(key.data(), key.size());
    if (IsExtension(k)) WriteNamedAny(w, 2, k, value);
  }
}

// message Operation
void WriteOperation(ProtoWriter& w, const json::value& v) {
  const json::object& o = v.as_object();
  WriteObject(w, o,
              {{"tags", 1, Kind::kStrings},
               {"summary", 2, Kind::kString},
               {"description", 3, Kind::kString},
               {"operationId", 5, Kind::kString},
               {"produces", 6, Kind::kStrings},
               {"consumes", 7, Kind::kStrings},
               {"parameters", 8, Kind::kMessages, WriteParametersItem},
               {"responses", 9, Kind::kMessage, WriteResponses},
               {"schemes", 10, Kind::kStrings},
               {"deprecated", 11, Kind::kBool}},
              13);
}

// message PathItem
void WritePathItem(ProtoWriter& w, const json::value& v) {
  WriteObject(w, v.as_object(),
              {{"$ref", 1, Kind::kString},
               {"get", 2, Kind::kMessage, WriteOperation},
               {"put", 3, Kind::kMessage, WriteOperation},
               {"post", 4, Kind::kMessage, WriteOperation},
               {"delete", 5, Kind::kMessage, WriteOperation},
               {"options", 6, Kind::kMessage, WriteOperation},
               {"head", 7, Kind::kMessage, WriteOperation},
               {"patch", 8, Kind::kMessage, WriteOperation},
               {"parameters", 9, Kind::kMessages, WriteParametersItem}},
              10);
}

// message Paths { repeated NamedAny vendor_extension = 1; repeated NamedPathItem path = 2; }
void WritePaths(ProtoWriter& w, const json::value& v) {
  const json::object& o = v.as_object();
  for (const auto& [key, value] : o) {
    std::string_view k(key.data(), key.size());
    if (IsExtension(k)) WriteNamedAny(w, 1, k, value);
  }
  for (const auto& [key, value] : o) {
    std::string_view k(key.data(), key.size());
    if (IsExtension(k)) continue;
    size_t m = w.Begin(2);  // NamedPathItem { string name = 1; PathItem value = 2; }
    w.Bytes(1, k);
    WriteMessage(w, 2, WritePathItem, value);
    w.End(m);
  }
}

// message Info
void WriteInfo(ProtoWriter& w, const json::value& v) {
  WriteObject(w, v.as_object(),
              {{"title", 1, Kind::kString},
               {"version", 2, Kind::kString},
               {"description", 3, Kind::kString},
               {"termsOfService", 4, Kind::kString}},
              7);
}

}  // namespace

std::string EncodeGnosticDocument(const json::object& swagger) {
  std::string out;
  out.reserve(1 << 19);
  ProtoWriter w(&out);
  WriteObject(w, swagger,
              {{"swagger", 1, Kind::kString},
               {"info", 2, Kind::kMessage, WriteInfo},
               {"host", 3, Kind::kString},
               {"basePath", 4, Kind::kString},
               {"schemes", 5, Kind::kStrings},
               {"consumes", 6, Kind::kStrings},
               {"produces", 7, Kind::kStrings},
               {"paths", 8, Kind::kMessage, WritePaths},
               {"definitions", 9, Kind::kMessage, WriteSchemaMap}},
              16);
  return out;
}

}  // namespace svcplane::apiserver::openapi::internal
