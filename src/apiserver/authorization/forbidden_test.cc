#include "apiserver/authorization/forbidden.h"

#include <gtest/gtest.h>

#include "api/codec/json.h"

namespace svcplane::apiserver::authorization {
namespace {

Attributes Res(const http::Identity& u, std::string verb, std::string ns, std::string group,
               std::string resource, std::string sub = "", std::string name = "") {
  Attributes a;
  a.user = &u;
  a.resource_request = true;
  a.verb = std::move(verb);
  a.ns = std::move(ns);
  a.api_group = std::move(group);
  a.resource = std::move(resource);
  a.subresource = std::move(sub);
  a.name = std::move(name);
  return a;
}

// The three bodies of spec §3.3.
TEST(Forbidden, SpecExamples) {
  http::Identity jane{"jane", {}, "", {}};
  EXPECT_EQ(
      api::codec::EncodeJson(ForbiddenStatus(Res(jane, "list", "demo", "", "pods"), "")),
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods is forbidden: User \"jane\" cannot list resource \"pods\" in API group \"\" in the namespace \"demo\"","reason":"Forbidden","details":{"kind":"pods"},"code":403})");
  http::Identity node{"system:node:n1", {"system:nodes"}, "", {}};
  EXPECT_EQ(
      api::codec::EncodeJson(ForbiddenStatus(
          Res(node, "get", "kube-node-lease", "coordination.k8s.io", "leases", "", "n2"),
          "can only access node lease with the same name as the requesting node")),
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"leases.coordination.k8s.io \"n2\" is forbidden: User \"system:node:n1\" cannot get resource \"leases\" in API group \"coordination.k8s.io\" in the namespace \"kube-node-lease\": can only access node lease with the same name as the requesting node","reason":"Forbidden","details":{"name":"n2","group":"coordination.k8s.io","kind":"leases"},"code":403})");
  http::Identity anon{"system:anonymous", {"system:unauthenticated"}, "", {}};
  Attributes path;
  path.user = &anon;
  path.verb = "get";
  path.path = "/api";
  EXPECT_EQ(
      api::codec::EncodeJson(ForbiddenStatus(path, "")),
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \"system:anonymous\" cannot get path \"/api\"","reason":"Forbidden","details":{},"code":403})");
}

TEST(Forbidden, ClusterScopeSubresourceAndEscaping) {
  http::Identity u{"a<b>&\"c", {}, "", {}};
  EXPECT_EQ(ForbiddenStatus(Res(u, "patch", "", "", "nodes", "status", "n1"), "").message,
            "nodes \"n1\" is forbidden: User \"a&lt;b&gt;&amp;\\\"c\" cannot patch resource "
            "\"nodes/status\" in API group \"\" at the cluster scope");
  // The reason is appended as it is.
  EXPECT_EQ(ForbiddenStatus(Res(u, "get", "", "x.io", "things"), "r<1>").message,
            "things.x.io is forbidden: User \"a&lt;b&gt;&amp;\\\"c\" cannot get resource "
            "\"things\" in API group \"x.io\" at the cluster scope: r<1>");
}

TEST(Forbidden, Response) {
  http::Identity jane{"jane", {}, "", {}};
  http::Response r = ForbiddenResponse(Res(jane, "list", "demo", "", "pods"), "");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.content_type, "application/json");
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers[0].first, "X-Content-Type-Options");
  EXPECT_EQ(r.headers[0].second, "nosniff");
}

TEST(Forbidden, InternalError) {
  EXPECT_EQ(InternalErrorText("/api/v1/pods?x=<1>", "boom"),
            "Internal Server Error: \"/api/v1/pods?x=&lt;1&gt;\": boom");
  http::Response r = InternalErrorResponse("/x", "boom");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "Internal Server Error: \"/x\": boom\n");
  EXPECT_EQ(r.content_type, "text/plain; charset=utf-8");
}

}  // namespace
}  // namespace svcplane::apiserver::authorization
