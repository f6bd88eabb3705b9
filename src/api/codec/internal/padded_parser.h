#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

namespace svcplane::api::codec::internal {

// An on-demand parser with its own padded input buffer: simdjson reads up to SIMDJSON_PADDING
// bytes past the end of its input, so bodies are copied into a reused padded buffer. Keep one
// per thread and per use (a document parsed by one user stays valid only until that parser's
// next parse).
struct PaddedParser {
  simdjson::ondemand::parser parser;
  std::string buffer;

  simdjson::padded_string_view Pad(std::string_view json) {
    buffer.assign(json);
    buffer.reserve(json.size() + simdjson::SIMDJSON_PADDING);
    return simdjson::padded_string_view(buffer.data(), buffer.size(), buffer.capacity());
  }
};

}  // namespace svcplane::api::codec::internal
