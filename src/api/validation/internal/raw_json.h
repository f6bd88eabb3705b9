#pragma once

// A small reader for the few raw-JSON fields (container `resources`) that defaulting and the
// Pod QoS computation look into. The codec has already checked the text is valid JSON; on
// anything unexpected these return nullopt and callers leave the field alone.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace svcplane::api::validation::internal {

// Members of a JSON object in document order: (unescaped key, raw value text).
using RawMembers = std::vector<std::pair<std::string, std::string>>;
std::optional<RawMembers> ParseObjectMembers(std::string_view json);

// The value of a JSON string or number as text ("\"250m\"" -> "250m", "2" -> "2").
std::optional<std::string> ScalarText(std::string_view raw_value);

}  // namespace svcplane::api::validation::internal
