#pragma once

// The upstream protobuf message of each reflected API struct, to find its schema (for the
// members the model keeps as JSON). Found through ADL on meta::Tag<T>, like FieldsOf.

#include <string>

#include "api/authentication/v1/self_subject_review.h"
#include "api/authorization/v1/reviews.h"
#include "api/autoscaling/v1/scale.h"
#include "api/types.h"

namespace svcplane::api::meta {

#define SVCPLANE_PROTO_NAME(T, name) \
  inline std::string ProtoName(Tag<T>) { return name; }

#define SVCPLANE_META(T, name) SVCPLANE_PROTO_NAME(T, "k8s.io.apimachinery.pkg.apis.meta.v1." name)
SVCPLANE_META(OwnerReference, "OwnerReference")
SVCPLANE_META(ObjectMeta, "ObjectMeta")
SVCPLANE_META(ListMeta, "ListMeta")
SVCPLANE_META(StatusCauseJson, "StatusCause")
SVCPLANE_META(StatusDetails, "StatusDetails")
SVCPLANE_META(StatusObject, "Status")
#undef SVCPLANE_META
SVCPLANE_PROTO_NAME(ObjectReference, "k8s.io.api.core.v1.ObjectReference")

template <typename T>
std::string ProtoName(Tag<List<T>>) {
  return ProtoName(Tag<T>{}) + "List";
}

}  // namespace svcplane::api::meta

namespace svcplane::api::core::v1 {
#define SVCPLANE_CORE(T) SVCPLANE_PROTO_NAME(T, "k8s.io.api.core.v1." #T)
SVCPLANE_CORE(ContainerPort)
SVCPLANE_CORE(Container)
SVCPLANE_CORE(PodReadinessGate)
SVCPLANE_CORE(PodSpec)
SVCPLANE_CORE(PodCondition)
SVCPLANE_CORE(PodIP)  // HostIP has the same single field
SVCPLANE_CORE(PodStatus)
SVCPLANE_CORE(Pod)
SVCPLANE_CORE(ServicePort)
SVCPLANE_CORE(ClientIPConfig)
SVCPLANE_CORE(SessionAffinityConfig)
SVCPLANE_CORE(ServiceSpec)
SVCPLANE_CORE(LoadBalancerStatus)
SVCPLANE_CORE(ServiceStatus)
SVCPLANE_CORE(Service)
SVCPLANE_CORE(NamespaceCondition)
SVCPLANE_CORE(NamespaceSpec)
SVCPLANE_CORE(NamespaceStatus)
SVCPLANE_CORE(Namespace)
SVCPLANE_CORE(Taint)
SVCPLANE_CORE(NodeSpec)
SVCPLANE_CORE(NodeCondition)
SVCPLANE_CORE(NodeAddress)
SVCPLANE_CORE(DaemonEndpoint)
SVCPLANE_CORE(NodeDaemonEndpoints)
SVCPLANE_CORE(NodeSystemInfo)
SVCPLANE_CORE(NodeStatus)
SVCPLANE_CORE(Node)
SVCPLANE_CORE(EndpointAddress)
SVCPLANE_CORE(EndpointPort)
SVCPLANE_CORE(EndpointSubset)
SVCPLANE_CORE(Endpoints)
SVCPLANE_CORE(EventSource)
SVCPLANE_CORE(EventSeries)
SVCPLANE_CORE(Event)
SVCPLANE_CORE(Binding)
SVCPLANE_CORE(ConfigMap)
SVCPLANE_CORE(Secret)
SVCPLANE_CORE(LocalObjectReference)
SVCPLANE_CORE(ServiceAccount)
#undef SVCPLANE_CORE
}  // namespace svcplane::api::core::v1

namespace svcplane::api::discovery::v1 {
#define SVCPLANE_DISCOVERY(T) SVCPLANE_PROTO_NAME(T, "k8s.io.api.discovery.v1." #T)
SVCPLANE_DISCOVERY(EndpointConditions)
SVCPLANE_DISCOVERY(ForZone)
SVCPLANE_DISCOVERY(ForNode)
SVCPLANE_DISCOVERY(EndpointHints)
SVCPLANE_DISCOVERY(Endpoint)
SVCPLANE_DISCOVERY(EndpointPort)
SVCPLANE_DISCOVERY(EndpointSlice)
#undef SVCPLANE_DISCOVERY
}  // namespace svcplane::api::discovery::v1

