#pragma once

// The protobuf schema of upstream's messages, read from our .proto text (api/codec/proto/*.proto,
// compiled into the binary). It drives the transcoding of what our structs keep as JSON
// (UnknownFields, RawJson) to and from the wire.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.h"

namespace svcplane::api::codec::internal {

enum class ProtoType : uint8_t {
  kDouble,
  kFloat,
  kInt64,
  kUint64,
  kInt32,
  kUint32,
  kSint32,
  kSint64,
  kFixed64,
  kFixed32,
  kSfixed64,
  kSfixed32,
  kBool,
  kString,
  kBytes,
  kMessage,
};

// Messages whose JSON form is not an object of their fields (apimachinery's custom marshalers).
enum class Special : uint8_t {
  kNone,
  kTime,         // metav1.Time: RFC 3339 string, seconds precision; null when zero
  kMicroTime,    // metav1.MicroTime: RFC 3339 with six fractional digits
  kIntOrString,  // intstr.IntOrString: number or string
  kQuantity,     // resource.Quantity: string
  kRawJson,      // metav1.FieldsV1, runtime.RawExtension: bytes field 1 holds JSON text
};

struct ProtoMessage;

struct ProtoField {
  std::string name;  // also the JSON name
  uint32_t number = 0;
  bool repeated = false;
  bool inline_json = false;             // Go embeds this struct inline in JSON (`json:",inline"`)
  bool is_map = false;                  // map<K, V>: repeated entry messages {key = 1, value = 2}
  ProtoType type = ProtoType::kString;  // the value type for maps
  ProtoType key_type = ProtoType::kString;  // maps only
  const ProtoMessage* message = nullptr;    // kMessage (map values too)
  std::string type_name;                    // fully qualified, while parsing
};

struct ProtoMessage {
  std::string full_name;  // "k8s.io.api.core.v1.Container"
  Special special = Special::kNone;
  std::vector<ProtoField> fields;  // declaration order, which is Go's JSON order

  const ProtoField* FieldByNumber(uint32_t number) const {
    return number < by_number.size() && by_number[number] >= 0 ? &fields[by_number[number]]
                                                               : nullptr;
  }
  const ProtoField* FieldByName(std::string_view name) const {
    auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : &fields[it->second];
  }

  std::vector<int16_t> by_number;
  std::vector<int16_t> number_order;  // field indexes by ascending number: Go's wire order
  std::unordered_map<std::string_view, int> by_name;
};

class ProtoSchema {
 public:
  // Parses .proto text (the subset our generator writes: package, message, optional/repeated,
  // map<K, V>, `// +inline`), then links every type reference; unknown types are an error.
  static Result<std::unique_ptr<ProtoSchema>> Parse(const std::vector<std::string_view>& files);

  // The schema compiled into svcplane (parsed once, on first use; never freed).
  static const ProtoSchema& Builtin();

  // By fully qualified name without the leading dot; nullptr if unknown.
  const ProtoMessage* Find(std::string_view full_name) const;
  size_t size() const { return messages_.size(); }

 private:
  std::unordered_map<std::string, std::unique_ptr<ProtoMessage>> messages_;
};

// The .proto files embedded at build time (generated proto_schema_data.cc).
std::vector<std::string_view> EmbeddedProtoFiles();

}  // namespace svcplane::api::codec::internal
