#include "apiserver/openapi/internal/swagger.h"

#include <string>
#include <string_view>

#include "base/check.h"

namespace svcplane::apiserver::openapi::internal {
namespace {

namespace json = boost::json;

// Upstream (1.30-1.32) fields of types our model keeps only in part. The server keeps them as
// sent, and v3 says so with x-kubernetes-preserve-unknown-fields; kube-openapi's v2 models
// ignore that extension and kubectl's client-side validation (v1 List manifests) would call
// them unknown, so v2 lists each as an untyped (any value) property.
struct UpstreamOnly {
  std::string_view schema;
  std::string_view fields;  // space-separated
};
constexpr UpstreamOnly kUpstreamOnly[] = {
    {"io.k8s.api.core.v1.PodSpec", "resourceClaims schedulingGates"},
    {"io.k8s.api.core.v1.PodStatus", "ephemeralContainerStatuses resize resourceClaimStatuses"},
    {"io.k8s.api.core.v1.NodeSpec", "configSource externalID"},
    {"io.k8s.api.core.v1.NodeStatus",
     "config features runtimeHandlers volumesAttached volumesInUse"},
    {"io.k8s.api.core.v1.NodeSystemInfo", "swap"},
    {"io.k8s.api.core.v1.Volume",
     "awsElasticBlockStore azureDisk azureFile cephfs cinder csi ephemeral fc flexVolume flocker "
     "gcePersistentDisk gitRepo glusterfs image iscsi nfs photonPersistentDisk portworxVolume "
     "quobyte rbd scaleIO storageos vsphereVolume"},
    {"io.k8s.api.core.v1.SecurityContext", "appArmorProfile windowsOptions"},
    {"io.k8s.api.core.v1.PodSecurityContext",
     "appArmorProfile seLinuxChangePolicy supplementalGroupsPolicy windowsOptions"},
    {"io.k8s.api.core.v1.VolumeProjection", "clusterTrustBundle"},
};

void AddUpstreamOnly(json::object* definitions) {
  for (const UpstreamOnly& u : kUpstreamOnly) {
    auto it = definitions->find(json::string_view(u.schema.data(), u.schema.size()));
    if (it == definitions->end()) continue;
    json::value& props_value = it->value().as_object()["properties"];
    if (!props_value.is_object()) props_value = json::object();
    json::object& props = props_value.as_object();
    std::string_view rest = u.fields;
    while (!rest.empty()) {
      size_t space = rest.find(' ');
      std::string_view f = rest.substr(0, space);
      rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
      json::string_view key(f.data(), f.size());
      if (props.contains(key)) continue;
      props[key] =
          json::object{{"description", "Not modelled by svcplane: accepted and stored as sent."}};
    }
  }
}

constexpr std::string_view kV3Prefix = "#/components/schemas/";
constexpr std::string_view kV2Prefix = "#/definitions/";

std::string V2Ref(std::string_view v3_ref) {
  SVC_CHECK(v3_ref.starts_with(kV3Prefix)) << "unexpected $ref " << v3_ref;
  v3_ref.remove_prefix(kV3Prefix.size());
  return std::string(kV2Prefix) + std::string(v3_ref);
}

json::object Schema(const json::object& in);

json::value SchemaValue(const json::value& v) {
  // additionalProperties may be a boolean; every other schema position holds an object.
  if (v.is_bool()) return v;
  return Schema(v.as_object());
}

json::object Schema(const json::object& in) {
  json::object out;
  // A field referring to a named type is {"allOf":[{"$ref":X}], "description":..., "default":{}}
  // in v3 (so that siblings of $ref count); v2 keeps the siblings next to a bare $ref.
  const json::array* all_of = in.contains("allOf") ? &in.at("allOf").as_array() : nullptr;
  const bool single_ref = all_of && all_of->size() == 1 &&
                          all_of->front().as_object().size() == 1 &&
                          all_of->front().as_object().contains("$ref");
  if (single_ref) {
    out["$ref"] = V2Ref(all_of->front().at("$ref").as_string());
  }
  for (const auto& [key, value] : in) {
    if (key == "allOf") {
      if (single_ref) continue;
      json::array items;
      for (const auto& s : value.as_array()) items.push_back(Schema(s.as_object()));
      out[key] = std::move(items);
    } else if (key == "$ref") {
      out[key] = V2Ref(value.as_string());
    } else if (key == "properties") {
      json::object props;
      for (const auto& [name, s] : value.as_object()) props[name] = Schema(s.as_object());
      out[key] = std::move(props);
    } else if (key == "items" || key == "additionalProperties") {
      out[key] = SchemaValue(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

// v3 {"name","in","description","required","schema":{"type",...}} → v2 with the type inline.
json::object Parameter(const json::object& in) {
  json::object out;
  for (const auto& [key, value] : in) {
    if (key == "schema") {
      for (const auto& [k, v] : value.as_object()) out[k] = v;
    } else {
      out[key] = value;
    }
  }
  return out;
}

json::array Parameters(const json::array& in) {
  json::array out;
  for (const auto& p : in) out.push_back(Parameter(p.as_object()));
  return out;
}

void AddUnique(json::array* list, json::string_view s) {
  for (const auto& v : *list) {
    if (v.as_string() == s) return;
  }
  list->emplace_back(s);
}

json::object Operation(const json::object& in) {
  json::object out;
  json::array consumes;
  json::array produces;
  json::array params;
  if (in.contains("parameters")) params = Parameters(in.at("parameters").as_array());
  if (in.contains("requestBody")) {
    const json::object& body = in.at("requestBody").as_object();
    const json::object& content = body.at("content").as_object();
    SVC_CHECK(!content.empty());
    for (const auto& [type, media] : content) AddUnique(&consumes, type);
    json::object p;
    p["name"] = "body";
    p["in"] = "body";
    if (body.contains("required")) p["required"] = body.at("required");
    p["schema"] = Schema(content.begin()->value().at("schema").as_object());
    params.push_back(std::move(p));
  }
  json::object responses;
  if (in.contains("responses")) {
    for (const auto& [code, r] : in.at("responses").as_object()) {
      json::object resp;
      for (const auto& [key, value] : r.as_object()) {
        if (key == "content") {
          for (const auto& [type, media] : value.as_object()) {
            AddUnique(&produces, type);
            if (!resp.contains("schema")) resp["schema"] = Schema(media.at("schema").as_object());
          }
        } else {
          resp[key] = value;
        }
      }
      responses[code] = std::move(resp);
    }
  }
  for (const auto& [key, value] : in) {
    if (key == "parameters" || key == "requestBody" || key == "responses") continue;
    out[key] = value;
  }
  if (!consumes.empty()) out["consumes"] = std::move(consumes);
  if (!produces.empty()) out["produces"] = std::move(produces);
  out["schemes"] = json::array{"https"};
  if (!params.empty()) out["parameters"] = std::move(params);
  out["responses"] = std::move(responses);
  return out;
}

json::object PathItem(const json::object& in) {
  json::object out;
  for (const auto& [key, value] : in) {
    if (key == "parameters") {
      out[key] = Parameters(value.as_array());
    } else {
      out[key] = Operation(value.as_object());
    }
  }
  return out;
}

}  // namespace

json::object ToSwagger(json::object info, json::object v3_paths, json::object v3_schemas) {
  json::object paths;
  for (const auto& [path, item] : v3_paths) paths[path] = PathItem(item.as_object());
  json::object definitions;
  for (const auto& [name, s] : v3_schemas) definitions[name] = Schema(s.as_object());
  AddUpstreamOnly(&definitions);
  json::object doc;
  doc["swagger"] = "2.0";
  doc["info"] = std::move(info);
  doc["paths"] = std::move(paths);
  doc["definitions"] = std::move(definitions);
  return doc;
}

}  // namespace svcplane::apiserver::openapi::internal
