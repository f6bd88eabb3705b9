#include "api/codec/internal/json_writer.h"

#include "api/codec/internal/json_encode.h"
#include "base/base64.h"
#include "base/json_string.h"

namespace svcplane::api::codec::internal {

void JsonWriter::String(std::string_view s) { AppendJsonString(*out_, s); }

void EncodeValue(JsonWriter& w, const meta::Bytes& v) {
  w.Char('"');
  w.Raw(Base64(v.data));  // the base64 alphabet needs no escaping
  w.Char('"');
}

}  // namespace svcplane::api::codec::internal
