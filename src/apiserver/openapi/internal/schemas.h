#pragma once

#include <boost/json.hpp>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "api/meta/fields.h"
#include "apiserver/openapi/internal/field_info.h"
#include "apiserver/openapi/internal/names.h"
#include "apiserver/openapi/internal/overlay.h"

namespace svcplane::apiserver::openapi::internal {

namespace json = boost::json;

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};
template <typename T>
struct IsMap : std::false_type {};
template <typename K, typename V, typename C>
struct IsMap<std::map<K, V, C>> : std::true_type {};

inline json::string_view Js(std::string_view s) { return json::string_view(s.data(), s.size()); }

inline std::string RefPath(std::string_view name) {
  return "#/components/schemas/" + std::string(name);
}

// Collects components.schemas for one document by walking FieldsOf() recursively from the kinds
// it is asked for. Each type is generated once; the result keeps upstream's component names.
class SchemaSet {
 public:
  // Registers T (and everything it reaches) and returns its component name.
  template <typename T>
  std::string_view Add() {
    constexpr std::string_view name = SchemaName<T>::kName;
    if (schemas_.contains(Js(name))) return name;
    schemas_[Js(name)] = json::object();  // placeholder: breaks recursion cycles
    json::object s;
    if (auto d = TypeDescription(name); !d.empty()) s["description"] = Js(d);
    s["type"] = "object";
    json::object props;
    json::array required;
    api::meta::ForEachField<T>([&](const auto& f) {
      using M = typename std::remove_cvref_t<decltype(f)>::MemberType;
      json::object p = PropertySchema<M>();
      const FieldInfo* info = LookupField(name, f.json_name);
      if (info) Decorate(info, &p);
      props[Js(f.json_name)] = std::move(p);
      if (info && info->required) required.emplace_back(Js(f.json_name));
    });
    if (const json::object* extra = OverlayProperties(name)) {
      for (const auto& [k, v] : *extra) props[k] = v;
      overlay_used_ = true;
    }
    s["properties"] = std::move(props);
    if (!required.empty()) s["required"] = std::move(required);
    if (IsPartiallyModelled(name)) s["x-kubernetes-preserve-unknown-fields"] = true;
    schemas_[Js(name)] = std::move(s);
    return name;
  }

  // Adds a hand-written component (DeleteOptions, Patch, WatchEvent...).
  void AddRaw(std::string_view name, json::object schema) {
    schemas_[Js(name)] = std::move(schema);
  }
  json::object* Find(std::string_view name) {
    auto it = schemas_.find(Js(name));
    return it == schemas_.end() ? nullptr : &it->value().as_object();
  }

  json::object Take() {
    if (overlay_used_) {
      // The overlay's container resources refer to Quantity, which a document whose kinds
      // have no Quantity member of their own (apps/v1) would otherwise lack.
      (void)PropertySchema<api::meta::Quantity>();
      for (const auto& [k, v] : OverlayComponents()) {
        if (!schemas_.contains(k)) schemas_[k] = v;
      }
    }
    return std::move(schemas_);
  }

 private:
  static json::object WrapRef(std::string_view name, bool struct_default) {
    json::object o;
    o["allOf"] = json::array{json::object{{"$ref", RefPath(name)}}};
    if (struct_default) o["default"] = json::object();
    return o;
  }

  void Decorate(const FieldInfo* info, json::object* p) {
    if (!info->description.empty()) (*p)["description"] = Js(info->description);
    if (!info->list_type.empty()) (*p)["x-kubernetes-list-type"] = Js(info->list_type);
    if (!info->list_map_keys.empty()) {
      json::array keys;
      for (auto k : info->list_map_keys) keys.emplace_back(Js(k));
      (*p)["x-kubernetes-list-map-keys"] = std::move(keys);
    }
    if (!info->patch_merge_key.empty()) {
      (*p)["x-kubernetes-patch-merge-key"] = Js(info->patch_merge_key);
    }
    if (!info->patch_strategy.empty()) {
      (*p)["x-kubernetes-patch-strategy"] = Js(info->patch_strategy);
    }
  }

  void AddBuiltin(std::string_view name, json::object schema) {
    if (!schemas_.contains(Js(name))) schemas_[Js(name)] = std::move(schema);
  }

  template <typename M>
  json::object PropertySchema() {
    namespace meta = api::meta;
    if constexpr (std::is_same_v<M, std::string>) {
      return {{"type", "string"}, {"default", ""}};
    } else if constexpr (std::is_same_v<M, bool>) {
      return {{"type", "boolean"}};
    } else if constexpr (std::is_same_v<M, int32_t>) {
      return {{"type", "integer"}, {"format", "int32"}};
    } else if constexpr (std::is_same_v<M, int64_t>) {
      return {{"type", "integer"}, {"format", "int64"}};
    } else if constexpr (IsOptional<M>::value) {
      json::object o = PropertySchema<typename M::value_type>();
      o.erase("default");  // pointers in Go: no zero default
      return o;
    } else if constexpr (IsVector<M>::value) {
      json::object items = PropertySchema<typename M::value_type>();
      return {{"type", "array"}, {"items", std::move(items)}};
    } else if constexpr (IsMap<M>::value) {
      return {{"type", "object"},
              {"additionalProperties", PropertySchema<typename M::mapped_type>()}};
    } else if constexpr (std::is_same_v<M, meta::Time>) {
      AddBuiltin(kTimeName, {{"description",
                              "Time is a wrapper around time.Time which supports correct "
                              "marshaling to YAML and JSON. RFC 3339, whole seconds."},
                             {"type", "string"},
                             {"format", "date-time"}});
      return WrapRef(kTimeName, false);
    } else if constexpr (std::is_same_v<M, meta::MicroTime>) {
      AddBuiltin(kMicroTimeName,
                 {{"description", "MicroTime is version of Time with microsecond level precision."},
                  {"type", "string"},
                  {"format", "date-time"}});
      return WrapRef(kMicroTimeName, false);
    } else if constexpr (std::is_same_v<M, meta::IntOrString>) {
      AddBuiltin(kIntOrStringName,
                 {{"description",
                   "IntOrString is a type that can hold an int32 or a string.  When used in JSON "
                   "or YAML marshalling and unmarshalling, it produces or consumes the inner "
                   "type.  This allows you to have, for example, a JSON field that can accept a "
                   "name or number."},
                  {"type", "string"},
                  {"format", "int-or-string"},
                  {"x-kubernetes-int-or-string", true}});
      return WrapRef(kIntOrStringName, false);
    } else if constexpr (std::is_same_v<M, meta::Quantity>) {
      AddBuiltin(kQuantityName,
                 {{"description",
                   "Quantity is a fixed-point representation of a number, serialized as a "
                   "string such as \"250m\", \"2Gi\" or \"4\"."},
                  {"type", "string"}});
      return WrapRef(kQuantityName, false);
    } else if constexpr (std::is_same_v<M, meta::Bytes>) {
      return {{"type", "string"}, {"format", "byte"}};  // a Go []byte
    } else if constexpr (std::is_same_v<M, meta::RawJson>) {
      // A value the model keeps verbatim: any object is accepted.
      return {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
    } else {
      static_assert(api::meta::Reflected<M>, "no OpenAPI mapping for this member type");
      return WrapRef(Add<M>(), true);
    }
  }

  json::object schemas_;
  bool overlay_used_ = false;
};

}  // namespace svcplane::apiserver::openapi::internal
