// SchemaForKind: every served kind's merge schema, compiled once from the OpenAPI v3 documents
// svcplane serves, so that apply validates against exactly what clients are told.

#include <map>
#include <string>

#include <boost/json/parse.hpp>

#include "api/resources.h"
#include "apiserver/fieldmanager/internal/merge_schema.h"
#include "apiserver/fieldmanager/typed.h"
#include "apiserver/openapi/openapi.h"
#include "base/check.h"

namespace svcplane::apiserver::fieldmanager {

namespace json = boost::json;

namespace {

// The component of `doc` whose x-kubernetes-group-version-kind names the resource's kind.
std::string_view KindComponent(const json::object& schemas, const api::ResourceInfo& r) {
  for (const auto& [name, s] : schemas) {
    const json::value* gvks =
        s.is_object() ? s.get_object().if_contains("x-kubernetes-group-version-kind") : nullptr;
    if (!gvks || !gvks->is_array()) continue;
    for (const auto& gvk : gvks->get_array()) {
      if (!gvk.is_object()) continue;
      const auto& o = gvk.get_object();
      auto eq = [&](std::string_view key, std::string_view want) {
        const json::value* v = o.if_contains(key);
        return v && v->is_string() && std::string_view(v->get_string()) == want;
      };
      if (eq("group", r.group) && eq("version", r.version) && eq("kind", r.kind)) {
        return std::string_view(name.data(), name.size());
      }
    }
  }
  return {};
}

using SchemaMap = std::map<std::string, TypeSchema, std::less<>>;

const SchemaMap& AllSchemas() {
  static const SchemaMap* schemas = [] {
    auto* out = new SchemaMap;
    openapi::Documents docs;  // dropped once the schemas are compiled
    std::map<std::string, json::value, std::less<>> parsed;
    for (const api::ResourceInfo& r : api::AllResources()) {
      if (out->contains(r.kind)) continue;
      std::string path =
          r.group.empty() ? "api/" + std::string(r.version) : "apis/" + r.GroupVersion();
      auto it = parsed.find(path);
      if (it == parsed.end()) {
        const std::string* body = docs.GroupVersion(path);
        SVC_CHECK(body != nullptr) << "no OpenAPI v3 document for " << path;
        it = parsed.emplace(path, json::parse(*body)).first;
      }
      const json::object& schemas_json = it->second.at("components").at("schemas").as_object();
      std::string_view component = KindComponent(schemas_json, r);
      if (component.empty()) continue;  // virtual kinds without a schema of their own
      out->emplace(std::string(r.kind), TypeSchema::FromOpenAPI(schemas_json, component));
    }
    return out;
  }();
  return *schemas;
}

}  // namespace

const TypeSchema* SchemaForKind(std::string_view kind) {
  const SchemaMap& all = AllSchemas();
  auto it = all.find(kind);
  return it == all.end() ? nullptr : &it->second;
}

}  // namespace svcplane::apiserver::fieldmanager
