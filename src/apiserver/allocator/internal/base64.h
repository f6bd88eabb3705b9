#pragma once

// Standard base64 (RFC 4648 alphabet, '=' padding), the form JSON gives to bytes: Go's
// encoding/json writes a []byte this way, and svcplane's range records use it for their data.

#include <optional>
#include <string>
#include <string_view>

namespace svcplane::apiserver::allocator::internal {

std::string Base64(std::string_view in);
// nullopt on a character outside the alphabet; decoding stops at the first '='.
std::optional<std::string> Unbase64(std::string_view in);

}  // namespace svcplane::apiserver::allocator::internal
