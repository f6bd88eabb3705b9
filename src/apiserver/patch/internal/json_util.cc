#include "apiserver/patch/internal/json_util.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <boost/json.hpp>

namespace svcplane::apiserver::patch::internal {

namespace json = boost::json;

std::string GoFormat(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null:
      return "<nil>";
    case json::kind::bool_:
      return v.get_bool() ? "true" : "false";
    case json::kind::int64:
      return std::to_string(v.get_int64());
    case json::kind::uint64:
      return std::to_string(v.get_uint64());
    case json::kind::double_:
      return fmt::format("{}", v.get_double());
    case json::kind::string:
      return std::string(v.get_string());
    case json::kind::array: {
      std::string out = "[";
      bool first = true;
      for (const json::value& e : v.get_array()) {
        if (!first) out += ' ';
        first = false;
        out += GoFormat(e);
      }
      return out + "]";
    }
    case json::kind::object: {
      std::vector<std::string_view> keys;
      for (const auto& kv : v.get_object()) keys.push_back(kv.key());
      std::sort(keys.begin(), keys.end());
      std::string out = "map[";
      bool first = true;
      for (std::string_view k : keys) {
        if (!first) out += ' ';
        first = false;
        out += k;
        out += ':';
        out += GoFormat(v.get_object().at(k));
      }
      return out + "]";
    }
  }
  return "";
}

const char* GoTypeName(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null:
      return "<nil>";
    case json::kind::bool_:
      return "bool";
    case json::kind::int64:
    case json::kind::uint64:
      return "int64";
    case json::kind::double_:
      return "float64";
    case json::kind::string:
      return "string";
    case json::kind::array:
      return "[]interface {}";
    case json::kind::object:
      return "map[string]interface {}";
  }
  return "";
}

namespace {
int GoTypeClass(json::kind k) {
  return k == json::kind::uint64 ? static_cast<int>(json::kind::int64) : static_cast<int>(k);
}
bool IsNumber(const json::value& v) { return v.is_number(); }
double AsDouble(const json::value& v) {
  switch (v.kind()) {
    case json::kind::int64:
      return static_cast<double>(v.get_int64());
    case json::kind::uint64:
      return static_cast<double>(v.get_uint64());
    default:
      return v.get_double();
  }
}
}  // namespace

bool SameGoType(const json::value& a, const json::value& b) {
  return GoTypeClass(a.kind()) == GoTypeClass(b.kind());
}

bool JsonEqualNumeric(const json::value& a, const json::value& b) {
  if (IsNumber(a) && IsNumber(b)) {
    if (a.is_double() || b.is_double()) return AsDouble(a) == AsDouble(b);
    return a == b;
  }
  if (a.kind() != b.kind()) return false;
  if (a.is_array()) {
    const json::array& x = a.get_array();
    const json::array& y = b.get_array();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!JsonEqualNumeric(x[i], y[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    const json::object& x = a.get_object();
    const json::object& y = b.get_object();
    if (x.size() != y.size()) return false;
    for (const auto& kv : x) {
      const json::value* other = y.if_contains(kv.key());
      if (other == nullptr || !JsonEqualNumeric(kv.value(), *other)) return false;
    }
    return true;
  }
  return a == b;
}

}  // namespace svcplane::apiserver::patch::internal
