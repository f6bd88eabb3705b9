#pragma once

#include <string>
#include <string_view>

namespace svcplane {

// Appends `s` as a JSON string literal, quotes included, escaped as Go's encoding/json does:
// `"` `\` and control characters, plus <, >, & and U+2028/U+2029 (as \u003c, \u2028...), so
// that our bytes match kube-apiserver's and client-go's. Bytes >= 0x80 are copied as they are
// (the caller owns UTF-8 validity). Also a valid YAML double-quoted scalar for any input.
void AppendJsonString(std::string& out, std::string_view s);

// AppendJsonString into a new string.
std::string JsonQuote(std::string_view s);

}  // namespace svcplane
