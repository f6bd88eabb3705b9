#pragma once

#include <string_view>
#include <vector>

namespace svcplane::apiserver::openapi::internal {

// What the Go struct tags and +markers of upstream's types say about one field, which our
// reflected field lists do not carry: its doc string, strategic-merge-patch metadata and
// list type. Keys are the component name and the JSON field name.
struct FieldInfo {
  std::string_view description;
  std::string_view patch_merge_key;  // x-kubernetes-patch-merge-key
  std::string_view patch_strategy;   // x-kubernetes-patch-strategy: "merge", "merge,retainKeys"
  std::string_view list_type;        // x-kubernetes-list-type: atomic | set | map
  std::vector<std::string_view> list_map_keys;
  bool required = false;
};

// nullptr when nothing is known about the field.
const FieldInfo* LookupField(std::string_view schema, std::string_view field);
// The doc string of a whole type ("" if none).
std::string_view TypeDescription(std::string_view schema);
// Types whose model in svcplane is partial (upstream fields kept verbatim among unknown fields):
// their schemas carry x-kubernetes-preserve-unknown-fields so clients never reject valid input.
bool IsPartiallyModelled(std::string_view schema);

}  // namespace svcplane::apiserver::openapi::internal
