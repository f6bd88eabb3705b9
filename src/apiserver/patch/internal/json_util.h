#pragma once

#include <string>

#include <boost/json/value.hpp>

namespace svcplane::apiserver::patch::internal {

// Formats a JSON value the way Go's fmt "%v" prints the decoded interface{} (map[k:v ...] with
// sorted keys, [a b], <nil>), so that error messages read like upstream's mergepatch errors.
std::string GoFormat(const boost::json::value& v);

// Go's reflect type of a decoded value, in words ("string", "int64", "map", ...), for
// "expected a X, but received a Y" style messages.
const char* GoTypeName(const boost::json::value& v);

// True when both values have the same Go dynamic type after decoding with PreserveInts
// (int64 vs float64 differ; int64 and uint64 are both integers).
bool SameGoType(const boost::json::value& a, const boost::json::value& b);

// JSON equality where numbers compare by numeric value (1 == 1.0), as evanphx/json-patch's
// "test" does after decoding both sides.
bool JsonEqualNumeric(const boost::json::value& a, const boost::json::value& b);

}  // namespace svcplane::apiserver::patch::internal
