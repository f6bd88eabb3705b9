// The admission checks as the registries call them (admission.h): which requests each kind's
// check concerns, what it hands the authorization library, and the Status the write fails with.
// The library's own rules are tested in apiserver/authorization.

#include "apiserver/server/admission.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "apiserver/authorization/bootstrap_policy.h"
#include "apiserver/authorization/testing_util.h"

namespace svcplane::apiserver::server {
namespace {

using namespace authorization::testing;
using api::authentication::v1::UserInfo;
using api::coordination::v1::Lease;
using api::core::v1::Node;
using api::core::v1::Pod;
using registry::AdmissionOperation;
using registry::AdmissionRequest;
using registry::Subresource;

class FakeGraph final : public authorization::NodeGraph {
 public:
  std::optional<std::string> PodNodeName(std::string_view, std::string_view) const override {
    return std::nullopt;
  }
  std::optional<std::string> NodeUid(std::string_view name) const override {
    auto it = uids.find(std::string(name));
    if (it == uids.end()) return std::nullopt;
    return it->second;
  }
  std::map<std::string, std::string> uids;
};

const UserInfo kJane{"jane", "u-jane", {"dev", "system:authenticated"}, {}};
const UserInfo kAdmin{"admin", "u-admin", {"system:masters", "system:authenticated"}, {}};
const UserInfo kN1{"system:node:n1", "", {"system:nodes", "system:authenticated"}, {}};
// The node's name without the group: a plain user.
const UserInfo kFakeN1{"system:node:n1", "", {"system:authenticated"}, {}};

template <typename T>
AdmissionRequest<T> Request(AdmissionOperation op, const UserInfo& user, std::string_view ns,
                            std::string_view name, const T* object, const T* old,
                            Subresource sub = Subresource::kNone) {
  std::string_view path_name = op == AdmissionOperation::kCreate ? "" : name;
  return AdmissionRequest<T>{op, user, ns, name, path_name, sub, object, old};
}

void ExpectForbidden(const Status& st, const std::string& message) {
  EXPECT_EQ(st.code(), Code::kForbidden) << st.ToString();
  EXPECT_EQ(st.message(), message);
}

Pod BoundPod(std::string name, std::string node) {
  Pod p;
  p.metadata.namespace_ = "demo";
  p.metadata.name = std::move(name);
  p.metadata.labels["app"] = "web";
  p.spec.node_name = std::move(node);
  return p;
}

TEST(AdmitPod, OnlyNodesAreRestricted) {
  FakeGraph graph;
  Pod plain = BoundPod("p", "");
  for (const UserInfo* user : {&kJane, &kFakeN1}) {
    EXPECT_TRUE(
        AdmitPod(Request<Pod>(AdmissionOperation::kCreate, *user, "demo", "p", &plain, nullptr),
                 graph)
            .ok());
  }
  ExpectForbidden(
      AdmitPod(Request<Pod>(AdmissionOperation::kCreate, kN1, "demo", "p", &plain, nullptr), graph),
      "pods \"p\" is forbidden: pod does not have \"kubernetes.io/config.mirror\" annotation, "
      "node \"n1\" can only create mirror pods");
}

TEST(AdmitPod, NodeWritesOfPods) {
  FakeGraph graph;
  Pod mine = BoundPod("p1", "n1");
  Pod theirs = BoundPod("p2", "n2");
  // Updating a pod itself is no node's business.
  ExpectForbidden(
      AdmitPod(Request<Pod>(AdmissionOperation::kUpdate, kN1, "demo", "p1", &mine, &mine), graph),
      "pods \"p1\" is forbidden: unexpected operation \"UPDATE\", node \"n1\" can only create "
      "and delete mirror pods");
  // Status: only of its own pods, and never the labels.
  EXPECT_TRUE(AdmitPod(Request<Pod>(AdmissionOperation::kUpdate, kN1, "demo", "p1", &mine, &mine,
                                    Subresource::kStatus),
                       graph)
                  .ok());
  ExpectForbidden(AdmitPod(Request<Pod>(AdmissionOperation::kUpdate, kN1, "demo", "p2", &theirs,
                                        &theirs, Subresource::kStatus),
                           graph),
                  "pods \"p2\" is forbidden: node \"n1\" can only update pod status for pods "
                  "with spec.nodeName set to itself");
  Pod relabelled = mine;
  relabelled.metadata.labels["app"] = "db";
  ExpectForbidden(AdmitPod(Request<Pod>(AdmissionOperation::kUpdate, kN1, "demo", "p1", &relabelled,
                                        &mine, Subresource::kStatus),
                           graph),
                  "pods \"p1\" is forbidden: node \"n1\" cannot update labels through pod status");
  // Delete: only its own.
  EXPECT_TRUE(
      AdmitPod(Request<Pod>(AdmissionOperation::kDelete, kN1, "demo", "p1", nullptr, &mine), graph)
          .ok());
  ExpectForbidden(
      AdmitPod(Request<Pod>(AdmissionOperation::kDelete, kN1, "demo", "p2", nullptr, &theirs),
               graph),
      "pods \"p2\" is forbidden: node \"n1\" can only delete pods with spec.nodeName set to "
      "itself");
}

TEST(AdmitPod, MirrorPodCreateAndGeneratedNames) {
  FakeGraph graph;
  graph.uids["n1"] = "uid-n1";
  Pod mirror = BoundPod("m", "n1");
  mirror.metadata.annotations["kubernetes.io/config.mirror"] = "x";
  mirror.metadata.owner_references.push_back(
      {.api_version = "v1", .kind = "Node", .name = "n1", .uid = "uid-n1", .controller = true});
  EXPECT_TRUE(
      AdmitPod(Request<Pod>(AdmissionOperation::kCreate, kN1, "demo", "m", &mirror, nullptr), graph)
          .ok());
  // A pod whose name is still to be generated is named by its generateName.
  Pod generated = BoundPod("", "n1");
  generated.metadata.rest->generate_name = "web-";
  ExpectForbidden(
      AdmitPod(Request<Pod>(AdmissionOperation::kCreate, kN1, "demo", "", &generated, nullptr),
               graph),
      "pods \"web-\" is forbidden: pod does not have \"kubernetes.io/config.mirror\" annotation, "
      "node \"n1\" can only create mirror pods");
  // system:node: with no name is no node at all.
  const UserInfo nameless{"system:node:", "", {"system:nodes"}, {}};
  ExpectForbidden(
      AdmitPod(Request<Pod>(AdmissionOperation::kCreate, nameless, "demo", "m", &mirror, nullptr),
               graph),
      "pods \"m\" is forbidden: could not determine node from user \"system:node:\"");
}

Node MakeNode(std::string name) {
  Node n;
  n.metadata.name = std::move(name);
  n.metadata.labels["kubernetes.io/hostname"] = n.metadata.name;
  return n;
}

TEST(AdmitNode, OwnNodeOnlyAndKubeletLabels) {
  Node n1 = MakeNode("n1");
  Node n2 = MakeNode("n2");
  EXPECT_TRUE(
      AdmitNode(Request<Node>(AdmissionOperation::kUpdate, kJane, "", "n2", &n2, &n2)).ok());
  ExpectForbidden(AdmitNode(Request<Node>(AdmissionOperation::kUpdate, kN1, "", "n2", &n2, &n2,
                                          Subresource::kStatus)),
                  "nodes \"n2\" is forbidden: node \"n1\" is not allowed to modify node \"n2\"");
  Node labelled = n1;
  labelled.metadata.labels["node-restriction.kubernetes.io/x"] = "y";
  ExpectForbidden(
      AdmitNode(Request<Node>(AdmissionOperation::kUpdate, kN1, "", "n1", &labelled, &n1)),
      "nodes \"n1\" is forbidden: is not allowed to modify labels: "
      "node-restriction.kubernetes.io/x");
  Node zoned = n1;
  zoned.metadata.labels["topology.kubernetes.io/zone"] = "z";
  EXPECT_TRUE(
      AdmitNode(Request<Node>(AdmissionOperation::kUpdate, kN1, "", "n1", &zoned, &n1)).ok());
  Node tainted = n1;
  tainted.spec.taints.push_back({.key = "k", .effect = "NoSchedule"});
  ExpectForbidden(AdmitNode(Request<Node>(AdmissionOperation::kUpdate, kN1, "", "n1", &tainted, &n1,
                                          Subresource::kStatus)),
                  "nodes \"n1\" is forbidden: node \"n1\" is not allowed to modify taints");
  ExpectForbidden(
      AdmitNode(Request<Node>(AdmissionOperation::kCreate, kN1, "", "n1", &labelled, nullptr)),
      "nodes \"n1\" is forbidden: node \"n1\" is not allowed to set the following labels: "
      "node-restriction.kubernetes.io/x");
  EXPECT_TRUE(
      AdmitNode(Request<Node>(AdmissionOperation::kDelete, kN1, "", "n1", nullptr, &n1)).ok());
  ExpectForbidden(
      AdmitNode(Request<Node>(AdmissionOperation::kDelete, kN1, "", "n2", nullptr, &n2)),
      "nodes \"n2\" is forbidden: node \"n1\" is not allowed to modify node \"n2\"");
}

TEST(AdmitLease, NodeLeaseNamespaceAndOwnName) {
  Lease mine;
  mine.metadata.namespace_ = "kube-node-lease";
  mine.metadata.name = "n1";
  Lease theirs = mine;
  theirs.metadata.name = "n2";
  EXPECT_TRUE(AdmitLease(Request<Lease>(AdmissionOperation::kUpdate, kN1, "kube-node-lease", "n1",
                                        &mine, &mine))
                  .ok());
  ExpectForbidden(AdmitLease(Request<Lease>(AdmissionOperation::kCreate, kN1, "kube-node-lease",
                                            "n2", &theirs, nullptr)),
                  "leases.coordination.k8s.io \"n2\" is forbidden: can only access node lease "
                  "with the same name as the requesting node");
  ExpectForbidden(
      AdmitLease(Request<Lease>(AdmissionOperation::kDelete, kN1, "default", "n1", nullptr, &mine)),
      "leases.coordination.k8s.io \"n1\" is forbidden: can only access leases in the "
      "\"kube-node-lease\" system namespace");
  EXPECT_TRUE(AdmitLease(Request<Lease>(AdmissionOperation::kCreate, kJane, "default", "x", &theirs,
                                        nullptr))
                  .ok());
}

// The RBAC kinds against the authorizer the server runs: jane holds `admin`'s rules in demo.
class EscalationAdmission : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& r : authorization::BootstrapClusterRoles()) rbac.UpsertClusterRole(r);
    for (const auto& b : authorization::BootstrapClusterRoleBindings()) {
      rbac.UpsertClusterRoleBinding(b);
    }
    rbac.UpsertClusterRole(MakeClusterRole(
        "admin",
        {Rule({"get", "list", "watch"}, {""}, {"pods"}),
         Rule({"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
              {"rbac.authorization.k8s.io"}, {"rolebindings", "roles"})}));
    rbac.UpsertRoleBinding(
        MakeRoleBinding("demo", "jane-admin", "ClusterRole", "admin", {UserSubject("jane")}));
  }

