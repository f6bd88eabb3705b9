// The compiled schemas against every row of spec server-side-apply.md §3.

#include "apiserver/fieldmanager/internal/merge_schema.h"

#include <gtest/gtest.h>

#include "api/resources.h"
#include "apiserver/fieldmanager/typed.h"

namespace svcplane::apiserver::fieldmanager {
namespace {

using internal::Relationship;
using internal::ScalarType;
using internal::TypeNode;

// The node at a dotted path; "x[]" steps into the items of list x.
const TypeNode* At(std::string_view kind, std::string_view path) {
  const TypeSchema* schema = SchemaForKind(kind);
  if (!schema) return nullptr;
  const TypeNode* t = schema->root();
  while (!path.empty() && t) {
    size_t dot = path.find('.');
    std::string_view step = path.substr(0, dot);
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    bool items = step.ends_with("[]");
    if (items) step.remove_suffix(2);
    const TypeNode* field = t->FindField(step);
    t = field ? field : t->map_element;
    if (t && items) t = t->is_list ? t->list_element : nullptr;
  }
  return t;
}

::testing::AssertionResult IsMap(std::string_view kind, std::string_view path,
                                 std::vector<std::string> keys) {
  const TypeNode* t = At(kind, path);
  if (!t || !t->is_list) return ::testing::AssertionFailure() << path << " is not a list";
  if (t->list_relationship != Relationship::kAssociative || t->keys != keys) {
    return ::testing::AssertionFailure() << path << " is not a map list with those keys";
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult IsSet(std::string_view kind, std::string_view path) {
  const TypeNode* t = At(kind, path);
  if (!t || !t->is_list || t->list_relationship != Relationship::kAssociative || !t->keys.empty()) {
    return ::testing::AssertionFailure() << path << " is not a set";
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult IsAtomicList(std::string_view kind, std::string_view path) {
  const TypeNode* t = At(kind, path);
  if (!t || !t->is_list || t->list_relationship != Relationship::kAtomic) {
    return ::testing::AssertionFailure() << path << " is not an atomic list";
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult IsMapOf(std::string_view kind, std::string_view path, Relationship r) {
  const TypeNode* t = At(kind, path);
  if (!t || !t->is_map || t->map_relationship != r) {
    return ::testing::AssertionFailure() << path << " is not a map of that relationship";
  }
  return ::testing::AssertionSuccess();
}

constexpr auto kAtomic = Relationship::kAtomic;
constexpr auto kGranular = Relationship::kSeparable;

TEST(MergeSchemaTest, EveryServedKindHasASchema) {
  for (auto kind : {"Pod", "Service", "Node", "Namespace", "Endpoints", "Event", "EndpointSlice",
                    "Lease", "Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding",
                    "ConfigMap", "Secret", "ServiceAccount"}) {
    ASSERT_NE(SchemaForKind(kind), nullptr) << kind;
    EXPECT_EQ(SchemaForKind(kind), SchemaForKind(kind));  // compiled once
  }
  EXPECT_EQ(SchemaForKind("DaemonSet"), nullptr);
}

// ConfigMap and Secret data are maps owned key by key; ServiceAccount.secrets is a list keyed
// by name (+listType=map +listMapKey=name), imagePullSecrets atomic.
TEST(MergeSchemaTest, ConfigKinds) {
  EXPECT_TRUE(IsMapOf("ConfigMap", "data", kGranular));
  EXPECT_TRUE(IsMapOf("ConfigMap", "binaryData", kGranular));
  EXPECT_TRUE(IsMapOf("Secret", "data", kGranular));
  EXPECT_TRUE(IsMapOf("Secret", "stringData", kGranular));
  EXPECT_TRUE(IsMap("ServiceAccount", "secrets", {"name"}));
  EXPECT_TRUE(IsAtomicList("ServiceAccount", "imagePullSecrets"));
}

TEST(MergeSchemaTest, Metadata) {
  for (auto kind : {"Pod", "Service", "Lease", "ClusterRole"}) {
    EXPECT_TRUE(IsMapOf(kind, "metadata.labels", kGranular));
    EXPECT_TRUE(IsMapOf(kind, "metadata.annotations", kGranular));
    EXPECT_TRUE(IsSet(kind, "metadata.finalizers"));
    EXPECT_TRUE(IsMap(kind, "metadata.ownerReferences", {"uid"}));
    EXPECT_TRUE(IsMapOf(kind, "metadata.ownerReferences[]", kAtomic));
  }
}

TEST(MergeSchemaTest, Service) {
  EXPECT_TRUE(IsMap("Service", "spec.ports", {"port", "protocol"}));
  const TypeNode* ports = At("Service", "spec.ports");
  ASSERT_NE(ports, nullptr);
  EXPECT_TRUE(ports->key_defaults[0].is_null());
  EXPECT_EQ(ports->key_defaults[1], "TCP");
  EXPECT_TRUE(IsMapOf("Service", "spec.selector", kAtomic));
  for (auto f : {"clusterIPs", "externalIPs", "loadBalancerSourceRanges", "ipFamilies"}) {
    EXPECT_TRUE(IsAtomicList("Service", std::string("spec.") + f));
  }
  EXPECT_TRUE(IsMap("Service", "status.conditions", {"type"}));
  EXPECT_TRUE(IsAtomicList("Service", "status.loadBalancer.ingress"));
}

TEST(MergeSchemaTest, PodSpec) {
  for (auto c : {"containers", "initContainers", "ephemeralContainers"}) {
    std::string p = std::string("spec.") + c;
    EXPECT_TRUE(IsMap("Pod", p, {"name"}));
    EXPECT_TRUE(IsMap("Pod", p + "[].ports", {"containerPort", "protocol"}));
    EXPECT_EQ(At("Pod", p + "[].ports")->key_defaults[1], "TCP");
    EXPECT_TRUE(IsMap("Pod", p + "[].env", {"name"}));
    EXPECT_TRUE(IsMap("Pod", p + "[].volumeMounts", {"mountPath"}));
    EXPECT_TRUE(IsMap("Pod", p + "[].volumeDevices", {"devicePath"}));
    for (auto a : {"command", "args", "envFrom", "resizePolicy"}) {
      EXPECT_TRUE(IsAtomicList("Pod", p + "[]." + a));
    }
    EXPECT_TRUE(IsMap("Pod", p + "[].resources.claims", {"name"}));
    for (auto r : {"configMapKeyRef", "secretKeyRef", "fieldRef", "resourceFieldRef"}) {
      EXPECT_TRUE(IsMapOf("Pod", p + "[].env[].valueFrom." + r, kAtomic));
    }
  }
  EXPECT_TRUE(IsMap("Pod", "spec.volumes", {"name"}));
  EXPECT_TRUE(IsMap("Pod", "spec.imagePullSecrets", {"name"}));
  EXPECT_TRUE(IsMapOf("Pod", "spec.imagePullSecrets[]", kAtomic));
  EXPECT_TRUE(IsMap("Pod", "spec.hostAliases", {"ip"}));
  EXPECT_TRUE(IsMap("Pod", "spec.topologySpreadConstraints", {"topologyKey", "whenUnsatisfiable"}));
  EXPECT_TRUE(IsMap("Pod", "spec.schedulingGates", {"name"}));
  EXPECT_TRUE(IsMap("Pod", "spec.resourceClaims", {"name"}));
  for (auto a :
       {"tolerations", "readinessGates", "dnsConfig.nameservers", "dnsConfig.searches",
        "dnsConfig.options", "securityContext.supplementalGroups", "securityContext.sysctls"}) {
    EXPECT_TRUE(IsAtomicList("Pod", std::string("spec.") + a));
  }
  EXPECT_TRUE(IsMapOf("Pod", "spec.nodeSelector", kAtomic));
  EXPECT_TRUE(IsMapOf(
      "Pod", "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution", kAtomic));
  EXPECT_TRUE(IsAtomicList("Pod",
                           "spec.affinity.nodeAffinity."
                           "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"));
}

TEST(MergeSchemaTest, PodStatus) {
  EXPECT_TRUE(IsMap("Pod", "status.conditions", {"type"}));
  EXPECT_TRUE(IsMap("Pod", "status.podIPs", {"ip"}));
  EXPECT_TRUE(IsAtomicList("Pod", "status.hostIPs"));
  for (auto a : {"containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"}) {
    EXPECT_TRUE(IsAtomicList("Pod", std::string("status.") + a));
  }
  EXPECT_TRUE(IsMap("Pod", "status.resourceClaimStatuses", {"name"}));
}

TEST(MergeSchemaTest, NodeAndNamespace) {
  EXPECT_TRUE(IsSet("Node", "spec.podCIDRs"));
  EXPECT_TRUE(IsAtomicList("Node", "spec.taints"));
  EXPECT_TRUE(IsMap("Node", "status.conditions", {"type"}));
  EXPECT_TRUE(IsMap("Node", "status.addresses", {"type"}));
  for (auto a : {"images", "volumesInUse", "volumesAttached", "runtimeHandlers"}) {
    EXPECT_TRUE(IsAtomicList("Node", std::string("status.") + a));
  }
  EXPECT_TRUE(IsMapOf("Node", "status.capacity", kGranular));
  EXPECT_TRUE(IsMapOf("Node", "status.allocatable", kGranular));
  EXPECT_TRUE(IsAtomicList("Namespace", "spec.finalizers"));
  EXPECT_TRUE(IsMap("Namespace", "status.conditions", {"type"}));
}

TEST(MergeSchemaTest, EndpointsEventsSlicesLeases) {
  EXPECT_TRUE(IsAtomicList("Endpoints", "subsets"));
  EXPECT_TRUE(IsAtomicList("EndpointSlice", "endpoints"));
  EXPECT_TRUE(IsAtomicList("EndpointSlice", "ports"));
  EXPECT_TRUE(IsMapOf("Event", "involvedObject", kAtomic));
  EXPECT_TRUE(IsMapOf("Event", "related", kAtomic));
  for (auto f : {"holderIdentity", "leaseDurationSeconds", "acquireTime", "renewTime",
                 "leaseTransitions", "strategy", "preferredHolder"}) {
    const TypeNode* t = At("Lease", std::string("spec.") + f);
    ASSERT_NE(t, nullptr) << f;
    EXPECT_NE(t->scalar, ScalarType::kNone) << f;
    EXPECT_FALSE(t->is_map || t->is_list) << f;
  }
  EXPECT_TRUE(IsAtomicList("ClusterRole", "rules"));
  EXPECT_TRUE(IsAtomicList("RoleBinding", "subjects"));
}

}  // namespace
}  // namespace svcplane::apiserver::fieldmanager
