#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <boost/json/value.hpp>

namespace svcplane::apiserver::fieldmanager::internal {

// Go's %q (strconv.Quote), which upstream uses for strings in conflict paths and manager names.
// Printable runes stay as they are; the common non-printable ones (C0/C1 controls, DEL, the
// Unicode line separators, the BOM and non-ASCII spaces) are escaped the way Go escapes them,
// and bytes that are not UTF-8 print as \xNN.
std::string GoQuote(std::string_view s);

// Whether Go's unicode.IsPrint holds for `r`, for the same subset of runes as GoQuote.
bool GoIsPrint(uint32_t r);

// Decodes the UTF-8 sequence at s[i] into *rune; returns its length, or 0 when it is invalid.
size_t DecodeUtf8(std::string_view s, size_t i, uint32_t* rune);

// Appends `v` as jsoniter's standard-library mode writes the decoded interface{} (Go's
// encoding/json): compact, map keys sorted, <, > and & escaped, floats in Go's shortest form.
// With sort_keys false, objects keep their order (for re-emitting JSON that was canonical).
void AppendGoJson(std::string& out, const boost::json::value& v, bool sort_keys = true);

}  // namespace svcplane::apiserver::fieldmanager::internal
