#include "apiserver/patch/json_patch.h"

#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <boost/json.hpp>

#include "apiserver/patch/internal/json_util.h"
#include "base/result.h"

namespace svcplane::apiserver::patch {
namespace {

namespace json = boost::json;

// An operation failed; the caller adds the op index, name and path.
struct OpError {
  std::string detail;
};

// decodePatchKey: "~1" -> "/", then "~0" -> "~".
std::string DecodeToken(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && token[i + 1] == '1') {
      out += '/';
      ++i;
    } else {
      out += token[i];
    }
  }
  std::string result;
  result.reserve(out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '~' && i + 1 < out.size() && out[i + 1] == '0') {
      result += '~';
      ++i;
    } else {
      result += out[i];
    }
  }
  return result;
}

// strconv.Atoi: optional sign and decimal digits.
std::optional<long long> Atoi(std::string_view s) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  long long v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// Resolves an array index for get/set/remove (0 <= idx < size, negatives from the end).
std::optional<size_t> ExistingIndex(const json::array& arr, std::string_view key,
                                    std::string* err) {
  std::optional<long long> idx = Atoi(key);
  if (!idx) {
    *err = fmt::format("strconv.Atoi: parsing \"{}\": invalid syntax", key);
    return std::nullopt;
  }
  long long n = static_cast<long long>(arr.size());
  long long i = *idx;
  if (i < 0) {
    if (i < -n) {
      *err = fmt::format("Unable to access invalid index: {}", i);
      return std::nullopt;
    }
    i += n;
  }
  if (i >= n) {
    *err = fmt::format("Unable to access invalid index: {}", i);
    return std::nullopt;
  }
  return static_cast<size_t>(i);
}

