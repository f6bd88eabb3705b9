#pragma once

// Every kind svcplane serves, and their List kinds.

#include "api/apps/v1/apps.h"
#include "api/coordination/v1/lease.h"
#include "api/core/v1/binding.h"
#include "api/core/v1/config_map.h"
#include "api/core/v1/endpoints.h"
#include "api/core/v1/event.h"
#include "api/core/v1/namespace.h"
#include "api/core/v1/node.h"
#include "api/core/v1/pod.h"
#include "api/core/v1/service.h"
#include "api/core/v1/service_account.h"
#include "api/discovery/v1/endpoint_slice.h"
#include "api/meta/list.h"
#include "api/meta/types.h"
#include "api/rbac/v1/rbac.h"

namespace svcplane::api {

using NamespaceList = meta::List<core::v1::Namespace>;
using ServiceList = meta::List<core::v1::Service>;
using PodList = meta::List<core::v1::Pod>;
using NodeList = meta::List<core::v1::Node>;
using EndpointsList = meta::List<core::v1::Endpoints>;
using EventList = meta::List<core::v1::Event>;
using EndpointSliceList = meta::List<discovery::v1::EndpointSlice>;
using LeaseList = meta::List<coordination::v1::Lease>;
using RoleList = meta::List<rbac::v1::Role>;
using ClusterRoleList = meta::List<rbac::v1::ClusterRole>;
using RoleBindingList = meta::List<rbac::v1::RoleBinding>;
using ClusterRoleBindingList = meta::List<rbac::v1::ClusterRoleBinding>;
using DeploymentList = meta::List<apps::v1::Deployment>;
using ReplicaSetList = meta::List<apps::v1::ReplicaSet>;
using ConfigMapList = meta::List<core::v1::ConfigMap>;
using SecretList = meta::List<core::v1::Secret>;
using ServiceAccountList = meta::List<core::v1::ServiceAccount>;

}  // namespace svcplane::api
