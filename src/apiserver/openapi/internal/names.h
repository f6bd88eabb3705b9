#pragma once

#include <string_view>

#include "api/authentication/v1/self_subject_review.h"
#include "api/authorization/v1/reviews.h"
#include "api/autoscaling/v1/scale.h"
#include "api/types.h"

// Upstream OpenAPI component names for every reflected type (components.schemas keys). A type
// missing here fails to compile where the schema walker reaches it, which is the point.
namespace svcplane::apiserver::openapi::internal {

template <typename T>
struct SchemaName;

#define SVCPLANE_SCHEMA_NAME(T, N)               \
  template <>                                    \
  struct SchemaName<T> {                         \
    static constexpr std::string_view kName = N; \
  };

#define SVCPLANE_META(T) \
  SVCPLANE_SCHEMA_NAME(api::meta::T, "io.k8s.apimachinery.pkg.apis.meta.v1." #T)
#define SVCPLANE_CORE(T) SVCPLANE_SCHEMA_NAME(api::core::v1::T, "io.k8s.api.core.v1." #T)
#define SVCPLANE_CORE_LIST(T) \
  SVCPLANE_SCHEMA_NAME(api::meta::List<api::core::v1::T>, "io.k8s.api.core.v1." #T "List")

SVCPLANE_META(ObjectMeta)
SVCPLANE_META(ListMeta)
SVCPLANE_META(OwnerReference)
SVCPLANE_META(StatusDetails)
SVCPLANE_SCHEMA_NAME(api::meta::StatusCauseJson, "io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause")
SVCPLANE_SCHEMA_NAME(api::meta::StatusObject, "io.k8s.apimachinery.pkg.apis.meta.v1.Status")
SVCPLANE_SCHEMA_NAME(api::meta::ObjectReference, "io.k8s.api.core.v1.ObjectReference")

SVCPLANE_CORE(ContainerPort)
SVCPLANE_CORE(Container)
SVCPLANE_CORE(PodReadinessGate)
SVCPLANE_CORE(PodSpec)
SVCPLANE_CORE(PodCondition)
SVCPLANE_CORE(PodIP)
SVCPLANE_CORE(PodStatus)
SVCPLANE_CORE(Pod)
SVCPLANE_CORE(ServicePort)
SVCPLANE_CORE(ClientIPConfig)
SVCPLANE_CORE(SessionAffinityConfig)
SVCPLANE_CORE(ServiceSpec)
SVCPLANE_CORE(LoadBalancerStatus)
SVCPLANE_CORE(ServiceStatus)
SVCPLANE_CORE(Service)
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
SVCPLANE_CORE(NamespaceCondition)
SVCPLANE_CORE(NamespaceSpec)
SVCPLANE_CORE(NamespaceStatus)
SVCPLANE_CORE(Namespace)
SVCPLANE_CORE_LIST(Pod)
SVCPLANE_CORE_LIST(Service)
SVCPLANE_CORE_LIST(Node)
SVCPLANE_CORE_LIST(Event)
SVCPLANE_CORE_LIST(Namespace)
SVCPLANE_CORE(ConfigMap)
SVCPLANE_CORE(Secret)
SVCPLANE_CORE(LocalObjectReference)
SVCPLANE_CORE(ServiceAccount)
SVCPLANE_CORE_LIST(ConfigMap)
SVCPLANE_CORE_LIST(Secret)
SVCPLANE_CORE_LIST(ServiceAccount)
SVCPLANE_SCHEMA_NAME(api::EndpointsList, "io.k8s.api.core.v1.EndpointsList")

#define SVCPLANE_DISCOVERY(T) \
  SVCPLANE_SCHEMA_NAME(api::discovery::v1::T, "io.k8s.api.discovery.v1." #T)
SVCPLANE_DISCOVERY(EndpointConditions)
SVCPLANE_DISCOVERY(ForZone)
SVCPLANE_DISCOVERY(ForNode)
SVCPLANE_DISCOVERY(EndpointHints)
SVCPLANE_DISCOVERY(Endpoint)
SVCPLANE_DISCOVERY(EndpointPort)
SVCPLANE_DISCOVERY(EndpointSlice)
SVCPLANE_SCHEMA_NAME(api::EndpointSliceList, "io.k8s.api.discovery.v1.EndpointSliceList")

SVCPLANE_SCHEMA_NAME(api::coordination::v1::LeaseSpec, "io.k8s.api.coordination.v1.LeaseSpec")
SVCPLANE_SCHEMA_NAME(api::coordination::v1::Lease, "io.k8s.api.coordination.v1.Lease")
SVCPLANE_SCHEMA_NAME(api::LeaseList, "io.k8s.api.coordination.v1.LeaseList")

SVCPLANE_SCHEMA_NAME(api::selectors::LabelSelectorSpec,
                     "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector")
SVCPLANE_SCHEMA_NAME(api::selectors::LabelSelectorRequirement,
                     "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement")

#define SVCPLANE_RBAC(T) SVCPLANE_SCHEMA_NAME(api::rbac::v1::T, "io.k8s.api.rbac.v1." #T)
SVCPLANE_RBAC(PolicyRule)
SVCPLANE_RBAC(Subject)
SVCPLANE_RBAC(RoleRef)
SVCPLANE_RBAC(AggregationRule)
SVCPLANE_RBAC(Role)
SVCPLANE_RBAC(ClusterRole)
SVCPLANE_RBAC(RoleBinding)
SVCPLANE_RBAC(ClusterRoleBinding)
#undef SVCPLANE_RBAC
SVCPLANE_SCHEMA_NAME(api::RoleList, "io.k8s.api.rbac.v1.RoleList")
SVCPLANE_SCHEMA_NAME(api::ClusterRoleList, "io.k8s.api.rbac.v1.ClusterRoleList")
SVCPLANE_SCHEMA_NAME(api::RoleBindingList, "io.k8s.api.rbac.v1.RoleBindingList")
SVCPLANE_SCHEMA_NAME(api::ClusterRoleBindingList, "io.k8s.api.rbac.v1.ClusterRoleBindingList")
// The review kinds. authentication.k8s.io v1beta1 serves the same type under the v1 name.
#define SVCPLANE_AUTHN(T) \
  SVCPLANE_SCHEMA_NAME(api::authentication::v1::T, "io.k8s.api.authentication.v1." #T)
#define SVCPLANE_AUTHZ(T) \
  SVCPLANE_SCHEMA_NAME(api::authorization::v1::T, "io.k8s.api.authorization.v1." #T)
SVCPLANE_AUTHN(UserInfo)
SVCPLANE_AUTHN(SelfSubjectReviewStatus)
SVCPLANE_AUTHN(SelfSubjectReview)
SVCPLANE_SCHEMA_NAME(api::authorization::v1::SelectorAttributes,
                     "io.k8s.api.authorization.v1.FieldSelectorAttributes")
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
#undef SVCPLANE_AUTHN

SVCPLANE_SCHEMA_NAME(api::core::v1::PodTemplateSpec, "io.k8s.api.core.v1.PodTemplateSpec")
#define SVCPLANE_APPS(T) SVCPLANE_SCHEMA_NAME(api::apps::v1::T, "io.k8s.api.apps.v1." #T)
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
SVCPLANE_SCHEMA_NAME(api::DeploymentList, "io.k8s.api.apps.v1.DeploymentList")
SVCPLANE_SCHEMA_NAME(api::ReplicaSetList, "io.k8s.api.apps.v1.ReplicaSetList")

SVCPLANE_SCHEMA_NAME(api::autoscaling::v1::ScaleSpec, "io.k8s.api.autoscaling.v1.ScaleSpec")
SVCPLANE_SCHEMA_NAME(api::autoscaling::v1::ScaleStatus, "io.k8s.api.autoscaling.v1.ScaleStatus")
SVCPLANE_SCHEMA_NAME(api::autoscaling::v1::Scale, "io.k8s.api.autoscaling.v1.Scale")

#undef SVCPLANE_DISCOVERY
#undef SVCPLANE_CORE_LIST
#undef SVCPLANE_CORE
#undef SVCPLANE_META
#undef SVCPLANE_SCHEMA_NAME

inline constexpr std::string_view kTimeName = "io.k8s.apimachinery.pkg.apis.meta.v1.Time";
inline constexpr std::string_view kMicroTimeName = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime";
inline constexpr std::string_view kIntOrStringName =
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString";
inline constexpr std::string_view kQuantityName = "io.k8s.apimachinery.pkg.api.resource.Quantity";

}  // namespace svcplane::apiserver::openapi::internal
