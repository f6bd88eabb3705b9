#include "apiserver/authorization/node_authorizer.h"

#include <gtest/gtest.h>

#include <map>

#include "apiserver/authorization/forbidden.h"
#include "apiserver/authorization/node_restriction.h"
#include "apiserver/authorization/testing_util.h"

namespace svcplane::apiserver::authorization {
namespace {

using testing::ResourceAttributes;

class FakeGraph : public NodeGraph {
 public:
  std::optional<std::string> PodNodeName(std::string_view ns,
                                         std::string_view name) const override {
    auto it = pods.find(std::string(ns) + "/" + std::string(name));
    if (it == pods.end()) return std::nullopt;
    return it->second;
  }
  std::optional<std::string> NodeUid(std::string_view name) const override {
    auto it = nodes.find(std::string(name));
    if (it == nodes.end()) return std::nullopt;
    return it->second;
  }
  std::map<std::string, std::string> pods;
  std::map<std::string, std::string> nodes;
};

class NodeAuthorizerTest : public ::testing::Test {
 protected:
  NodeAuthorizerTest() : node_authz(graph) {
    graph.pods["demo/p1"] = "n1";
    graph.pods["demo/p2"] = "n2";
    graph.nodes["n1"] = "uid-n1";
  }
  Result Check(std::string verb, std::string ns, std::string group, std::string resource,
               std::string sub = "", std::string name = "", std::string field_selector = "") {
    Attributes a = ResourceAttributes(n1, std::move(verb), std::move(ns), std::move(group),
                                      std::move(resource), std::move(sub), std::move(name));
    a.field_selector = std::move(field_selector);
    return node_authz.Authorize(a);
  }
  std::string Message(std::string verb, std::string ns, std::string group, std::string resource,
                      std::string sub = "", std::string name = "") {
    Attributes a = ResourceAttributes(n1, verb, ns, group, resource, sub, name);
    return ForbiddenStatus(a, node_authz.Authorize(a).reason).message;
  }
  FakeGraph graph;
  NodeAuthorizer node_authz;
  http::Identity n1{"system:node:n1", {"system:nodes", "system:authenticated"}, "", {}};
};

TEST(NodeIdentity, NeedsPrefixAndGroup) {
  EXPECT_EQ(NodeNameOf({"system:node:n1", {"system:nodes"}, "", {}}), "n1");
  EXPECT_EQ(NodeNameOf({"system:node:", {"system:nodes"}, "", {}}), "");
  EXPECT_FALSE(NodeNameOf({"system:node:n1", {"system:authenticated"}, "", {}}).has_value());
  EXPECT_FALSE(NodeNameOf({"jane", {"system:nodes"}, "", {}}).has_value());
}

TEST_F(NodeAuthorizerTest, NonNodesAndUnknownNodes) {
  http::Identity plain{"system:node:n1", {"system:authenticated"}, "", {}};
  Attributes a = ResourceAttributes(plain, "get", "", "", "nodes", "", "n1");
  EXPECT_EQ(node_authz.Authorize(a).decision, Decision::kNoOpinion);
  EXPECT_EQ(node_authz.Authorize(a).reason, "");
  http::Identity bare{"system:node:", {"system:nodes"}, "", {}};
  Attributes b = ResourceAttributes(bare, "get", "", "", "nodes", "", "n1");
  EXPECT_EQ(node_authz.Authorize(b).reason, "unknown node for user \"system:node:\"");
}

// Scenario 32.
TEST_F(NodeAuthorizerTest, NodeReads) {
  EXPECT_EQ(Check("get", "", "", "nodes", "", "n1").decision, Decision::kAllow);
  EXPECT_EQ(Message("get", "", "", "nodes", "", "n2"),
            "nodes \"n2\" is forbidden: User \"system:node:n1\" cannot get resource \"nodes\" in "
            "API group \"\" at the cluster scope: node 'n1' cannot read 'n2', only its own Node "
            "object");
  EXPECT_EQ(Check("list", "", "", "nodes").reason,
            "node 'n1' cannot read all nodes, only its own Node object");
  EXPECT_EQ(Check("list", "", "", "nodes", "", "n1").decision, Decision::kAllow);
  EXPECT_EQ(Check("watch", "", "", "nodes", "", "n1").decision, Decision::kAllow);
}

// Scenario 33 (authorizer half): writes allowed by the static rules, delete not.
TEST_F(NodeAuthorizerTest, NodeWrites) {
  EXPECT_EQ(Check("patch", "", "", "nodes", "status", "n2").decision, Decision::kAllow);
  EXPECT_EQ(Check("update", "", "", "nodes", "", "n1").decision, Decision::kAllow);
  EXPECT_EQ(Check("create", "", "", "nodes").decision, Decision::kAllow);
  EXPECT_EQ(Check("delete", "", "", "nodes", "", "n1").decision, Decision::kNoOpinion);
}

// Scenario 34.
TEST_F(NodeAuthorizerTest, Leases) {
  const std::string g = "coordination.k8s.io";
  EXPECT_EQ(Check("update", "kube-node-lease", g, "leases", "", "n1").decision, Decision::kAllow);
  EXPECT_EQ(Check("create", "kube-node-lease", g, "leases").decision, Decision::kAllow);
  EXPECT_EQ(Message("get", "kube-node-lease", g, "leases", "", "n2"),
            "leases.coordination.k8s.io \"n2\" is forbidden: User \"system:node:n1\" cannot get "
            "resource \"leases\" in API group \"coordination.k8s.io\" in the namespace "
            "\"kube-node-lease\": can only access node lease with the same name as the requesting "
            "node");
  EXPECT_EQ(Check("get", "default", g, "leases", "", "n1").reason,
            "can only access leases in the \"kube-node-lease\" system namespace");
  EXPECT_EQ(Check("list", "kube-node-lease", g, "leases").reason,
            "can only get, create, update, patch, or delete a node lease");
}

// Scenario 35 (authorizer half).
TEST_F(NodeAuthorizerTest, Pods) {
  EXPECT_EQ(Check("list", "", "", "pods", "", "", "spec.nodeName=n1").decision, Decision::kAllow);
  EXPECT_EQ(
      Check("watch", "", "", "pods", "", "", "spec.nodeName=n1,status.phase!=Failed").decision,
      Decision::kAllow);
  EXPECT_EQ(Check("list", "", "", "pods", "", "", "spec.nodeName=n2").reason,
            "can only list/watch pods with spec.nodeName field selector");
  EXPECT_EQ(Check("list", "", "", "pods").reason,
            "can only list/watch pods with spec.nodeName field selector");
  EXPECT_EQ(Check("get", "demo", "", "pods", "", "p1").decision, Decision::kAllow);
  EXPECT_EQ(Check("get", "demo", "", "pods", "", "p2").reason,
            "no relationship found between node 'n1' and this object");
  EXPECT_EQ(Check("get", "demo", "", "pods", "", "missing").reason,
            "no relationship found between node 'n1' and this object");
  EXPECT_EQ(Check("list", "demo", "", "pods", "", "p1").decision, Decision::kAllow);
  EXPECT_EQ(Check("update", "demo", "", "pods", "status", "p2").decision, Decision::kAllow);
  EXPECT_EQ(Check("create", "demo", "", "pods").decision, Decision::kAllow);
  EXPECT_EQ(Check("delete", "demo", "", "pods", "", "p2").decision, Decision::kAllow);
  EXPECT_EQ(Check("update", "demo", "", "pods", "", "p1").decision, Decision::kNoOpinion);
}

// Scenario 36.
TEST_F(NodeAuthorizerTest, OtherKindsUseStaticRules) {
  EXPECT_EQ(Check("create", "demo", "", "events").decision, Decision::kAllow);
  EXPECT_EQ(Check("list", "", "", "services").decision, Decision::kAllow);
  EXPECT_EQ(Check("get", "demo", "", "endpoints", "", "e").decision, Decision::kAllow);
  EXPECT_EQ(Check("list", "", "discovery.k8s.io", "endpointslices").decision, Decision::kNoOpinion);
  EXPECT_EQ(Check("list", "", "", "namespaces").decision, Decision::kNoOpinion);
  RulesResult rules = node_authz.RulesFor(n1, "demo");
  EXPECT_TRUE(rules.incomplete);
  EXPECT_EQ(rules.evaluation_error, "node authorizer does not support user rule resolution");
  EXPECT_FALSE(node_authz.RulesFor({"jane", {}, "", {}}, "demo").incomplete);
}

api::core::v1::Node MakeNode(std::string name) {
  api::core::v1::Node n;
  n.metadata.name = std::move(name);
  return n;
}

TEST(NodeRestriction, NodeWrites) {
  api::core::v1::Node n2 = MakeNode("n2");
  auto other = AdmitNodeWrite("n1", AdmissionOperation::kUpdate, "n2", n2, &n2);
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->message,
            "nodes \"n2\" is forbidden: node \"n1\" is not allowed to modify node \"n2\"");

