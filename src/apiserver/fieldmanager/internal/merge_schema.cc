#include "apiserver/fieldmanager/internal/merge_schema.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/check.h"

namespace svcplane::apiserver::fieldmanager {

namespace json = boost::json;
using internal::Relationship;
using internal::ScalarType;
using internal::TypeNode;

namespace internal {

const TypeNode* TypeNode::FindField(std::string_view name) const {
  auto it = std::lower_bound(fields.begin(), fields.end(), name,
                             [](const auto& f, std::string_view n) { return f.first < n; });
  return it != fields.end() && it->first == name ? it->second : nullptr;
}

}  // namespace internal

namespace {

constexpr std::string_view kCore = "io.k8s.api.core.v1.";
constexpr std::string_view kMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.";

std::string Name(std::string_view prefix, std::string_view type) {
  return std::string(prefix) + std::string(type);
}

// The §3 markers our OpenAPI documents do not carry (upstream's +structType, +mapType and
// +default markers, which openapi-gen turns into x-kubernetes-map-type and `default`).
struct Markers {
  // +structType=atomic: the whole struct is one member, wherever it is used.
  std::set<std::string, std::less<>> atomic_structs;
  // +mapType=atomic on a field, keyed "<component>.<field>".
  std::set<std::string, std::less<>> atomic_map_fields;
  // +default on an associative list's key field, keyed "<component>.<field>". Our generator
  // writes `"default": ""` for every non-pointer string (the Go zero value, not a +default
  // marker), so key defaults come from here only: an item that omits a key without a marker
  // default is an error, as §1.5 shows for env items without a name.
  std::map<std::string, json::value, std::less<>> key_defaults;
  // Components marked x-kubernetes-preserve-unknown-fields only because our C++ model keeps
  // some upstream fields verbatim, but whose served property list already is upstream's whole
  // field list: unknown fields in them are rejected, as upstream rejects `.spec.foo`.
  std::set<std::string, std::less<>> complete;
};

const Markers& GetMarkers() {
  static const Markers* markers = [] {
    auto* m = new Markers;
    for (auto t :
         {"ObjectReference", "LocalObjectReference", "ObjectFieldSelector", "ResourceFieldSelector",
          "ConfigMapKeySelector", "SecretKeySelector", "NodeSelector", "NodeSelectorTerm"}) {
      m->atomic_structs.insert(Name(kCore, t));
    }
    m->atomic_structs.insert(Name(kMeta, "OwnerReference"));
    m->atomic_structs.insert(Name(kMeta, "LabelSelector"));
    m->atomic_map_fields.insert(Name(kCore, "ServiceSpec.selector"));
    m->atomic_map_fields.insert(Name(kCore, "PodSpec.nodeSelector"));
    m->key_defaults[Name(kCore, "ServicePort.protocol")] = "TCP";
    m->key_defaults[Name(kCore, "ContainerPort.protocol")] = "TCP";
    for (auto t : {"ServiceSpec", "ServiceStatus", "Container", "Event", "EndpointAddress"}) {
      m->complete.insert(Name(kCore, t));
    }
    m->complete.insert(Name(kMeta, "ObjectMeta"));
    m->complete.insert("io.k8s.api.discovery.v1.Endpoint");
    m->complete.insert("io.k8s.api.coordination.v1.LeaseSpec");
    return m;
  }();
  return *markers;
}

std::string_view Str(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

bool True(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_bool() && v->get_bool();
}

// The component a property refers to ("$ref", or the `allOf: [{$ref}]` wrapper our generator
// writes for fields with a description or default), or "".
std::string_view RefName(const json::object& s) {
  std::string_view ref = Str(s, "$ref");
  if (ref.empty()) {
    if (const json::value* all = s.if_contains("allOf");
        all && all->is_array() && all->get_array().size() == 1 && all->get_array()[0].is_object()) {
      ref = Str(all->get_array()[0].get_object(), "$ref");
    }
  }
  constexpr std::string_view kPrefix = "#/components/schemas/";
  if (ref.starts_with(kPrefix)) ref.remove_prefix(kPrefix.size());
  return ref;
}

}  // namespace

class SchemaBuilder {
 public:
  SchemaBuilder(const json::object& components, TypeSchema* out)
      : components_(components), out_(out), markers_(GetMarkers()) {
    TypeNode& d = out_->nodes_.emplace_back();
    d.scalar = ScalarType::kUntyped;
    d.is_list = true;
    d.list_relationship = Relationship::kAtomic;
    d.list_element = &d;
    d.is_map = true;
    d.map_relationship = Relationship::kSeparable;
    d.map_element = &d;
    out_->deduced_ = &d;
  }

  const TypeNode* Component(std::string_view name) {
    if (auto it = built_.find(name); it != built_.end()) return it->second;
    const json::value* s = components_.if_contains(name);
    if (!s || !s->is_object()) return out_->deduced_;  // dangling reference: accept anything
    TypeNode* node = &out_->nodes_.emplace_back();
    built_.emplace(std::string(name), node);  // before recursing: breaks reference cycles
    Fill(s->get_object(), name, {}, node);
    return node;
  }