  EscalationAuthority Authority() const { return {chain, rbac}; }

  authorization::RbacAuthorizer rbac;
  authorization::PrivilegedGroupAuthorizer privileged;
  authorization::AuthorizerChain chain{{&privileged, &rbac}};
};

constexpr const char* kJaneCannotGrant =
    "user \"jane\" (groups=[\"dev\" \"system:authenticated\"]) is attempting to grant RBAC "
    "permissions not currently held:\n";

TEST_F(EscalationAdmission, RolesNeedHeldRightsOrEscalate) {
  Role nodes = MakeRole("demo", "r", {Rule({"get"}, {""}, {"nodes"})});
  Role pods = MakeRole("demo", "r", {Rule({"get"}, {""}, {"pods"})});
  ExpectForbidden(
      AdmitRole(Request<Role>(AdmissionOperation::kCreate, kJane, "demo", "r", &nodes, nullptr),
                Authority()),
      std::string("roles.rbac.authorization.k8s.io \"r\" is forbidden: ") + kJaneCannotGrant +
          "{APIGroups:[\"\"], Resources:[\"nodes\"], Verbs:[\"get\"]}");
  EXPECT_TRUE(
      AdmitRole(Request<Role>(AdmissionOperation::kCreate, kJane, "demo", "r", &pods, nullptr),
                Authority())
          .ok());
  // Updates are checked too, against the new rules; deletes never; masters always pass.
  ExpectForbidden(
      AdmitRole(Request<Role>(AdmissionOperation::kUpdate, kJane, "demo", "r", &nodes, &pods),
                Authority()),
      std::string("roles.rbac.authorization.k8s.io \"r\" is forbidden: ") + kJaneCannotGrant +
          "{APIGroups:[\"\"], Resources:[\"nodes\"], Verbs:[\"get\"]}");
  EXPECT_TRUE(
      AdmitRole(Request<Role>(AdmissionOperation::kDelete, kJane, "demo", "r", nullptr, &nodes),
                Authority())
          .ok());
  EXPECT_TRUE(
      AdmitRole(Request<Role>(AdmissionOperation::kCreate, kAdmin, "demo", "r", &nodes, nullptr),
                Authority())
          .ok());
  // A role jane could not write herself may still lose a finalizer.
  Role finalized = nodes;
  finalized.metadata.finalizers.push_back("example.com/keep");
  EXPECT_TRUE(
      AdmitRole(Request<Role>(AdmissionOperation::kUpdate, kJane, "demo", "r", &nodes, &finalized),
                Authority())
          .ok());
  // `escalate` on roles in demo lifts the check.
  rbac.UpsertClusterRole(
      MakeClusterRole("escalator", {Rule({"escalate"}, {"rbac.authorization.k8s.io"}, {"roles"})}));
  rbac.UpsertRoleBinding(
      MakeRoleBinding("demo", "jane-esc", "ClusterRole", "escalator", {UserSubject("jane")}));
  EXPECT_TRUE(
      AdmitRole(Request<Role>(AdmissionOperation::kCreate, kJane, "demo", "r", &nodes, nullptr),
                Authority())
          .ok());
}

