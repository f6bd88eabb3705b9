#pragma once

// What the generic registry needs to know about each kind: where it lives in the resource
// table, its strategy (defaulting, preparation, validation from api/validation) and the values
// its field selectors read. One specialisation per kind.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "api/codec/json.h"
#include "api/resources.h"
#include "api/types.h"
#include "api/validation/defaults.h"
#include "api/validation/strategy.h"
#include "api/validation/validation.h"

namespace svcplane::apiserver::registry {

template <typename T>
struct KindTraits;

// Field selector values shared by every kind.
template <typename T>
std::optional<std::string> MetaFieldValue(const T& obj, std::string_view field) {
  if (field == "metadata.name") return obj.metadata.name;
  if (field == "metadata.namespace") return obj.metadata.namespace_;
  return std::nullopt;
}

struct NoStatus {
  static constexpr bool kHasStatus = false;
};

template <>
struct KindTraits<api::core::v1::Namespace> {
  static constexpr std::string_view kResource = "namespaces";
  static constexpr std::string_view kGroup = "";
  static constexpr bool kHasStatus = true;
  static constexpr bool kCreateOnUpdate = false;
  static std::optional<std::string> FieldValue(const api::core::v1::Namespace& o,
                                               std::string_view f) {
    if (f == "status.phase") return o.status.phase;
    return MetaFieldValue(o, f);
  }
};

template <>
struct KindTraits<api::core::v1::Service> {
  static constexpr std::string_view kResource = "services";
  static constexpr std::string_view kGroup = "";
  static constexpr bool kHasStatus = true;
  static constexpr bool kCreateOnUpdate = true;
  static std::optional<std::string> FieldValue(const api::core::v1::Service& o,
                                               std::string_view f) {
    if (f == "spec.clusterIP") return o.spec.cluster_ip;
    if (f == "spec.type") return o.spec.type;
    return MetaFieldValue(o, f);
  }
};

template <>
struct KindTraits<api::core::v1::Pod> {
  static constexpr std::string_view kResource = "pods";
  static constexpr std::string_view kGroup = "";
  static constexpr bool kHasStatus = true;
  static constexpr bool kCreateOnUpdate = false;
  static std::optional<std::string> FieldValue(const api::core::v1::Pod& o, std::string_view f) {
    if (f == "spec.nodeName") return o.spec.node_name;
    if (f == "spec.restartPolicy") return o.spec.rest->restart_policy;
    if (f == "spec.schedulerName") return o.spec.rest->scheduler_name;
    if (f == "spec.serviceAccountName") return o.spec.rest->service_account_name;
    if (f == "spec.hostNetwork") return std::string(o.spec.rest->host_network ? "true" : "false");
    if (f == "status.phase") return o.status.phase;
    if (f == "status.podIP") return o.status.pod_ip;
    if (f == "status.podIPs") return o.status.pod_ips.empty() ? "" : o.status.pod_ips[0].ip;
    if (f == "status.nominatedNodeName") return o.status.rest->nominated_node_name;
    return MetaFieldValue(o, f);
  }
};

template <>
struct KindTraits<api::core::v1::Node> {
  static constexpr std::string_view kResource = "nodes";
  static constexpr std::string_view kGroup = "";
  static constexpr bool kHasStatus = true;
  static constexpr bool kCreateOnUpdate = false;
  static std::optional<std::string> FieldValue(const api::core::v1::Node& o, std::string_view f) {
    if (f == "spec.unschedulable") return std::string(o.spec.unschedulable ? "true" : "false");
    return MetaFieldValue(o, f);
  }
};

template <>
struct KindTraits<api::core::v1::Endpoints> : NoStatus {
  static constexpr std::string_view kResource = "endpoints";
  static constexpr std::string_view kGroup = "";
  static constexpr bool kCreateOnUpdate = true;
  static std::optional<std::string> FieldValue(const api::core::v1::Endpoints& o,
                                               std::string_view f) {
    return MetaFieldValue(o, f);
  }
};

template <>
struct KindTraits<api::core::v1::Event> : NoStatus {
  static constexpr std::string_view kResource = "events";
  static constexpr std::string_view kGroup = "";
  static constexpr bool kCreateOnUpdate = true;
  static std::optional<std::string> FieldValue(const api::core::v1::Event& o, std::string_view f) {
    const auto& io = o.involved_object;
    if (f == "involvedObject.kind") return io.kind;
    if (f == "involvedObject.namespace") return io.namespace_;
    if (f == "involvedObject.name") return io.name;
    if (f == "involvedObject.uid") return io.uid;
    if (f == "involvedObject.apiVersion") return io.api_version;
    if (f == "involvedObject.resourceVersion") return io.resource_version;
    if (f == "involvedObject.fieldPath") return io.field_path;
    if (f == "reason") return o.reason;
    if (f == "reportingComponent") return o.reporting_component;
    if (f == "source") return o.source.component;
    if (f == "type") return o.type;
    return MetaFieldValue(o, f);
  }
};

template <>
struct KindTraits<api::discovery::v1::EndpointSlice> : NoStatus {
  static constexpr std::string_view kResource = "endpointslices";
  static constexpr std::string_view kGroup = "discovery.k8s.io";
  static constexpr bool kCreateOnUpdate = false;
  static std::optional<std::string> FieldValue(const api::discovery::v1::EndpointSlice& o,
                                               std::string_view f) {
    return MetaFieldValue(o, f);
  }
};

template <>
struct KindTraits<api::coordination::v1::Lease> : NoStatus {
  static constexpr std::string_view kResource = "leases";
  static constexpr std::string_view kGroup = "coordination.k8s.io";
  static constexpr bool kCreateOnUpdate = true;
  static std::optional<std::string> FieldValue(const api::coordination::v1::Lease& o,
                                               std::string_view f) {
    return MetaFieldValue(o, f);
  }
};

// RBAC: upstream's strategies allow create on update (PUT of a missing object creates it).
template <>
struct KindTraits<api::rbac::v1::Role> : NoStatus {
  static constexpr std::string_view kResource = "roles";
  static constexpr std::string_view kGroup = "rbac.authorization.k8s.io";
  static constexpr bool kCreateOnUpdate = true;
  static std::optional<std::string> FieldValue(const api::rbac::v1::Role& o, std::string_view f) {
    return MetaFieldValue(o, f);
  }
};

template <>
struct KindTraits<api::rbac::v1::ClusterRole> : NoStatus {
  static constexpr std::string_view kResource = "clusterroles";
  static constexpr std::string_view kGroup = "rbac.authorization.k8s.io";
  static constexpr bool kCreateOnUpdate = true;
  static std::optional<std::string> FieldValue(const api::rbac::v1::ClusterRole& o,
                                               std::string_view f) {
    return MetaFieldValue(o, f);
  }
};

template <>
struct KindTraits<api::rbac::v1::RoleBinding> : NoStatus {
  static constexpr std::string_view kResource = "rolebindings";
  static constexpr std::string_view kGroup = "rbac.authorization.k8s.io";
  static constexpr bool kCreateOnUpdate = true;
  static std::optional<std::string> FieldValue(const api::rbac::v1::RoleBinding& o,
                                               std::string_view f) {
    return MetaFieldValue(o, f);
  }
};

template <>
struct KindTraits<api::rbac::v1::ClusterRoleBinding> : NoStatus {
  static constexpr std::string_view kResource = "clusterrolebindings";
  static constexpr std::string_view kGroup = "rbac.authorization.k8s.io";
  static constexpr bool kCreateOnUpdate = true;
  static std::optional<std::string> FieldValue(const api::rbac::v1::ClusterRoleBinding& o,
                                               std::string_view f) {
    return MetaFieldValue(o, f);
  }
};

template <>
struct KindTraits<api::apps::v1::Deployment> {
  static constexpr std::string_view kResource = "deployments";
  static constexpr std::string_view kGroup = "apps";
  static constexpr bool kHasStatus = true;
  static constexpr bool kCreateOnUpdate = false;
  static std::optional<std::string> FieldValue(const api::apps::v1::Deployment& o,
                                               std::string_view f) {
    return MetaFieldValue(o, f);
  }
};

// ReplicaSetToSelectableFields adds status.replicas.
template <>
struct KindTraits<api::apps::v1::ReplicaSet> {
  static constexpr std::string_view kResource = "replicasets";
  static constexpr std::string_view kGroup = "apps";
  static constexpr bool kHasStatus = true;
  static constexpr bool kCreateOnUpdate = false;
  static std::optional<std::string> FieldValue(const api::apps::v1::ReplicaSet& o,
                                               std::string_view f) {
    if (f == "status.replicas") return std::to_string(o.status.replicas);
    return MetaFieldValue(o, f);
  }
};

template <>
struct KindTraits<api::core::v1::ConfigMap> : NoStatus {
  static constexpr std::string_view kResource = "configmaps";
  static constexpr std::string_view kGroup = "";
  static constexpr bool kCreateOnUpdate = false;
  static std::optional<std::string> FieldValue(const api::core::v1::ConfigMap& o,
                                               std::string_view f) {
    return MetaFieldValue(o, f);
  }
};

// pkg/registry/core/secret SelectableFields adds type.
template <>
struct KindTraits<api::core::v1::Secret> : NoStatus {
  static constexpr std::string_view kResource = "secrets";
  static constexpr std::string_view kGroup = "";
  static constexpr bool kCreateOnUpdate = false;
  static std::optional<std::string> FieldValue(const api::core::v1::Secret& o, std::string_view f) {
    if (f == "type") return o.type;
    return MetaFieldValue(o, f);
  }
};

template <>
struct KindTraits<api::core::v1::ServiceAccount> : NoStatus {
  static constexpr std::string_view kResource = "serviceaccounts";
  static constexpr std::string_view kGroup = "";
  static constexpr bool kCreateOnUpdate = false;
  static std::optional<std::string> FieldValue(const api::core::v1::ServiceAccount& o,
                                               std::string_view f) {
    return MetaFieldValue(o, f);
  }
};

// The resource table entry of T.
template <typename T>
const api::ResourceInfo& InfoOf() {
  static const api::ResourceInfo* info =
      api::FindResource(KindTraits<T>::kGroup, KindTraits<T>::kResource);
  return *info;
}

// Sets kind and apiVersion to T's (served and stored objects carry them).
template <typename T>
void SetTypeMeta(T& obj) {
  obj.kind = std::string(InfoOf<T>().kind);
  obj.api_version = InfoOf<T>().GroupVersion();
}

// The stored form of `obj`: type meta filled in, no resourceVersion (the revision is the
// store's). Every store holds these bytes, or gives them back (storage::ValueCodec).
template <typename T>
std::shared_ptr<const std::string> StoredJson(T& obj) {
  SetTypeMeta(obj);
  std::string rv = std::exchange(obj.metadata.resource_version, {});
  std::string json = api::codec::EncodeJson(obj);
  obj.metadata.resource_version = std::move(rv);
  // The encoder grows its buffer by doubling, so up to half of it is slack. The stored bytes
  // live as long as the object and its watch history (whose budget counts size, not
  // capacity): give the slack back once here.
  json.shrink_to_fit();
  return std::make_shared<const std::string>(std::move(json));
}

// "pods" or "endpointslices.discovery.k8s.io": how upstream names a resource in messages.
template <typename T>
std::string QualifiedResource() {
  std::string out(KindTraits<T>::kResource);
  if (!KindTraits<T>::kGroup.empty()) out += "." + std::string(KindTraits<T>::kGroup);
  return out;
}

// "Service" or "EndpointSlice.discovery.k8s.io": how upstream names a kind in 422 messages.
template <typename T>
std::string QualifiedKind() {
  std::string out(InfoOf<T>().kind);
  if (!KindTraits<T>::kGroup.empty()) out += "." + std::string(KindTraits<T>::kGroup);
  return out;
}

}  // namespace svcplane::apiserver::registry