 private:
  // The node of a property `field` of component `owner` (both empty for list items and map
  // values).
  const TypeNode* Property(const json::object& s, std::string_view owner, std::string_view field) {
    if (std::string_view ref = RefName(s); !ref.empty()) return Component(ref);
    TypeNode* node = &out_->nodes_.emplace_back();
    Fill(s, {}, owner.empty() ? std::string() : std::string(owner) + "." + std::string(field),
         node);
    return node;
  }

  void Fill(const json::object& s, std::string_view component, std::string_view field_key,
            TypeNode* node) {
    std::string_view type = Str(s, "type");
    bool preserve = True(s, "x-kubernetes-preserve-unknown-fields");
    if (True(s, "x-kubernetes-int-or-string") || Str(s, "format") == "int-or-string") {
      node->scalar = ScalarType::kUntyped;
    } else if (type == "string") {
      node->scalar = ScalarType::kString;
    } else if (type == "integer" || type == "number") {
      node->scalar = ScalarType::kNumeric;
    } else if (type == "boolean") {
      node->scalar = ScalarType::kBoolean;
    } else if (type == "array") {
      FillList(s, node);
    } else if (type == "object" || s.contains("properties")) {
      FillMap(s, component, field_key, preserve, node);
    } else {
      *node = *out_->deduced_;  // no type at all: kube-openapi's deduced type
      node->list_element = node->map_element = out_->deduced_;
    }
  }

  void FillList(const json::object& s, TypeNode* node) {
    node->is_list = true;
    const json::value* items = s.if_contains("items");
    const json::object* item_schema = items && items->is_object() ? &items->get_object() : nullptr;
    node->list_element = item_schema ? Property(*item_schema, {}, {}) : out_->deduced_;
    std::string_view list_type = Str(s, "x-kubernetes-list-type");
    std::vector<std::string> keys;
    if (const json::value* k = s.if_contains("x-kubernetes-list-map-keys"); k && k->is_array()) {
      for (const auto& key : k->get_array()) {
        if (key.is_string()) keys.emplace_back(key.get_string());
      }
    }
    if (list_type.empty()) {
      // Without an explicit list type, §3: patchStrategy merge with a merge key makes a map,
      // without a key a set; anything else is atomic.
      std::string_view strategy = Str(s, "x-kubernetes-patch-strategy");
      if (strategy == "merge" || strategy.starts_with("merge,")) {
        std::string_view merge_key = Str(s, "x-kubernetes-patch-merge-key");
        list_type = merge_key.empty() ? "set" : "map";
        if (!merge_key.empty()) keys = {std::string(merge_key)};
      }
    }
    if (list_type == "map" && !keys.empty()) {
      node->list_relationship = Relationship::kAssociative;
      std::string_view element_component = item_schema ? RefName(*item_schema) : "";
      for (auto& key : keys) {
        auto it = markers_.key_defaults.find(std::string(element_component) + "." + key);
        node->key_defaults.push_back(it == markers_.key_defaults.end() ? json::value()
                                                                       : it->second);
        node->keys.push_back(std::move(key));
      }
    } else if (list_type == "set") {
      node->list_relationship = Relationship::kAssociative;
    } else {
      node->list_relationship = Relationship::kAtomic;
    }
  }

  void FillMap(const json::object& s, std::string_view component, std::string_view field_key,
               bool preserve, TypeNode* node) {
    node->is_map = true;
    bool atomic = Str(s, "x-kubernetes-map-type") == "atomic" ||
                  markers_.atomic_structs.contains(component) ||
                  (!field_key.empty() && markers_.atomic_map_fields.contains(field_key));
    node->map_relationship = atomic ? Relationship::kAtomic : Relationship::kSeparable;
    const json::value* props = s.if_contains("properties");
    if (props && props->is_object()) {
      for (const auto& [name, p] : props->get_object()) {
        if (!p.is_object()) continue;
        node->fields.emplace_back(std::string(name), Property(p.get_object(), component, name));
      }
      std::sort(node->fields.begin(), node->fields.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
    }
    const json::value* additional = s.if_contains("additionalProperties");
    if (additional && additional->is_object()) {
      node->map_element = Property(additional->get_object(), {}, {});
    } else if (preserve && !markers_.complete.contains(component)) {
      node->map_element = out_->deduced_;
    } else if (!props) {
      node->map_element = out_->deduced_;  // a bare `type: object`
    }
  }

  const json::object& components_;
  TypeSchema* out_;
  const Markers& markers_;
  std::map<std::string, const TypeNode*, std::less<>> built_;
};

TypeSchema TypeSchema::FromOpenAPI(const json::object& components,
                                   std::string_view root_component) {
  TypeSchema schema;
  SchemaBuilder builder(components, &schema);
  schema.root_ = builder.Component(root_component);
  return schema;
}

}  // namespace svcplane::apiserver::fieldmanager
