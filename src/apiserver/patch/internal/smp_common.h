#pragma once

// Shared vocabulary of the strategic merge engine: directive names, element kinds and the errors
// worded as k8s.io/apimachinery/pkg/util/mergepatch.

#include <string_view>

#include <fmt/format.h>
#include <boost/json.hpp>

#include "apiserver/patch/internal/json_util.h"
#include "base/status.h"

namespace svcplane::apiserver::patch::internal {

namespace json = boost::json;

inline constexpr std::string_view kDirectiveMarker = "$patch";
inline constexpr std::string_view kDeleteDirective = "delete";
inline constexpr std::string_view kReplaceDirective = "replace";
inline constexpr std::string_view kMergeDirective = "merge";
inline constexpr std::string_view kRetainKeysDirective = "$retainKeys";
inline constexpr std::string_view kDeleteFromPrimitiveListPrefix = "$deleteFromPrimitiveList";
inline constexpr std::string_view kSetElementOrderPrefix = "$setElementOrder";

enum class ElemKind { kMap, kScalar };

// --- errors, worded as k8s.io/apimachinery/pkg/util/mergepatch ---

inline Status ErrBadPatchFormatForPrimitiveList() {
  return BadRequestError("invalid patch format of primitive list");
}
inline Status ErrBadPatchFormatForRetainKeys() {
  return BadRequestError("invalid patch format of retainKeys");
}
inline Status ErrBadPatchFormatForSetElementOrderList() {
  return BadRequestError("invalid patch format of setElementOrder list");
}
// Upstream answers the errors below with a bare Go error, which the API server turns into 500 with
// reason Unknown; they are all caused by the request, so we answer 400 (or 422 where upstream's
// interpretStrategicMergePatchError does).
inline Status ErrNoListOfLists() { return InvalidError("lists of lists are not supported"); }
inline Status ErrNoMergeKey(const json::object& m, std::string_view key) {
  return BadRequestError(
      fmt::format("map: {} does not contain declared merge key: {}", GoFormat(m), key));
}
inline Status ErrBadPatchType(const json::value& t, const json::object& m) {
  return BadRequestError(
      fmt::format("unknown patch type: {} in map: {}", GoFormat(t), GoFormat(m)));
}
inline Status ErrBadArgType(std::string_view expected, const json::value& actual) {
  return BadRequestError(
      fmt::format("expected a {}, but received a {}", expected, GoTypeName(actual)));
}
inline constexpr std::string_view kMapType = "map[string]interface {}";
inline constexpr std::string_view kSliceType = "[]interface {}";

// --- small helpers ---

inline bool IsDirectiveKey(std::string_view key) {
  return key == kDirectiveMarker || key == kRetainKeysDirective ||
         key.starts_with(kSetElementOrderPrefix) || key.starts_with(kDeleteFromPrimitiveListPrefix);
}

// Go's `==` on two decoded interface{} values.
inline bool GoEqual(const json::value& a, const json::value& b) {
  return SameGoType(a, b) && a == b;
}

inline bool IsDirective(const json::value& v, std::string_view directive) {
  return v.is_string() && v.get_string() == directive;
}

}  // namespace svcplane::apiserver::patch::internal
