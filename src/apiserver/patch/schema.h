#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace svcplane::apiserver::patch {

class Schema;

// How a strategic merge patch treats a list field; mirrors the Go struct tags
// `patchStrategy:"merge" patchMergeKey:"..."` that apimachinery reads by reflection.
enum class ListStrategy {
  kReplace,     // no tag: the patch list replaces the live list (atomic)
  kMergeByKey,  // list of objects merged by `merge_key`
  kMergeSet,    // list of primitives merged as a set (e.g. metadata.finalizers)
};

// Patch metadata of one field. `schema` describes the field's value: the fields of an object, or
// the fields of each element of a list of objects. Null means "no further knowledge": nested maps
// still merge per key and nested lists replace, as upstream does for map[string]T fields.
struct FieldMeta {
  ListStrategy list = ListStrategy::kReplace;
  std::string merge_key;
  bool retain_keys = false;  // patchStrategy:"...,retainKeys"; only the client diff uses it
  bool replace_map = false;  // patchStrategy:"replace" on an object field
  const Schema* schema = nullptr;
};

// One rule of a kind description, e.g. {"spec.containers[].ports", kMergeByKey, "containerPort"}.
// Path segments are JSON field names separated by '.'; a trailing "[]" marks a list whose elements
// the next segment descends into (the marker is documentation; lookup is by field name).
struct PathRule {
  std::string path;
  ListStrategy list = ListStrategy::kReplace;
  std::string merge_key = {};
  bool retain_keys = false;
  bool replace_map = false;
};

// The patch strategies of one object type, as a tree of field names. Immutable once built and then
// safe to share between threads. Fields that are not described default to "replace" for lists and
// "merge per key" for objects, which is what upstream does for fields without struct tags.
class Schema {
 public:
  Schema() = default;
  Schema(const Schema&) = delete;
  Schema& operator=(const Schema&) = delete;

  // Builds a schema from path rules. Aborts on a malformed rule (rules are compile-time data).
  static std::unique_ptr<Schema> FromRules(const std::vector<PathRule>& rules);

  // Metadata for `name`, or null when the field is not described.
  const FieldMeta* Field(std::string_view name) const;

  // Mutable access for builders (including tests that describe recursive types such as
  // apimachinery's MergeItem). `child` becomes the field's value schema when non-null.
  FieldMeta& SetField(std::string name, FieldMeta meta);
  // Returns the value schema of `name`, creating the field and an owned schema when missing.
  Schema& ChildSchema(const std::string& name);

  // The empty schema used for undescribed fields.
  static const Schema& Empty();

 private:
  std::map<std::string, FieldMeta, std::less<>> fields_;
  std::vector<std::unique_ptr<Schema>> owned_;
};

// The strategic-merge schema of one of our kinds ("Pod", "Service", "Node", "Namespace",
// "Endpoints", "Event", "EndpointSlice", "Lease", "Role", "ClusterRole", "RoleBinding",
// "ClusterRoleBinding", "Deployment", "ReplicaSet", "ConfigMap", "Secret", "ServiceAccount", and
// autoscaling/v1 "Scale"), or null for any
// other kind (for which upstream rejects strategic merge patches with 415). Built once, shared,
// never freed.
const Schema* StrategicSchemaForKind(std::string_view kind);

}  // namespace svcplane::apiserver::patch
