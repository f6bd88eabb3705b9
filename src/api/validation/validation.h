#pragma once

// Create/update validation for every kind svcplane serves, as kube-apiserver's registry
// strategies run it (pkg/apis/*/validation). Pure functions: no I/O, no allocator state.
//
// Contract with the caller (the apiserver registry), mirroring upstream's request flow:
//   decode -> Default(obj) -> PrepareForCreate/PrepareForUpdate (strategy.h) -> Validate*.
// Validation expects what those steps produce: e.g. Service clusterIPs mirrored from clusterIP
// (NormalizeClusterIPs in PrepareFor*), Pod status reset, and for updates a non-empty
// metadata.resourceVersion (the registry copies the stored one for unconditional updates).
// Turn a non-empty result into a 422 with ToInvalidStatus(kind, name, errors).
//
// Not checked here, because they need cluster state: the node-port range and port/IP
// allocation (ServiceCIDR membership, "provided port is already allocated"), namespace
// existence and termination. Those belong to the allocator and registry.

#include "api/types.h"
#include "api/validation/field_errors.h"
#include "api/validation/names.h"

namespace svcplane::api::validation {

// ---- ObjectMeta (apimachinery ValidateObjectMeta / ValidateObjectMetaUpdate plus core's
// finalizer-name rule). `requires_namespace` is true for namespaced kinds.
FieldErrorList ValidateObjectMeta(const meta::ObjectMeta& meta, bool requires_namespace,
                                  NameValidator name_fn, const FieldPath& path);
FieldErrorList ValidateObjectMetaUpdate(const meta::ObjectMeta& new_meta,
                                        const meta::ObjectMeta& old_meta, const FieldPath& path);

// The generic checks kube-apiserver's registry runs for every kind besides the kind's own
// (rest.BeforeCreate / rest.BeforeUpdate), with names checked only as URL path segments.
// Upstream order: on create, ValidateCommonCreate runs only if the kind's ValidateCreate found
// nothing; on update, ValidateCommonUpdate's errors come first, then the kind's ValidateUpdate's
// (duplicates included: upstream's causes repeat them, the aggregated message does not).
FieldErrorList ValidateCommonCreate(const meta::ObjectMeta& meta, bool namespaced);
FieldErrorList ValidateCommonUpdate(const meta::ObjectMeta& new_meta,
                                    const meta::ObjectMeta& old_meta, bool namespaced);

// ---- Namespace (cluster-scoped; name is a DNS-1123 label).
FieldErrorList ValidateCreate(const core::v1::Namespace& ns);
FieldErrorList ValidateUpdate(const core::v1::Namespace& ns, const core::v1::Namespace& old);
FieldErrorList ValidateStatusUpdate(const core::v1::Namespace& ns, const core::v1::Namespace& old);
// PUT .../namespaces/{name}/finalize.
FieldErrorList ValidateFinalizeUpdate(const core::v1::Namespace& ns,
                                      const core::v1::Namespace& old);

// ---- Service (name is a DNS-1035 label).
FieldErrorList ValidateCreate(const core::v1::Service& svc);
FieldErrorList ValidateUpdate(const core::v1::Service& svc, const core::v1::Service& old);
FieldErrorList ValidateStatusUpdate(const core::v1::Service& svc, const core::v1::Service& old);

// ---- Pod.
FieldErrorList ValidateCreate(const core::v1::Pod& pod);
FieldErrorList ValidateUpdate(const core::v1::Pod& pod, const core::v1::Pod& old);
FieldErrorList ValidateStatusUpdate(const core::v1::Pod& pod, const core::v1::Pod& old);

// ---- Node (cluster-scoped). /status uses the same rules as the main resource upstream.
FieldErrorList ValidateCreate(const core::v1::Node& node);
FieldErrorList ValidateUpdate(const core::v1::Node& node, const core::v1::Node& old);
FieldErrorList ValidateStatusUpdate(const core::v1::Node& node, const core::v1::Node& old);

// ---- Endpoints.
FieldErrorList ValidateCreate(const core::v1::Endpoints& ep);
FieldErrorList ValidateUpdate(const core::v1::Endpoints& ep, const core::v1::Endpoints& old);

// ---- EndpointSlice (discovery.k8s.io/v1).
FieldErrorList ValidateCreate(const discovery::v1::EndpointSlice& slice);
FieldErrorList ValidateUpdate(const discovery::v1::EndpointSlice& slice,
                              const discovery::v1::EndpointSlice& old);

// ---- Lease (coordination.k8s.io/v1).
FieldErrorList ValidateCreate(const coordination::v1::Lease& lease);
FieldErrorList ValidateUpdate(const coordination::v1::Lease& lease,
                              const coordination::v1::Lease& old);

// ---- apps/v1 Deployment and ReplicaSet (names: DNS-1123 subdomains). The selector is
// required, non-empty, must match the template labels and is immutable; the template must
// restart Always and have no activeDeadlineSeconds. /status checks the counters.
FieldErrorList ValidateCreate(const apps::v1::Deployment& deployment);
FieldErrorList ValidateUpdate(const apps::v1::Deployment& deployment,
                              const apps::v1::Deployment& old);
FieldErrorList ValidateStatusUpdate(const apps::v1::Deployment& deployment,
                                    const apps::v1::Deployment& old);
FieldErrorList ValidateCreate(const apps::v1::ReplicaSet& rs);
FieldErrorList ValidateUpdate(const apps::v1::ReplicaSet& rs, const apps::v1::ReplicaSet& old);
FieldErrorList ValidateStatusUpdate(const apps::v1::ReplicaSet& rs,
                                    const apps::v1::ReplicaSet& old);
// ValidatePodTemplateSpec (core): template labels (at <path>.labels, as upstream), annotations
// and the pod spec.
FieldErrorList ValidatePodTemplateSpec(const core::v1::PodTemplateSpec& t, const FieldPath& path);
// The PodSpec rules shared by Pods and pod templates.
FieldErrorList ValidatePodSpec(const core::v1::PodSpec& spec, const FieldPath& path);

// ---- core/v1 ConfigMap, Secret and ServiceAccount (names: DNS-1123 subdomains). Keys of
// data/binaryData must be config keys (IsConfigMapKey), a key may not be in both, and the values
// total at most 1 MiB; Secrets get their type's required keys. Once `immutable` is set, it and
// the data may not change; a Secret's type never changes.
FieldErrorList ValidateCreate(const core::v1::ConfigMap& cm);
FieldErrorList ValidateUpdate(const core::v1::ConfigMap& cm, const core::v1::ConfigMap& old);
FieldErrorList ValidateCreate(const core::v1::Secret& secret);
FieldErrorList ValidateUpdate(const core::v1::Secret& secret, const core::v1::Secret& old);
FieldErrorList ValidateCreate(const core::v1::ServiceAccount& sa);
FieldErrorList ValidateUpdate(const core::v1::ServiceAccount& sa,
                              const core::v1::ServiceAccount& old);
// IsConfigMapKey of apimachinery: the messages for a key that is not valid (none when valid).
std::vector<std::string> ConfigMapKeyErrors(std::string_view key);
// core.MaxSecretSize: the limit on the summed values of a ConfigMap or a Secret.
inline constexpr int64_t kMaxSecretSize = 1 * 1024 * 1024;

// ---- rbac.authorization.k8s.io/v1. Names (and roleRef.name) need only be URL path segments;
// updates of bindings may not change roleRef (`cannot change roleRef`).
FieldErrorList ValidateCreate(const rbac::v1::Role& role);
FieldErrorList ValidateUpdate(const rbac::v1::Role& role, const rbac::v1::Role& old);
FieldErrorList ValidateCreate(const rbac::v1::ClusterRole& role);
FieldErrorList ValidateUpdate(const rbac::v1::ClusterRole& role, const rbac::v1::ClusterRole& old);
FieldErrorList ValidateCreate(const rbac::v1::RoleBinding& binding);
FieldErrorList ValidateUpdate(const rbac::v1::RoleBinding& binding,
                              const rbac::v1::RoleBinding& old);
FieldErrorList ValidateCreate(const rbac::v1::ClusterRoleBinding& binding);
FieldErrorList ValidateUpdate(const rbac::v1::ClusterRoleBinding& binding,
                              const rbac::v1::ClusterRoleBinding& old);

// ---- Event (core/v1). Requests through core/v1 get upstream's legacy (lenient) rules only.
FieldErrorList ValidateCreate(const core::v1::Event& event);
FieldErrorList ValidateUpdate(const core::v1::Event& event, const core::v1::Event& old);

}  // namespace svcplane::api::validation
