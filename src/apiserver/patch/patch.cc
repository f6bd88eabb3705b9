#include "apiserver/patch/patch.h"

#include <cctype>
#include <string>

#include <fmt/format.h>
#include <boost/json.hpp>

#include "apiserver/patch/json_patch.h"
#include "apiserver/patch/merge_patch.h"
#include "apiserver/patch/schema.h"
#include "apiserver/patch/strategic.h"

namespace svcplane::apiserver::patch {
namespace {

namespace json = boost::json;

constexpr std::string_view kUnknownFormat =
    "the body of the request was in an unknown format - accepted media types include: "
    "application/json-patch+json, application/merge-patch+json, "
    "application/strategic-merge-patch+json, application/apply-patch+yaml";

// The list upstream gives for types without a strategic schema (CRDs).
constexpr std::string_view kUnknownFormatNoStrategic =
    "the body of the request was in an unknown format - accepted media types include: "
    "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml";

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Result<json::value> ParseBody(std::string_view body) {
  boost::system::error_code ec;
  json::value v = json::parse(body, ec);
  if (ec) {
    return BadRequestError(fmt::format("error decoding patch: {}", ec.message()));
  }
  return v;
}

}  // namespace

std::string_view PatchTypeMediaType(PatchType type) {
  switch (type) {
    case PatchType::kJsonPatch:
      return "application/json-patch+json";
    case PatchType::kMergePatch:
      return "application/merge-patch+json";
    case PatchType::kStrategicMerge:
      return "application/strategic-merge-patch+json";
    case PatchType::kApply:
      return "application/apply-patch+yaml";
  }
  return "";
}

Result<PatchType> ParsePatchType(std::string_view content_type) {
  std::string media = Lower(Trim(content_type.substr(0, content_type.find(';'))));
  for (PatchType t : {PatchType::kJsonPatch, PatchType::kMergePatch, PatchType::kStrategicMerge,
                      PatchType::kApply}) {
    if (media == PatchTypeMediaType(t)) return t;
  }
  return Status(Code::kUnsupportedMediaType, std::string(kUnknownFormat));
}

Result<json::value> ApplyPatch(PatchType type, std::string_view kind, const json::value& current,
                               std::string_view patch_body) {
  if (type == PatchType::kApply) {
    // Server-side apply merges with the field manager (fieldmanager/, registry/apply.h), not
    // here: the REST layer never routes it to this function.
    return InternalError("an apply patch is not a patch of the current object");
  }
  const Schema* schema = nullptr;
  if (type == PatchType::kStrategicMerge) {
    schema = StrategicSchemaForKind(kind);
    if (schema == nullptr) {
      return Status(Code::kUnsupportedMediaType, std::string(kUnknownFormatNoStrategic));
    }
  }
  Result<json::value> patch = ParseBody(patch_body);
  if (!patch.ok()) return patch.status();

  json::value result = current;
  switch (type) {
    case PatchType::kJsonPatch:
      SVC_RETURN_IF_ERROR(internal::JsonPatchInPlace(result, *patch));
      break;
    case PatchType::kMergePatch:
      if (!patch->is_object()) return ApplyMergePatch(result, *patch);  // shapes the 400
      if (!result.is_object()) result = json::object();
      internal::MergePatchInPlace(result.get_object(), patch->get_object());
      break;
    case PatchType::kStrategicMerge:
      if (patch->is_null()) break;
      if (!patch->is_object()) {
        return ApplyStrategicMergePatch(result, *patch, *schema);  // shapes the 400
      }
      if (!result.is_object()) result = json::object();
      SVC_RETURN_IF_ERROR(
          internal::StrategicMergeInPlace(result.get_object(), patch->get_object(), *schema));
      break;
    case PatchType::kApply:
      break;
  }
  if (!result.is_object()) {
    return BadRequestError(fmt::format("the patched {} is not a JSON object", kind));
  }
  return result;
}

}  // namespace svcplane::apiserver::patch
