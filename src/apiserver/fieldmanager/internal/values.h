#pragma once

// JSON values as SMD's value package sees them: equality, and the Go fmt renderings that
// SMD's validation errors embed (the values are Go interface{}s held by *value.valueUnstructured).

#include <string>

#include <boost/json/value.hpp>

namespace svcplane::apiserver::fieldmanager::internal {

// value.Equals: deep equality where numbers compare by value (80 == 80.0), maps by key set.
bool ValuesEqual(const boost::json::value& a, const boost::json::value& b);

// Go's %T of the decoded value: "string", "int64", "float64", "bool", "map[string]interface {}",
// "[]interface {}", "<nil>".
std::string GoTypeName(const boost::json::value& v);
// %v of the *value.valueUnstructured holding v: "&{80}", "&{abc}", "&{map[a:b]}".
std::string GoPointerValue(const boost::json::value& v);
// %#v of it: `&value.valueUnstructured{Value:"abc"}`.
std::string GoPointerSharpValue(const boost::json::value& v);

}  // namespace svcplane::apiserver::fieldmanager::internal
