#include "apiserver/openapi/openapi.h"

#include <openssl/evp.h>

#include <algorithm>
#include <functional>
#include <set>

#include "api/resources.h"
#include "api/types.h"
#include "apiserver/openapi/internal/gnostic.h"
#include "apiserver/openapi/internal/paths.h"
#include "apiserver/openapi/internal/schemas.h"
#include "apiserver/openapi/internal/swagger.h"
#include "base/check.h"

namespace svcplane::apiserver::openapi {
namespace {

using internal::Js;
using internal::SchemaSet;
namespace json = boost::json;

struct KindSchemas {
  std::string_view kind;
  std::string_view list;
};

// Registers the schemas of one kind and its List; returns their component names.
KindSchemas AddKind(std::string_view kind, SchemaSet* s) {
  static const std::map<std::string_view, std::function<KindSchemas(SchemaSet*)>> kByKind = {
      {"Pod",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::core::v1::Pod>(), s->Add<api::PodList>()};
       }},
      {"Service",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::core::v1::Service>(), s->Add<api::ServiceList>()};
       }},
      {"Node",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::core::v1::Node>(), s->Add<api::NodeList>()};
       }},
      {"Endpoints",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::core::v1::Endpoints>(), s->Add<api::EndpointsList>()};
       }},
      {"Event",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::core::v1::Event>(), s->Add<api::EventList>()};
       }},
      {"Namespace",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::core::v1::Namespace>(), s->Add<api::NamespaceList>()};
       }},
      {"EndpointSlice",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::discovery::v1::EndpointSlice>(),
                            s->Add<api::EndpointSliceList>()};
       }},
      {"Lease",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::coordination::v1::Lease>(), s->Add<api::LeaseList>()};
       }},
      {"Role",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::rbac::v1::Role>(), s->Add<api::RoleList>()};
       }},
      {"ClusterRole",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::rbac::v1::ClusterRole>(), s->Add<api::ClusterRoleList>()};
       }},
      {"RoleBinding",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::rbac::v1::RoleBinding>(), s->Add<api::RoleBindingList>()};
       }},
      {"ConfigMap",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::core::v1::ConfigMap>(), s->Add<api::ConfigMapList>()};
       }},
      {"Secret",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::core::v1::Secret>(), s->Add<api::SecretList>()};
       }},
      {"ServiceAccount",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::core::v1::ServiceAccount>(),
                            s->Add<api::ServiceAccountList>()};
       }},
      {"Deployment",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::apps::v1::Deployment>(), s->Add<api::DeploymentList>()};
       }},
      {"ReplicaSet",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::apps::v1::ReplicaSet>(), s->Add<api::ReplicaSetList>()};
       }},
      {"ClusterRoleBinding",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::rbac::v1::ClusterRoleBinding>(),
                            s->Add<api::ClusterRoleBindingList>()};
       }},
      // The review kinds have no List.
      {"SelfSubjectReview",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::authentication::v1::SelfSubjectReview>(), {}};
       }},
      {"SelfSubjectAccessReview",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::authorization::v1::SelfSubjectAccessReview>(), {}};
       }},
      {"SelfSubjectRulesReview",
       [](SchemaSet* s) {
         return KindSchemas{s->Add<api::authorization::v1::SelfSubjectRulesReview>(), {}};
       }},
  };
  auto it = kByKind.find(kind);
  SVC_CHECK(it != kByKind.end()) << "no OpenAPI schema for kind " << kind;
  return it->second(s);
}

json::array Gvk(std::string_view group, std::string_view version, std::string_view kind) {
  return json::array{
      json::object{{"group", Js(group)}, {"kind", Js(kind)}, {"version", Js(version)}}};
}

// A type served under several versions (SelfSubjectReview v1 and v1beta1) lists each.
void SetGvk(SchemaSet* s, std::string_view name, json::array gvk) {
  json::object* o = s->Find(name);
  SVC_CHECK(o != nullptr) << name;
  auto* existing = o->if_contains("x-kubernetes-group-version-kind");
  if (existing && existing->is_array()) {
    for (auto& g : gvk) {
      auto& arr = existing->as_array();
      if (std::find(arr.begin(), arr.end(), g) == arr.end()) arr.push_back(g);
    }
    return;
  }
  (*o)["x-kubernetes-group-version-kind"] = std::move(gvk);
}