  api::core::v1::Node old = MakeNode("n1");
  api::core::v1::Node labelled = old;
  labelled.metadata.labels["node-restriction.kubernetes.io/x"] = "y";
  auto label = AdmitNodeWrite("n1", AdmissionOperation::kUpdate, "n1", labelled, &old);
  ASSERT_TRUE(label.has_value());
  EXPECT_EQ(label->message,
            "nodes \"n1\" is forbidden: is not allowed to modify labels: "
            "node-restriction.kubernetes.io/x");
  api::core::v1::Node zone = old;
  zone.metadata.labels["topology.kubernetes.io/zone"] = "z1";
  zone.metadata.labels["example.com/free"] = "yes";
  EXPECT_FALSE(AdmitNodeWrite("n1", AdmissionOperation::kUpdate, "n1", zone, &old).has_value());

  api::core::v1::Node tainted = old;
  tainted.spec.taints.push_back({"k", "v", "NoSchedule", std::nullopt, {}});
  auto taint = AdmitNodeWrite("n1", AdmissionOperation::kUpdate, "n1", tainted, &old);
  ASSERT_TRUE(taint.has_value());
  EXPECT_EQ(taint->message,
            "nodes \"n1\" is forbidden: node \"n1\" is not allowed to modify taints");

  api::core::v1::Node create = MakeNode("n1");
  create.metadata.labels["kubernetes.io/hostname"] = "n1";
  create.metadata.labels["x.k8s.io/y"] = "1";
  create.metadata.labels["a.kubernetes.io/b"] = "1";
  auto created = AdmitNodeWrite("n1", AdmissionOperation::kCreate, "n1", create, nullptr);
  ASSERT_TRUE(created.has_value());
  EXPECT_EQ(created->message,
            "nodes \"n1\" is forbidden: node \"n1\" is not allowed to set the following labels: "
            "a.kubernetes.io/b, x.k8s.io/y");
}

TEST(NodeRestriction, KubeletLabels) {
  EXPECT_TRUE(KubeletMaySetLabel("kubernetes.io/arch"));
  EXPECT_TRUE(KubeletMaySetLabel("node.kubernetes.io/instance-type"));
  EXPECT_TRUE(KubeletMaySetLabel("node.kubernetes.io/anything"));
  EXPECT_TRUE(KubeletMaySetLabel("sub.kubelet.kubernetes.io/x"));
  EXPECT_TRUE(KubeletMaySetLabel("failure-domain.beta.kubernetes.io/region"));
  EXPECT_TRUE(KubeletMaySetLabel("plain"));
  EXPECT_TRUE(KubeletMaySetLabel("example.com/x"));
  EXPECT_FALSE(KubeletMaySetLabel("node-role.kubernetes.io/master"));
  EXPECT_FALSE(KubeletMaySetLabel("k8s.io/x"));
  EXPECT_FALSE(KubeletMaySetLabel("a.node-restriction.kubernetes.io/x"));
  EXPECT_TRUE(KubeletMaySetLabel("xkubernetes.io/x"));  // not a subdomain: free
}

api::core::v1::Pod MirrorPod(std::string name, std::string node) {
  api::core::v1::Pod p;
  p.metadata.name = std::move(name);
  p.metadata.namespace_ = "demo";
  p.metadata.annotations["kubernetes.io/config.mirror"] = "hash";
  p.spec.node_name = node;
  api::meta::OwnerReference owner;
  owner.api_version = "v1";
  owner.kind = "Node";
  owner.name = node;
  owner.uid = "uid-n1";
  owner.controller = true;
  p.metadata.owner_references.push_back(owner);
  return p;
}

// Scenario 35 (admission half).
TEST(NodeRestriction, Pods) {
  FakeGraph graph;
  graph.nodes["n1"] = "uid-n1";
  api::core::v1::Pod plain;
  plain.metadata.name = "web";
  auto p = AdmitPodCreate("n1", plain, graph);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->message,
            "pods \"web\" is forbidden: pod does not have \"kubernetes.io/config.mirror\" "
            "annotation, node \"n1\" can only create mirror pods");
  EXPECT_FALSE(AdmitPodCreate("n1", MirrorPod("m", "n1"), graph).has_value());
  EXPECT_EQ(AdmitPodCreate("n1", MirrorPod("m", "n2"), graph)->message,
            "pods \"m\" is forbidden: node \"n1\" can only create pods with spec.nodeName set to "
            "itself");
  api::core::v1::Pod uid = MirrorPod("m", "n1");
  uid.metadata.owner_references[0].uid = "other";
  EXPECT_EQ(AdmitPodCreate("n1", uid, graph)->message,
            "pods \"m\" is forbidden: node n1 UID mismatch: expected uid-n1 got other");
  api::core::v1::Pod not_controller = MirrorPod("m", "n1");
  not_controller.metadata.owner_references[0].controller = false;
  EXPECT_TRUE(AdmitPodCreate("n1", not_controller, graph).has_value());

