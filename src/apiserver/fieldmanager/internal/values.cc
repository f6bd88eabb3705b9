#include "apiserver/fieldmanager/internal/values.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <vector>

#include <boost/json/serialize.hpp>

namespace svcplane::apiserver::fieldmanager::internal {

namespace json = boost::json;

namespace {

bool IsNumber(const json::value& v) { return v.is_int64() || v.is_uint64() || v.is_double(); }

double AsDouble(const json::value& v) {
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  return v.get_double();
}

bool NumbersEqual(const json::value& a, const json::value& b) {
  if (a.is_double() || b.is_double()) return AsDouble(a) == AsDouble(b);
  if (a.is_int64() && b.is_int64()) return a.get_int64() == b.get_int64();
  if (a.is_uint64() && b.is_uint64()) return a.get_uint64() == b.get_uint64();
  // One int64, one uint64: equal only when both are non-negative and the same.
  const json::value& i = a.is_int64() ? a : b;
  const json::value& u = a.is_int64() ? b : a;
  return i.get_int64() >= 0 && static_cast<uint64_t>(i.get_int64()) == u.get_uint64();
}

std::string Number(const json::value& v) {
  if (v.is_int64()) return std::to_string(v.get_int64());
  if (v.is_uint64()) return std::to_string(v.get_uint64());
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v.get_double());
  return ec == std::errc() ? std::string(buf, end) : std::string("0");
}

std::vector<std::string_view> SortedKeys(const json::object& o) {
  std::vector<std::string_view> keys;
  keys.reserve(o.size());
  for (const auto& kv : o) keys.emplace_back(kv.key());
  std::sort(keys.begin(), keys.end());
  return keys;
}

// Go's %v of an interface{} (maps print with sorted keys).
void AppendV(const json::value& v, std::string* out) {
  switch (v.kind()) {
    case json::kind::null:
      *out += "<nil>";
      return;
    case json::kind::bool_:
      *out += v.get_bool() ? "true" : "false";
      return;
    case json::kind::string:
      out->append(v.get_string().data(), v.get_string().size());
      return;
    case json::kind::array: {
      *out += '[';
      bool first = true;
      for (const auto& e : v.get_array()) {
        if (!first) *out += ' ';
        first = false;
        AppendV(e, out);
      }
      *out += ']';
      return;
    }
    case json::kind::object: {
      *out += "map[";
      bool first = true;
      for (auto k : SortedKeys(v.get_object())) {
        if (!first) *out += ' ';
        first = false;
        out->append(k);
        *out += ':';
        AppendV(v.get_object().at(k), out);
      }
      *out += ']';
      return;
    }
    default:
      *out += Number(v);
  }
}

// Go's %#v of an interface{}.
void AppendSharpV(const json::value& v, std::string* out) {
  switch (v.kind()) {
    case json::kind::null:
      *out += "interface {}(nil)";
      return;
    case json::kind::bool_:
      *out += v.get_bool() ? "true" : "false";
      return;
    case json::kind::string:
      *out += json::serialize(v);
      return;
    case json::kind::array: {
      *out += "[]interface {}{";
      bool first = true;
      for (const auto& e : v.get_array()) {
        if (!first) *out += ", ";
        first = false;
        AppendSharpV(e, out);
      }
      *out += '}';
      return;
    }
    case json::kind::object: {
      *out += "map[string]interface {}{";
      bool first = true;
      for (auto k : SortedKeys(v.get_object())) {
        if (!first) *out += ", ";
        first = false;
        *out += json::serialize(json::string_view(k.data(), k.size()));
        *out += ':';
        AppendSharpV(v.get_object().at(k), out);
      }
      *out += '}';
      return;
    }
    default:
      *out += Number(v);
  }
}

}  // namespace

bool ValuesEqual(const json::value& a, const json::value& b) {
  if (IsNumber(a) || IsNumber(b)) return IsNumber(a) && IsNumber(b) && NumbersEqual(a, b);
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case json::kind::array: {
      const auto& x = a.get_array();
      const auto& y = b.get_array();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!ValuesEqual(x[i], y[i])) return false;
      }
      return true;
    }
    case json::kind::object: {
      const auto& x = a.get_object();
      const auto& y = b.get_object();
      if (x.size() != y.size()) return false;
      for (const auto& kv : x) {
        const json::value* other = y.if_contains(kv.key());
        if (!other || !ValuesEqual(kv.value(), *other)) return false;
      }
      return true;
    }
    default:
      return a == b;
  }
}

std::string GoTypeName(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null:
      return "<nil>";
    case json::kind::bool_:
      return "bool";
    case json::kind::string:
      return "string";
    case json::kind::array:
      return "[]interface {}";
    case json::kind::object:
      return "map[string]interface {}";
    case json::kind::double_:
      return "float64";
    default:
      return "int64";
  }
}

std::string GoPointerValue(const json::value& v) {
  std::string out = "&{";
  AppendV(v, &out);
  out += '}';
  return out;
}

std::string GoPointerSharpValue(const json::value& v) {
  std::string out = "&value.valueUnstructured{Value:";
  AppendSharpV(v, &out);
  out += '}';
  return out;
}

}  // namespace svcplane::apiserver::fieldmanager::internal