TEST_F(EscalationAdmission, CreateOnUpdateNeedsCreateToo) {
  using api::core::v1::Endpoints;
  Endpoints ep;
  ep.metadata.namespace_ = "demo";
  ep.metadata.name = "web";
  auto put_create = [&](const UserInfo& user) {
    // A PUT of a missing object: a create with the path's name.
    return AdmissionRequest<Endpoints>{AdmissionOperation::kCreate, user, "demo", "web", "web",
                                       Subresource::kNone,          &ep,  nullptr};
  };
  // jane may only update endpoints in demo.
  rbac.UpsertClusterRole(MakeClusterRole("ep-updater", {Rule({"update"}, {""}, {"endpoints"})}));
  rbac.UpsertRoleBinding(
      MakeRoleBinding("demo", "jane-ep", "ClusterRole", "ep-updater", {UserSubject("jane")}));
  ExpectForbidden(AuthorizeCreateOnUpdate(put_create(kJane), chain),
                  "endpoints \"web\" is forbidden: ");
  // A POST, and a PUT that replaces, are not this check's business; masters pass.
  AdmissionRequest<Endpoints> post = put_create(kJane);
  post.path_name = "";
  EXPECT_TRUE(AuthorizeCreateOnUpdate(post, chain).ok());
  AdmissionRequest<Endpoints> update = put_create(kJane);
  update.operation = AdmissionOperation::kUpdate;
  EXPECT_TRUE(AuthorizeCreateOnUpdate(update, chain).ok());
  EXPECT_TRUE(AuthorizeCreateOnUpdate(put_create(kAdmin), chain).ok());
  // With create as well, jane's PUT creates.
  rbac.UpsertClusterRole(
      MakeClusterRole("ep-updater", {Rule({"create", "update"}, {""}, {"endpoints"})}));
  EXPECT_TRUE(AuthorizeCreateOnUpdate(put_create(kJane), chain).ok());
  // Grouped kinds name their group.
  Role role = MakeRole("demo", "r", {});
  ExpectForbidden(
      AuthorizeCreateOnUpdate(AdmissionRequest<Role>{AdmissionOperation::kCreate, kFakeN1, "demo",
                                                     "r", "r", Subresource::kNone, &role, nullptr},
                              chain),
      "roles.rbac.authorization.k8s.io \"r\" is forbidden: ");
}