  api::core::v1::Pod p2 = MirrorPod("p2", "n2");
  EXPECT_EQ(AdmitPodStatusUpdate("n1", p2, p2)->message,
            "pods \"p2\" is forbidden: node \"n1\" can only update pod status for pods with "
            "spec.nodeName set to itself");
  api::core::v1::Pod p1 = MirrorPod("p1", "n1");
  api::core::v1::Pod relabelled = p1;
  relabelled.metadata.labels["a"] = "b";
  EXPECT_EQ(AdmitPodStatusUpdate("n1", p1, relabelled)->message,
            "pods \"p1\" is forbidden: node \"n1\" cannot update labels through pod status");
  EXPECT_FALSE(AdmitPodStatusUpdate("n1", p1, p1).has_value());

  EXPECT_EQ(AdmitPodDelete("n1", "demo", "p2", &p2)->message,
            "pods \"p2\" is forbidden: node \"n1\" can only delete pods with spec.nodeName set to "
            "itself");
  EXPECT_FALSE(AdmitPodDelete("n1", "demo", "p1", &p1).has_value());
  EXPECT_EQ(AdmitPodDelete("n1", "demo", "gone", nullptr)->code, 404);
}

TEST(NodeRestriction, PodOperationsNoNodeMakes) {
  using Op = AdmissionOperation;
  EXPECT_EQ(AdmitPodOperation("n1", Op::kUpdate, false, "p1")->message,
            "pods \"p1\" is forbidden: unexpected operation \"UPDATE\", node \"n1\" can only "
            "create and delete mirror pods");
  EXPECT_FALSE(AdmitPodOperation("n1", Op::kCreate, false, "p1").has_value());
  EXPECT_FALSE(AdmitPodOperation("n1", Op::kDelete, false, "p1").has_value());
  EXPECT_FALSE(AdmitPodOperation("n1", Op::kUpdate, true, "p1").has_value());
  EXPECT_EQ(AdmitPodOperation("n1", Op::kDelete, true, "p1")->message,
            "pods \"p1\" is forbidden: unexpected operation \"DELETE\"");
  auto unknown = UnknownNodeStatus("system:node:", "coordination.k8s.io", "leases", "x");
  EXPECT_EQ(unknown.code, 403);
  EXPECT_EQ(unknown.message,
            "leases.coordination.k8s.io \"x\" is forbidden: could not determine node from user "
            "\"system:node:\"");
}

// Scenario 34 (admission half).
TEST(NodeRestriction, Leases) {
  api::coordination::v1::Lease lease;
  lease.metadata.name = "n2";
  auto created = AdmitLease("n1", AdmissionOperation::kCreate, "kube-node-lease", "", &lease);
  ASSERT_TRUE(created.has_value());
  EXPECT_EQ(created->message,
            "leases.coordination.k8s.io \"n2\" is forbidden: can only access node lease with the "
            "same name as the requesting node");
  lease.metadata.name = "n1";
  EXPECT_FALSE(
      AdmitLease("n1", AdmissionOperation::kCreate, "kube-node-lease", "", &lease).has_value());
  EXPECT_EQ(AdmitLease("n1", AdmissionOperation::kUpdate, "default", "n1", nullptr)->message,
            "leases.coordination.k8s.io \"n1\" is forbidden: can only access leases in the "
            "\"kube-node-lease\" system namespace");
}

}  // namespace
}  // namespace svcplane::apiserver::authorization
