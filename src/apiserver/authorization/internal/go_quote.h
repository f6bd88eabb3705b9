#pragma once

#include <string>
#include <string_view>
#include <vector>

// Go's fmt verbs that upstream messages are built with, so our texts match byte for byte.
namespace svcplane::apiserver::authorization::internal {

// %q of a string (strconv.Quote): "..." with \" \\ \n \t ... escapes, other control bytes and
// invalid UTF-8 as \xNN; valid multi-byte UTF-8 is kept.
std::string GoQuote(std::string_view s);
void AppendGoQuote(std::string_view s, std::string* out);

// %q of a []string: ["a" "b"].
std::string GoQuoteList(const std::vector<std::string>& values);

}  // namespace svcplane::apiserver::authorization::internal
