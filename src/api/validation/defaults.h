#pragma once

// v1 defaulting (pkg/apis/core/v1/defaults.go, pkg/apis/discovery/v1/defaults.go and the
// v1 <-> internal conversion quirks that show up in stored objects). Pure and idempotent; the
// API server runs it on every decoded request body, before PrepareFor* and validation.
//
// Deliberately not here: the IP-allocation part of Service defaulting (clusterIP(s),
// ipFamilies, ipFamilyPolicy, nodePorts, healthCheckNodePort). Those depend on cluster state and
// belong to the Service allocator, which runs after PrepareForCreate/PrepareForUpdate and before
// validation (see strategy.h).

#include "api/types.h"

namespace svcplane::api::validation {

// Label kubernetes.io/metadata.name=<name> (when named) and status.phase Active.
void Default(core::v1::Namespace& ns);
// type ClusterIP; ports' protocol TCP and targetPort = port; sessionAffinity None (and its
// config cleared) or ClientIP with timeoutSeconds 10800; externalTrafficPolicy Cluster when
// externally accessible; internalTrafficPolicy Cluster for ClusterIP/NodePort/LoadBalancer;
// allocateLoadBalancerNodePorts true for LoadBalancer, and for LoadBalancer status ingress
// entries with an ip, ipMode "VIP".
void Default(core::v1::Service& svc);
// restartPolicy Always, dnsPolicy ClusterFirst, securityContext {}, terminationGracePeriodSeconds
// 30, schedulerName default-scheduler, enableServiceLinks true, serviceAccount mirrored with
// serviceAccountName; containers: imagePullPolicy (Always for :latest or untagged, else
// IfNotPresent), terminationMessagePath /dev/termination-log, terminationMessagePolicy File,
// port protocol TCP, hostPort = containerPort under hostNetwork, and resources.requests
// filled from resources.limits where missing. Also the v1 conversion round trip of status
// podIP/podIPs and hostIP/hostIPs (singular wins on conflict; plural[0] written back).
void Default(core::v1::Pod& pod);
// status.allocatable defaults to status.capacity; spec.podCIDR/podCIDRs kept in step as the
// v1 conversion does.
void Default(core::v1::Node& node);
// Ports' protocol TCP.
void Default(core::v1::Endpoints& ep);
// Ports' name "" and protocol TCP.
void Default(discovery::v1::EndpointSlice& slice);
// Upstream has no defaults for these; present so that callers can treat every kind alike.
void Default(coordination::v1::Lease& lease);
void Default(core::v1::Event& event);
// roleRef.apiGroup "" -> rbac.authorization.k8s.io; subjects' apiGroup "" -> the rbac group for
// User and Group, "" for ServiceAccount (pkg/apis/rbac/v1/defaults.go). Roles have none.
void Default(rbac::v1::Role& role);
void Default(rbac::v1::ClusterRole& role);
void Default(rbac::v1::RoleBinding& binding);
void Default(rbac::v1::ClusterRoleBinding& binding);

// Deployment: replicas 1, strategy RollingUpdate with maxUnavailable/maxSurge "25%",
// revisionHistoryLimit 10, progressDeadlineSeconds 600; ReplicaSet: replicas 1. Both templates
// get DefaultPodSpec(pod_only=false).
void Default(apps::v1::Deployment& deployment);
void Default(apps::v1::ReplicaSet& rs);
// SetDefaults_PodSpec and the container defaults; `pod_only` adds what only Pods get
// (requests from limits, enableServiceLinks).
void DefaultPodSpec(core::v1::PodSpec& spec, bool pod_only);

// ConfigMap and ServiceAccount have no defaults. Secret: type "" -> Opaque, and the write-only
// stringData folded into data (stringData wins for a key in both) and cleared, as upstream's
// v1 -> internal conversion does: it is never stored nor returned.
void Default(core::v1::ConfigMap& cm);
void Default(core::v1::Secret& secret);
void Default(core::v1::ServiceAccount& sa);

// The imagePullPolicy upstream picks for an image reference ("Always" for a :latest or
// untagged, undigested image, else "IfNotPresent").
std::string DefaultImagePullPolicy(std::string_view image);

}  // namespace svcplane::api::validation