void AddCommonSchemas(SchemaSet* s) {
  std::string_view status = s->Add<api::meta::StatusObject>();
  SetGvk(s, status, Gvk("", "v1", "Status"));
  s->AddRaw("io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
            {{"description",
              "Patch is provided to give a concrete name and type to the Kubernetes PATCH "
              "request body."},
             {"type", "object"}});
  json::object props;
  props["apiVersion"] = json::object{{"type", "string"}};
  props["kind"] = json::object{{"type", "string"}};
  props["dryRun"] = json::object{{"type", "array"},
                                 {"items", json::object{{"type", "string"}, {"default", ""}}},
                                 {"x-kubernetes-list-type", "atomic"}};
  props["gracePeriodSeconds"] = json::object{{"type", "integer"}, {"format", "int64"}};
  props["orphanDependents"] = json::object{{"type", "boolean"}};
  props["preconditions"] = json::object{
      {"type", "object"},
      {"properties", json::object{{"resourceVersion", json::object{{"type", "string"}}},
                                  {"uid", json::object{{"type", "string"}}}}}};
  props["propagationPolicy"] = json::object{{"type", "string"}};
  s->AddRaw("io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
            {{"description", "DeleteOptions may be provided when deleting an API object."},
             {"type", "object"},
             {"properties", std::move(props)},
             {"x-kubernetes-group-version-kind", Gvk("", "v1", "DeleteOptions")}});
}

std::string Sha512Hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  SVC_CHECK(EVP_Digest(data.data(), data.size(), md, &len, EVP_sha512(), nullptr) == 1);
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[md[i] >> 4]);
    out.push_back(kHex[md[i] & 0xf]);
  }
  return out;
}

struct Parts {
  json::object paths;
  json::object schemas;
};

// The paths and components of every resource `include` accepts, with the shared meta schemas.
template <typename Include>
Parts BuildParts(Include include) {
  SchemaSet schemas;
  json::object paths;
  for (const auto& r : api::AllResources()) {
    if (!include(r)) continue;
    KindSchemas k = AddKind(r.kind, &schemas);
    SetGvk(&schemas, k.kind, Gvk(r.group, r.version, r.kind));
    if (!r.list_kind.empty()) SetGvk(&schemas, k.list, Gvk(r.group, r.version, r.list_kind));
    std::string_view scale;
    if (r.HasSubresource("scale")) {
      scale = schemas.Add<api::autoscaling::v1::Scale>();
      SetGvk(&schemas, scale, Gvk("autoscaling", "v1", "Scale"));
    }
    internal::AddResourcePaths(r, k.kind, k.list, &paths, scale);
  }
  AddCommonSchemas(&schemas);
  return {std::move(paths), schemas.Take()};
}

json::object Info() { return {{"title", "Kubernetes"}, {"version", "v1.30.0"}}; }

std::string GroupVersionDoc(std::string_view group, std::string_view version) {
  Parts parts = BuildParts(
      [&](const api::ResourceInfo& r) { return r.group == group && r.version == version; });
  json::object doc;
  doc["openapi"] = "3.0.0";
  doc["info"] = Info();
  doc["paths"] = std::move(parts.paths);
  doc["components"] = json::object{{"schemas", std::move(parts.schemas)}};
  return json::serialize(doc);
}

}  // namespace

Documents::Documents() {
  std::set<std::pair<std::string, std::string>> gvs;
  for (const auto& r : api::AllResources()) gvs.emplace(r.group, r.version);
  json::object index_paths;
  for (const auto& [g, v] : gvs) {
    std::string path = g.empty() ? "api/" + v : "apis/" + g + "/" + v;
    Doc d;
    d.body = GroupVersionDoc(g, v);
    d.hash = Sha512Hex(d.body);
    index_paths[path] =
        json::object{{"serverRelativeURL", "/openapi/v3/" + path + "?hash=" + d.hash}};
    docs_.emplace(path, std::move(d));
  }
  index_ = json::serialize(json::object{{"paths", std::move(index_paths)}});

  Parts all = BuildParts([](const api::ResourceInfo&) { return true; });
  json::object swagger = internal::ToSwagger(Info(), std::move(all.paths), std::move(all.schemas));
  swagger_json_ = json::serialize(swagger);
  swagger_proto_ = internal::EncodeGnosticDocument(swagger);
  swagger_etag_ = "\"" + Sha512Hex(swagger_json_) + "\"";
}

const std::string* Documents::GroupVersion(std::string_view path) const {
  auto it = docs_.find(path);
  return it == docs_.end() ? nullptr : &it->second.body;
}

std::string_view Documents::Hash(std::string_view path) const {
  auto it = docs_.find(path);
  return it == docs_.end() ? std::string_view() : std::string_view(it->second.hash);
}

}  // namespace svcplane::apiserver::openapi
