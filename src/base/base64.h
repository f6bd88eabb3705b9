#pragma once

// Standard base64 (RFC 4648 alphabet, '=' padding), the form JSON gives to bytes: Go's
// encoding/json writes a []byte this way (protobuf bytes fields in JSON, RangeAllocation data),
// and svcplane's range records use it for their data.

#include <optional>
#include <string>
#include <string_view>

namespace svcplane {

std::string Base64(std::string_view in);
// nullopt on a character outside the alphabet; decoding stops at the first '='.
std::optional<std::string> Unbase64(std::string_view in);

}  // namespace svcplane
