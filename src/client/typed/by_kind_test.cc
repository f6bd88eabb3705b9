#include "client/typed/by_kind.h"

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

namespace svcplane::client {
namespace {

// Any set with one accessor per kind; each returns a distinct member by reference.
struct Names {
  std::string ns = "namespaces", svc = "services", pod = "pods", node = "nodes", ep = "endpoints",
              ev = "events", eps = "endpointslices", lease = "leases", role = "roles",
              cr = "clusterroles", rb = "rolebindings", crb = "clusterrolebindings";
  std::string& Namespaces() { return ns; }
  std::string& Services() { return svc; }
  std::string& Pods() { return pod; }
  std::string& Nodes() { return node; }
  std::string& Endpoints() { return ep; }
  std::string& Events() { return ev; }
  std::string& EndpointSlices() { return eps; }
  std::string& Leases() { return lease; }
  std::string& Roles() { return role; }
  std::string& ClusterRoles() { return cr; }
  std::string& RoleBindings() { return rb; }
  std::string& ClusterRoleBindings() { return crb; }
};

TEST(ByKindTest, MapsEveryKindToItsAccessor) {
  namespace core = api::core::v1;
  Names n;
  EXPECT_EQ(ByKind<core::Namespace>(n), "namespaces");
  EXPECT_EQ(ByKind<core::Service>(n), "services");
  EXPECT_EQ(ByKind<core::Pod>(n), "pods");
  EXPECT_EQ(ByKind<core::Node>(n), "nodes");
  EXPECT_EQ(ByKind<core::Endpoints>(n), "endpoints");
  EXPECT_EQ(ByKind<core::Event>(n), "events");
  EXPECT_EQ(ByKind<api::discovery::v1::EndpointSlice>(n), "endpointslices");
  EXPECT_EQ(ByKind<api::coordination::v1::Lease>(n), "leases");
  EXPECT_EQ(ByKind<api::rbac::v1::Role>(n), "roles");
  EXPECT_EQ(ByKind<api::rbac::v1::ClusterRole>(n), "clusterroles");
  EXPECT_EQ(ByKind<api::rbac::v1::RoleBinding>(n), "rolebindings");
  EXPECT_EQ(ByKind<api::rbac::v1::ClusterRoleBinding>(n), "clusterrolebindings");
}

TEST(ByKindTest, ReturnsTheAccessorsReferenceNotACopy) {
  Names n;
  static_assert(std::is_same_v<decltype(ByKind<api::core::v1::Pod>(n)), std::string&>);
  ByKind<api::core::v1::Pod>(n) = "changed";
  EXPECT_EQ(n.pod, "changed");
}

}  // namespace
}  // namespace svcplane::client
