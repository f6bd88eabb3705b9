#pragma once

// The PrepareForCreate / PrepareForUpdate halves of kube-apiserver's registry strategies
// (pkg/registry/*/strategy.go), plus the metadata resets rest.BeforeCreate/BeforeUpdate apply
// to every kind. Pure functions on the typed objects.
//
// Request flow the apiserver registry is expected to follow (as upstream):
//   create:  Default -> PrepareForCreate -> [allocator: Service IPs/ports] -> ValidateCreate
//            -> ValidateCommonCreate -> set uid/creationTimestamp/resourceVersion -> store
//   update:  Default -> PrepareForUpdate(new, old) -> [allocator] -> ValidateCommonUpdate
//            + ValidateUpdate -> store
//   /status: Default -> PrepareForStatusUpdate(new, old) -> ValidateStatusUpdate
// Every PrepareFor*Update starts with PrepareObjectMetaForUpdate, so callers need not.

#include "api/types.h"

namespace svcplane::api::validation {

// rest.BeforeCreate's metadata part: deletionTimestamp/deletionGracePeriodSeconds cleared
// (uid, creationTimestamp and resourceVersion need a clock and a store; the registry sets them).
void PrepareObjectMetaForCreate(meta::ObjectMeta& meta);
// rest.BeforeUpdate's metadata part: generation, uid (when empty), creationTimestamp,
// deletionTimestamp and deletionGracePeriodSeconds (when unset) come from the stored object.
void PrepareObjectMetaForUpdate(meta::ObjectMeta& new_meta, const meta::ObjectMeta& old_meta);

// Namespace: status {phase: Active}, "kubernetes" added to spec.finalizers, label
// kubernetes.io/metadata.name kept equal to the name. Main-resource updates keep the old
// spec.finalizers and status; /status keeps the old spec; /finalize keeps the old status.
void PrepareForCreate(core::v1::Namespace& ns);
void PrepareForUpdate(core::v1::Namespace& ns, const core::v1::Namespace& old);
void PrepareForStatusUpdate(core::v1::Namespace& ns, const core::v1::Namespace& old);
void PrepareForFinalizeUpdate(core::v1::Namespace& ns, const core::v1::Namespace& old);

// Service: status reset to {loadBalancer: {}} and clusterIPs initialised from clusterIP on
// create; on update the old status is kept, allocated clusterIP(s)/nodePorts/
// healthCheckNodePort are carried over when the request omits them, clusterIPs follow a
// changed clusterIP, fields the new type no longer uses are wiped (when unchanged), and a
// dual-stack -> SingleStack downgrade trims the secondary IP and family. Upstream sets no
// generation for Services.
//
// Allocation hook: after PrepareForCreate/PrepareForUpdate the allocator (a later issue) must
// fill clusterIP+clusterIPs (unless "None" or ExternalName), ipFamilies/ipFamilyPolicy,
// nodePorts for NodePort/LoadBalancer and healthCheckNodePort for LoadBalancer+Local, and
// release what dropped out; validation then checks the result.
void PrepareForCreate(core::v1::Service& svc);
void PrepareForUpdate(core::v1::Service& svc, const core::v1::Service& old);
void PrepareForStatusUpdate(core::v1::Service& svc, const core::v1::Service& old);

// Pod: generation 1 and status {phase: Pending, qosClass} on create; updates keep the old status
// and bump generation when the spec changed; /status keeps the old spec, deletionTimestamp and
// ownerReferences, and backfills an empty qosClass.
void PrepareForCreate(core::v1::Pod& pod);
void PrepareForUpdate(core::v1::Pod& pod, const core::v1::Pod& old);
void PrepareForStatusUpdate(core::v1::Pod& pod, const core::v1::Pod& old);
// GetPodQOS from the containers' resources: "BestEffort", "Burstable" or "Guaranteed".
std::string PodQOSClass(const core::v1::Pod& pod);

// Node: updates keep the old status; /status keeps the old spec. Create keeps the status the
// kubelet registers with.
void PrepareForCreate(core::v1::Node& node);
void PrepareForUpdate(core::v1::Node& node, const core::v1::Node& old);
void PrepareForStatusUpdate(core::v1::Node& node, const core::v1::Node& old);

// EndpointSlice: generation 1 on create; +1 on update when anything outside metadata or the
// labels changed, else the stored generation.
void PrepareForCreate(discovery::v1::EndpointSlice& slice);
void PrepareForUpdate(discovery::v1::EndpointSlice& slice, const discovery::v1::EndpointSlice& old);

// Endpoints, Lease, Event: only the generic metadata handling.
void PrepareForCreate(core::v1::Endpoints& ep);
void PrepareForUpdate(core::v1::Endpoints& ep, const core::v1::Endpoints& old);
void PrepareForCreate(coordination::v1::Lease& lease);
void PrepareForUpdate(coordination::v1::Lease& lease, const coordination::v1::Lease& old);
void PrepareForCreate(core::v1::Event& event);
void PrepareForCreate(core::v1::ConfigMap& cm);
void PrepareForUpdate(core::v1::ConfigMap& cm, const core::v1::ConfigMap& old);
void PrepareForCreate(core::v1::Secret& secret);
void PrepareForUpdate(core::v1::Secret& secret, const core::v1::Secret& old);
void PrepareForCreate(core::v1::ServiceAccount& sa);
void PrepareForUpdate(core::v1::ServiceAccount& sa, const core::v1::ServiceAccount& old);
void PrepareForUpdate(core::v1::Event& event, const core::v1::Event& old);

// Role, ClusterRole, RoleBinding, ClusterRoleBinding: only the generic metadata handling
// (pkg/registry/rbac/*/strategy.go). The escalation checks of the RBAC storage are not here.
void PrepareForCreate(rbac::v1::Role& role);
void PrepareForUpdate(rbac::v1::Role& role, const rbac::v1::Role& old);
void PrepareForCreate(rbac::v1::ClusterRole& role);
void PrepareForUpdate(rbac::v1::ClusterRole& role, const rbac::v1::ClusterRole& old);
void PrepareForCreate(rbac::v1::RoleBinding& binding);
void PrepareForUpdate(rbac::v1::RoleBinding& binding, const rbac::v1::RoleBinding& old);
void PrepareForCreate(rbac::v1::ClusterRoleBinding& binding);
void PrepareForUpdate(rbac::v1::ClusterRoleBinding& binding,
                      const rbac::v1::ClusterRoleBinding& old);

// Deployment and ReplicaSet: status reset and generation 1 on create; updates keep the old
// status and bump the generation when the spec (Deployment: or the annotations) changed;
// /status keeps the old spec (Deployment: and labels).
void PrepareForCreate(apps::v1::Deployment& deployment);
void PrepareForUpdate(apps::v1::Deployment& deployment, const apps::v1::Deployment& old);
void PrepareForStatusUpdate(apps::v1::Deployment& deployment, const apps::v1::Deployment& old);
void PrepareForCreate(apps::v1::ReplicaSet& rs);
void PrepareForUpdate(apps::v1::ReplicaSet& rs, const apps::v1::ReplicaSet& old);
void PrepareForStatusUpdate(apps::v1::ReplicaSet& rs, const apps::v1::ReplicaSet& old);

}  // namespace svcplane::api::validation