// findObject: the container of the last token, and that token decoded. Null when the path does
// not start with '/' or an intermediate value is missing or not a container.
json::value* FindObject(json::value& doc, std::string_view path, std::string* key) {
  if (path.empty() || path[0] != '/') return nullptr;
  std::vector<std::string_view> parts;
  size_t start = 1;
  while (true) {
    size_t slash = path.find('/', start);
    parts.push_back(path.substr(start, slash == std::string_view::npos ? slash : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  json::value* cur = &doc;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    std::string token = DecodeToken(parts[i]);
    json::value* next = nullptr;
    if (cur->is_object()) {
      next = cur->get_object().if_contains(token);
    } else if (cur->is_array()) {
      std::string ignored;
      if (auto idx = ExistingIndex(cur->get_array(), token, &ignored)) {
        next = &cur->get_array()[*idx];
      }
    }
    if (next == nullptr || !(next->is_object() || next->is_array())) return nullptr;
    cur = next;
  }
  if (!(cur->is_object() || cur->is_array())) return nullptr;
  *key = DecodeToken(parts.back());
  return cur;
}

// Value at (container, key); null pointer when absent. Errors only for malformed array indexes.
std::optional<OpError> Get(json::value& con, const std::string& key, json::value** out) {
  *out = nullptr;
  if (con.is_object()) {
    *out = con.get_object().if_contains(key);
    return std::nullopt;
  }
  std::string err;
  auto idx = ExistingIndex(con.get_array(), key, &err);
  if (!idx) return OpError{err};
  *out = &con.get_array()[*idx];
  return std::nullopt;
}

std::optional<OpError> Add(json::value& con, const std::string& key, json::value val) {
  if (con.is_object()) {
    con.get_object()[key] = std::move(val);
    return std::nullopt;
  }
  json::array& arr = con.get_array();
  if (key == "-") {
    arr.push_back(std::move(val));
    return std::nullopt;
  }
  std::optional<long long> idx = Atoi(key);
  if (!idx) return OpError{fmt::format("value was not a proper array index: '{}'", key)};
  long long sz = static_cast<long long>(arr.size()) + 1;
  long long i = *idx;
  if (i >= sz) return OpError{fmt::format("Unable to access invalid index: {}", i)};
  if (i < 0) {
    if (i < -sz) return OpError{fmt::format("Unable to access invalid index: {}", i)};
    i += sz;
  }
  arr.insert(arr.begin() + i, std::move(val));
  return std::nullopt;
}

std::optional<OpError> Remove(json::value& con, const std::string& key) {
  if (con.is_object()) {
    if (con.get_object().erase(key) == 0) {
      return OpError{fmt::format("Unable to remove nonexistent key: {}: missing value", key)};
    }
    return std::nullopt;
  }
  std::string err;
  auto idx = ExistingIndex(con.get_array(), key, &err);
  if (!idx) return OpError{err};
  con.get_array().erase(con.get_array().begin() + *idx);
  return std::nullopt;
}

const json::value* Field(const json::object& op, std::string_view name) {
  return op.if_contains(name);
}

std::optional<OpError> ApplyOne(json::value& doc, const json::object& op, std::string_view kind,
                                std::string_view path) {
  const json::value* value = Field(op, "value");
  json::value null_value;
  const json::value& val = value != nullptr ? *value : null_value;
  std::string key;
  if (kind == "add") {
    json::value* con = FindObject(doc, path, &key);
    if (con == nullptr) return OpError{"add operation does not apply: doc is missing path"};
    return Add(*con, key, val);
  }
  if (kind == "remove") {
    json::value* con = FindObject(doc, path, &key);
    if (con == nullptr) return OpError{"remove operation does not apply: doc is missing path"};
    return Remove(*con, key);
  }
  if (kind == "replace") {
    json::value* con = FindObject(doc, path, &key);
    if (con == nullptr) return OpError{"replace operation does not apply: doc is missing path"};
    json::value* cur = nullptr;
    if (auto err = Get(*con, key, &cur)) {
      return OpError{"replace operation does not apply: doc is missing key"};
    }
    // evanphx/json-patch v4 (used upstream) lets "replace" create a missing object key.
    if (cur == nullptr) return Add(*con, key, val);
    *cur = val;
    return std::nullopt;
  }
  if (kind == "move" || kind == "copy") {
    const json::value* from = Field(op, "from");
    if (from == nullptr || !from->is_string()) {
      return OpError{fmt::format("{} operation missing from field", kind)};
    }
    std::string from_key;
    json::value* from_con = FindObject(doc, from->get_string(), &from_key);
    if (from_con == nullptr) {
      return OpError{fmt::format("{} operation does not apply: doc is missing from path: {}", kind,
                                 std::string_view(from->get_string()))};
    }
    json::value* source = nullptr;
    if (auto err = Get(*from_con, from_key, &source)) return err;
    if (source == nullptr) {
      return OpError{fmt::format("{} operation does not apply: doc is missing from path: {}", kind,
                                 std::string_view(from->get_string()))};
    }
    json::value moved = *source;
    if (kind == "move") {
      if (auto err = Remove(*from_con, from_key)) return err;
    }
    json::value* con = FindObject(doc, path, &key);
    if (con == nullptr) {
      return OpError{
          fmt::format("{} operation does not apply: doc is missing destination path", kind)};
    }
    return Add(*con, key, std::move(moved));
  }
  if (kind == "test") {
    json::value* con = FindObject(doc, path, &key);
    if (con == nullptr) return OpError{"test operation failed, unable to find container"};
    json::value* cur = nullptr;
    if (auto err = Get(*con, key, &cur)) return err;
    if (cur == nullptr || cur->is_null()) {
      if (val.is_null()) return std::nullopt;
      return OpError{fmt::format("testing value {} failed: test failed", path)};
    }
    if (internal::JsonEqualNumeric(*cur, val)) return std::nullopt;
    return OpError{fmt::format("testing value {} failed: test failed", path)};
  }
  return OpError{fmt::format("Unexpected kind: {}", kind)};
}

}  // namespace

namespace internal {
Status JsonPatchInPlace(json::value& doc, const json::value& patch) {
  // DecodePatch: an array of objects, else 400.
  if (!patch.is_array()) {
    return BadRequestError("json: cannot unmarshal into Go value of type jsonpatch.Patch");
  }
  const json::array& ops = patch.get_array();
  for (const json::value& op : ops) {
    if (!op.is_object()) {
      return BadRequestError("json: cannot unmarshal into Go value of type jsonpatch.Operation");
    }
  }
  if (ops.size() > kMaxJsonPatchOperations) {
    return Status(Code::kRequestEntityTooLarge,
                  fmt::format("Request entity too large: The allowed maximum operations in a JSON "
                              "patch is {}, got {}",
                              kMaxJsonPatchOperations, ops.size()));
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    const json::object& op = ops[i].get_object();
    const json::value* kind_value = Field(op, "op");
    std::string_view kind = kind_value != nullptr && kind_value->is_string()
                                ? std::string_view(kind_value->get_string())
                                : std::string_view("unknown");
    const json::value* path_value = Field(op, "path");
    std::optional<OpError> err;
    std::string_view path;
    if (path_value == nullptr || !path_value->is_string()) {
      err = OpError{"operation missing path field"};
    } else {
      path = path_value->get_string();
      err = ApplyOne(doc, op, kind, path);
    }
    if (err) {
      return InvalidError(fmt::format("json patch operation {} ({}) on path \"{}\" failed: {}", i,
                                      kind, path, err->detail));
    }
  }
  return Status::Ok();
}
}  // namespace internal

Status ApplyJsonPatch(json::value& doc, const json::value& patch) {
  json::value result = doc;
  SVC_RETURN_IF_ERROR(internal::JsonPatchInPlace(result, patch));
  doc = std::move(result);
  return Status::Ok();
}

}  // namespace svcplane::apiserver::patch