TEST(OnlyGcFieldsChanged, OwnersFinalizersAndTypeMetaOnly) {
  Role before = MakeRole("demo", "r", {Rule({"get"}, {""}, {"pods"})});
  before.kind = "Role";
  Role now = before;
  now.kind.clear();
  now.metadata.finalizers.push_back("f");
  now.metadata.owner_references.push_back({.api_version = "v1", .kind = "X", .name = "o"});
  EXPECT_TRUE(OnlyGcFieldsChanged(now, before));
  now.rules[0].verbs.push_back("list");
  EXPECT_FALSE(OnlyGcFieldsChanged(now, before));
}

TEST_F(EscalationAdmission, AggregationRuleNeedsClusterAdmin) {
  // bob may create clusterroles (that is authorization's business) but holds nothing else.
  const UserInfo bob{"bob", "u-bob", {"system:authenticated"}, {}};
  api::rbac::v1::ClusterRole agg = MakeClusterRole("agg", {});
  agg.aggregation_rule.emplace();
  agg.aggregation_rule->cluster_role_selectors.emplace_back();
  agg.aggregation_rule->cluster_role_selectors[0].match_labels["team"] = "x";
  ExpectForbidden(
      AdmitClusterRole(Request<api::rbac::v1::ClusterRole>(AdmissionOperation::kCreate, bob, "",
                                                           "agg", &agg, nullptr),
                       Authority()),
      "clusterroles.rbac.authorization.k8s.io \"agg\" is forbidden: must have cluster-admin "
      "privileges to use the aggregationRule");
  api::rbac::v1::ClusterRole plain = MakeClusterRole("agg2", {});
  EXPECT_TRUE(AdmitClusterRole(Request<api::rbac::v1::ClusterRole>(AdmissionOperation::kCreate, bob,
                                                                   "", "agg2", &plain, nullptr),
                               Authority())
                  .ok());
  // Removing an aggregationRule needs the same.
  api::rbac::v1::ClusterRole removed = MakeClusterRole("agg", {});
  ExpectForbidden(
      AdmitClusterRole(Request<api::rbac::v1::ClusterRole>(AdmissionOperation::kUpdate, bob, "",
                                                           "agg", &removed, &agg),
                       Authority()),
      "clusterroles.rbac.authorization.k8s.io \"agg\" is forbidden: must have cluster-admin "
      "privileges to use the aggregationRule");
}

