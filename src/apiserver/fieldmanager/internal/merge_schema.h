#pragma once

// The compiled merge schema of one kind: SMD's schema.Schema reduced to what the typed walks
// need, with every reference resolved to a pointer so that a walk never looks anything up by
// name. Built once per kind from the served OpenAPI v3 document (kube-openapi schemaconv's
// rules) plus the §3 markers our documents lack.

#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

namespace svcplane::apiserver::fieldmanager {

namespace internal {

enum class ScalarType : uint8_t { kNone, kNumeric, kString, kBoolean, kUntyped };
// SMD ElementRelationship: atomic (replaced whole), separable (a map merged per key) or
// associative (a list merged per item: keyed by `keys`, or a set of scalars without keys).
enum class Relationship : uint8_t { kAtomic, kSeparable, kAssociative };

// One SMD Atom. A typed node accepts one shape (scalar, list or map); the deduced node of
// x-kubernetes-preserve-unknown-fields accepts all three and picks by the value's shape.
struct TypeNode {
  ScalarType scalar = ScalarType::kNone;

  bool is_list = false;
  Relationship list_relationship = Relationship::kAtomic;
  const TypeNode* list_element = nullptr;
  std::vector<std::string> keys;  // associative lists with keys, in declaration order
  // Parallel to `keys`: the value an item that omits the key is read with, or null (no default).
  std::vector<boost::json::value> key_defaults;

  bool is_map = false;
  Relationship map_relationship = Relationship::kSeparable;
  // Declared struct fields, sorted by name; keys that are not fields take `map_element`, and a
  // map without one rejects them ("field not declared in schema").
  std::vector<std::pair<std::string, const TypeNode*>> fields;
  const TypeNode* map_element = nullptr;

  const TypeNode* FindField(std::string_view name) const;
  bool IsAssociativeList() const {
    return is_list && list_relationship == Relationship::kAssociative;
  }
};

}  // namespace internal

class TypeSchema {
 public:
  const internal::TypeNode* root() const { return root_; }
  // The shared deduced node (untyped scalars, atomic lists, separable maps of itself).
  const internal::TypeNode* deduced() const { return deduced_; }

  // Compiles the component `root_component` of an OpenAPI v3 document's components.schemas.
  static TypeSchema FromOpenAPI(const boost::json::object& components,
                                std::string_view root_component);

  TypeSchema(TypeSchema&&) = default;
  TypeSchema& operator=(TypeSchema&&) = default;

 private:
  TypeSchema() = default;
  friend class SchemaBuilder;

  std::deque<internal::TypeNode> nodes_;  // stable addresses
  const internal::TypeNode* root_ = nullptr;
  const internal::TypeNode* deduced_ = nullptr;
};

}  // namespace svcplane::apiserver::fieldmanager
