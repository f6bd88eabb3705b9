#pragma once

#include <string>
#include <string_view>

#include "api/types.h"
#include "base/result.h"

namespace svcplane::api::codec {

// Typed JSON decode for every kind we serve, their Lists and meta.Status. Fields the model does
// not know are kept verbatim and written back by EncodeJson. Errors are kBadRequest with the JSON
// path of the offending value; nothing is partly returned.
template <typename T>
Result<T> DecodeJson(std::string_view json);

// Appends the JSON encoding of `obj` to `*out`, as kube-apiserver would write it.
template <typename T>
void EncodeJson(const T& obj, std::string* out);

template <typename T>
std::string EncodeJson(const T& obj) {
  std::string out;
  EncodeJson(obj, &out);
  return out;
}

// kind and apiVersion of a JSON object, without decoding the rest (to pick the typed decoder).
struct TypeMeta {
  std::string api_version;
  std::string kind;
};
Result<TypeMeta> PeekTypeMeta(std::string_view json);

// A client's JSON body as a log line embeds it (the audit log's requestObject): validated,
// re-serialized without whitespace, and, for an object, its metadata's namespace, name, uid and
// resourceVersion. kBadRequest if `json` is not valid JSON.
struct LoggedJson {
  std::string json;  // empty unless asked for
  std::string ns, name, uid, resource_version;
};
Result<LoggedJson> JsonForLog(std::string_view json, bool want_json);

// Watch events: {"type":"ADDED","object":{...}}.
struct RawWatchEvent {
  std::string type;    // ADDED | MODIFIED | DELETED | BOOKMARK | ERROR
  std::string object;  // raw JSON of the object
};
void EncodeWatchEvent(std::string_view type, std::string_view object_json, std::string* out);
Result<RawWatchEvent> DecodeWatchEvent(std::string_view json);

}  // namespace svcplane::api::codec
