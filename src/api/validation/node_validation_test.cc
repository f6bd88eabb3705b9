#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/validation/internal/test_util.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using core::v1::Node;
using ::testing::ElementsAre;
using testing::Errs;
using ::testing::IsEmpty;

Node ValidNode() {
  Node node;
  node.metadata.name = "node-1.example.com";
  node.metadata.resource_version = "1";
  node.metadata.labels = {{"kubernetes.io/hostname", "node-1"},
                          {"node-role.kubernetes.io/control-plane", ""}};
  node.spec.pod_cidr = "10.244.1.0/24";
  node.spec.pod_cidrs = {"10.244.1.0/24"};
  node.status.capacity = {{"cpu", meta::Quantity{"4"}}, {"pods", meta::Quantity{"110"}}};
  node.status.addresses = {{"InternalIP", "192.168.1.10", {}}, {"Hostname", "node-1", {}}};
  Default(node);
  return node;
}

TEST(NodeValidationTest, ValidPasses) { EXPECT_THAT(Errs(ValidateCreate(ValidNode())), IsEmpty()); }

TEST(NodeValidationTest, ClusterScopedSubdomainName) {
  Node node = ValidNode();
  node.metadata.namespace_ = "default";
  node.metadata.name = "Node_1";
  EXPECT_THAT(Errs(ValidateCreate(node)),
              ElementsAre(std::string("metadata.name: Invalid value: \"Node_1\": ") +
                              testing::kSubdomainMsg,
                          "metadata.namespace: Forbidden: not allowed on this type"));
}

TEST(NodeValidationTest, Taints) {
  Node node = ValidNode();
  node.spec.taints = {{"dedicated", "gpu", "NoSchedule", std::nullopt, {}},
                      {"dedicated", "other", "NoSchedule", std::nullopt, {}},
                      {"x", "-bad", "Sometimes", std::nullopt, {}},
                      {"y", "", "", std::nullopt, {}}};
  std::vector<std::string> errs = Errs(ValidateCreate(node));
  ASSERT_EQ(errs.size(), 4u);
  EXPECT_EQ(errs[0],
            "metadata.taints[1]: Duplicate value: core.Taint{Key:\"dedicated\", Value:\"other\", "
            "Effect:\"NoSchedule\", TimeAdded:<nil>}: taints must be unique by key and effect "
            "pair");
  EXPECT_THAT(errs[1], ::testing::StartsWith("metadata.taints[2].value: Invalid value: \"-bad\": "
                                             "a valid label must be an empty string"));
  EXPECT_EQ(errs[2],
            "metadata.taints[2].effect: Unsupported value: \"Sometimes\": supported values: "
            "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"");
  EXPECT_EQ(errs[3], "metadata.taints[3].effect: Required value");
}

TEST(NodeValidationTest, PodCIDRs) {
  Node node = ValidNode();
  node.spec.pod_cidrs = {"10.244.1.0/24", "10.244.2.0/24"};
  EXPECT_THAT(Errs(ValidateCreate(node)),
              ElementsAre("spec.podCIDRs: Invalid value: []string{\"10.244.1.0/24\", "
                          "\"10.244.2.0/24\"}: may specify no more than one CIDR for each IP "
                          "family"));
  node.spec.pod_cidrs = {"10.244.1.0/24", "fd00:10:244::/64"};
  EXPECT_THAT(Errs(ValidateCreate(node)), IsEmpty());
  node.spec.pod_cidrs = {"10.244.1.0/33"};
  EXPECT_THAT(Errs(ValidateCreate(node)),
              ElementsAre("spec.podCIDRs[0]: Invalid value: \"10.244.1.0/33\": must be a valid "
                          "CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"));
}

TEST(NodeValidationTest, ResourceQuantities) {
  Node node = ValidNode();
  node.status.capacity["cpu"] = meta::Quantity{"-1"};
  node.status.allocatable["pods"] = meta::Quantity{"1500m"};
  EXPECT_THAT(Errs(ValidateCreate(node)),
              ElementsAre("status.capacity.cpu: Invalid value: \"-1\": must be greater than or "
                          "equal to 0",
                          "status.allocatable.pods: Invalid value: 1500m: must be an integer"));
}

TEST(NodeUpdateTest, PodCIDRsAndProviderIDSetOnce) {
  Node old = ValidNode();
  old.spec.provider_id = "aws:///i-1";
  Node node = old;
  node.spec.pod_cidrs = {"10.244.9.0/24"};
  node.spec.provider_id = "aws:///i-2";
  EXPECT_THAT(Errs(ValidateUpdate(node, old)),
              ElementsAre("spec.podCIDRs: Forbidden: node updates may not change podCIDR except "
                          "from \"\" to valid",
                          "spec.providerID: Forbidden: node updates may not change providerID "
                          "except from \"\" to valid"));
  Node fresh = ValidNode();
  fresh.spec.pod_cidrs.clear();
  node = fresh;
  node.spec.pod_cidrs = {"10.244.9.0/24"};
  node.spec.provider_id = "aws:///i-2";
  EXPECT_THAT(Errs(ValidateUpdate(node, fresh)), IsEmpty());
}

TEST(NodeUpdateTest, DuplicateAddressesAndTaints) {
  Node old = ValidNode();
  Node node = old;
  node.status.addresses.push_back(node.status.addresses[0]);
  node.spec.taints = {{"k", "", "NoExecute", std::nullopt, {}}};
  node.spec.unschedulable = true;
  EXPECT_THAT(Errs(ValidateStatusUpdate(node, old)),
              ElementsAre("status.addresses[2]: Duplicate value: "
                          "core.NodeAddress{Type:\"InternalIP\", Address:\"192.168.1.10\"}"));
}

}  // namespace
}  // namespace svcplane::api::validation