TEST_F(EscalationAdmission, BindingsNeedTheRoleOrBindPerRoleName) {
  auto binding =
      MakeRoleBinding("demo", "x", "ClusterRole", "cluster-admin", {UserSubject("jane")});
  auto admit = [&](const api::rbac::v1::RoleBinding& b) {
    return AdmitRoleBinding(
        Request<api::rbac::v1::RoleBinding>(AdmissionOperation::kCreate, kJane, "demo",
                                            b.metadata.name, &b, nullptr),
        Authority());
  };
  Status denied = admit(binding);
  EXPECT_EQ(denied.code(), Code::kForbidden);
  EXPECT_TRUE(denied.message().starts_with(
      std::string("rolebindings.rbac.authorization.k8s.io \"x\" is forbidden: ") +
      kJaneCannotGrant))
      << denied.message();
  rbac.UpsertClusterRole(MakeClusterRole("binder", {Rule({"bind"}, {"rbac.authorization.k8s.io"},
                                                         {"clusterroles"}, {"cluster-admin"})}));
  rbac.UpsertRoleBinding(
      MakeRoleBinding("demo", "jane-bind", "ClusterRole", "binder", {UserSubject("jane")}));
  EXPECT_TRUE(admit(binding).ok());
  auto node_binding =
      MakeRoleBinding("demo", "y", "ClusterRole", "system:node", {UserSubject("jane")});
  EXPECT_EQ(admit(node_binding).code(), Code::kForbidden);
  auto ghost = MakeRoleBinding("demo", "g", "Role", "ghost", {UserSubject("jane")});
  Status missing = admit(ghost);
  EXPECT_EQ(missing.code(), Code::kNotFound);
  EXPECT_EQ(missing.message(), "roles.rbac.authorization.k8s.io \"ghost\" not found");
  // A ClusterRoleBinding is checked against cluster-wide rights only.
  auto crb = MakeClusterRoleBinding("c", "cluster-admin", {UserSubject("jane")});
  EXPECT_EQ(AdmitClusterRoleBinding(Request<api::rbac::v1::ClusterRoleBinding>(
                                        AdmissionOperation::kCreate, kJane, "", "c", &crb, nullptr),
                                    Authority())
                .code(),
            Code::kForbidden);
}

}  // namespace
}  // namespace svcplane::apiserver::server
