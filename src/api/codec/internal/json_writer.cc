#include "api/codec/internal/json_writer.h"

#include "base/json_string.h"

namespace svcplane::api::codec::internal {

void JsonWriter::String(std::string_view s) { AppendJsonString(*out_, s); }

}  // namespace svcplane::api::codec::internal