namespace svcplane::api::coordination::v1 {
SVCPLANE_PROTO_NAME(LeaseSpec, "k8s.io.api.coordination.v1.LeaseSpec")
SVCPLANE_PROTO_NAME(Lease, "k8s.io.api.coordination.v1.Lease")
}  // namespace svcplane::api::coordination::v1

namespace svcplane::api::selectors {
using meta::Tag;
SVCPLANE_PROTO_NAME(LabelSelectorSpec, "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector")
SVCPLANE_PROTO_NAME(LabelSelectorRequirement,
                    "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement")
}  // namespace svcplane::api::selectors

namespace svcplane::api::rbac::v1 {
#define SVCPLANE_RBAC(T) SVCPLANE_PROTO_NAME(T, "k8s.io.api.rbac.v1." #T)
SVCPLANE_RBAC(PolicyRule)
SVCPLANE_RBAC(Subject)
SVCPLANE_RBAC(RoleRef)
SVCPLANE_RBAC(AggregationRule)
SVCPLANE_RBAC(Role)
SVCPLANE_RBAC(ClusterRole)
SVCPLANE_RBAC(RoleBinding)
SVCPLANE_RBAC(ClusterRoleBinding)
#undef SVCPLANE_RBAC
}  // namespace svcplane::api::rbac::v1
namespace svcplane::api::core::v1 {
SVCPLANE_PROTO_NAME(PodTemplateSpec, "k8s.io.api.core.v1.PodTemplateSpec")
}  // namespace svcplane::api::core::v1

namespace svcplane::api::apps::v1 {
#define SVCPLANE_APPS(T) SVCPLANE_PROTO_NAME(T, "k8s.io.api.apps.v1." #T)
SVCPLANE_APPS(RollingUpdateDeployment)
SVCPLANE_APPS(DeploymentStrategy)
SVCPLANE_APPS(DeploymentSpec)
SVCPLANE_APPS(DeploymentCondition)
SVCPLANE_APPS(DeploymentStatus)
SVCPLANE_APPS(Deployment)
SVCPLANE_APPS(ReplicaSetSpec)
SVCPLANE_APPS(ReplicaSetCondition)
SVCPLANE_APPS(ReplicaSetStatus)
SVCPLANE_APPS(ReplicaSet)
#undef SVCPLANE_APPS
}  // namespace svcplane::api::apps::v1

namespace svcplane::api::autoscaling::v1 {
SVCPLANE_PROTO_NAME(ScaleSpec, "k8s.io.api.autoscaling.v1.ScaleSpec")
SVCPLANE_PROTO_NAME(ScaleStatus, "k8s.io.api.autoscaling.v1.ScaleStatus")
SVCPLANE_PROTO_NAME(Scale, "k8s.io.api.autoscaling.v1.Scale")
}  // namespace svcplane::api::autoscaling::v1

// The review kinds keep no unknown members, so their schema is only looked up, never needed.
namespace svcplane::api::authentication::v1 {
#define SVCPLANE_AUTHN(T) SVCPLANE_PROTO_NAME(T, "k8s.io.api.authentication.v1." #T)
SVCPLANE_AUTHN(UserInfo)
SVCPLANE_AUTHN(SelfSubjectReviewStatus)
SVCPLANE_AUTHN(SelfSubjectReview)
#undef SVCPLANE_AUTHN
}  // namespace svcplane::api::authentication::v1

namespace svcplane::api::authorization::v1 {
#define SVCPLANE_AUTHZ(T) SVCPLANE_PROTO_NAME(T, "k8s.io.api.authorization.v1." #T)
SVCPLANE_PROTO_NAME(SelectorAttributes, "k8s.io.api.authorization.v1.FieldSelectorAttributes")
SVCPLANE_AUTHZ(ResourceAttributes)
SVCPLANE_AUTHZ(NonResourceAttributes)
SVCPLANE_AUTHZ(SelfSubjectAccessReviewSpec)
SVCPLANE_AUTHZ(SubjectAccessReviewStatus)
SVCPLANE_AUTHZ(SelfSubjectAccessReview)
SVCPLANE_AUTHZ(SelfSubjectRulesReviewSpec)
SVCPLANE_AUTHZ(ResourceRule)
SVCPLANE_AUTHZ(NonResourceRule)
SVCPLANE_AUTHZ(SubjectRulesReviewStatus)
SVCPLANE_AUTHZ(SelfSubjectRulesReview)
#undef SVCPLANE_AUTHZ
}  // namespace svcplane::api::authorization::v1

#undef SVCPLANE_PROTO_NAME
