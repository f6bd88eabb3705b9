#include "apiserver/authorization/request_attributes.h"

#include <gtest/gtest.h>

namespace svcplane::apiserver::authorization {
namespace {

http::Request Make(std::string method, std::string path,
                   std::vector<std::pair<std::string, std::string>> query = {}) {
  http::Request r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.query = std::move(query);
  r.identity.user = "jane";
  return r;
}

struct Row {
  std::string verb, ns, resource, sub, name, group;
};

void Expect(const http::Request& req, const Row& want) {
  Attributes a = AttributesFromRequest(req);
  SCOPED_TRACE(req.method + " " + req.path);
  EXPECT_TRUE(a.resource_request);
  EXPECT_EQ(a.verb, want.verb);
  EXPECT_EQ(a.ns, want.ns);
  EXPECT_EQ(a.resource, want.resource);
  EXPECT_EQ(a.subresource, want.sub);
  EXPECT_EQ(a.name, want.name);
  EXPECT_EQ(a.api_group, want.group);
  EXPECT_EQ(a.user, &req.identity);
}

// Paths of more parts than are kept inline read the same.
TEST(AttributesFromRequest, LongPaths) {
  Expect(Make("GET", "/api/v1/namespaces/demo/pods/p1/proxy/a/b/c/d/e/f/g/h/i/j"),
         {"get", "demo", "pods", "proxy", "p1", ""});
  Expect(Make("GET", "/api/v1/proxy/namespaces/demo/pods/p1/a/b/c/d/e/f/g/h/i/j"),
         {"proxy", "demo", "pods", "", "p1", ""});
  Expect(Make("DELETE", "/apis/g.example/v1/namespaces/demo/things/t/sub/x/y/z/1/2/3/4/5"),
         {"delete", "demo", "things", "sub", "t", "g.example"});
}

// Every row of the spec §3.1 table.
TEST(AttributesFromRequest, SpecTable) {
  Expect(Make("GET", "/api/v1/pods"), {"list", "", "pods", "", "", ""});
  Expect(Make("GET", "/api/v1/namespaces/demo/pods", {{"watch", "1"}}),
         {"watch", "demo", "pods", "", "", ""});
  Expect(Make("PATCH", "/api/v1/namespaces/demo/pods/p1/status"),
         {"patch", "demo", "pods", "status", "p1", ""});
  Expect(Make("DELETE", "/api/v1/namespaces/demo/pods"),
         {"deletecollection", "demo", "pods", "", "", ""});
  Expect(Make("PUT", "/api/v1/namespaces/demo/finalize"),
         {"update", "demo", "namespaces", "finalize", "demo", ""});
  Expect(Make("GET", "/api/v1/nodes", {{"fieldSelector", "metadata.name=n1"}}),
         {"list", "", "nodes", "", "n1", ""});
  Expect(Make("PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1"),
         {"update", "kube-node-lease", "leases", "", "n1", "coordination.k8s.io"});
  Expect(Make("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"),
         {"create", "", "selfsubjectaccessreviews", "", "", "authorization.k8s.io"});
}

TEST(AttributesFromRequest, NamespaceItselfIsInItsNamespace) {
  Expect(Make("GET", "/api/v1/namespaces/demo"), {"get", "demo", "namespaces", "", "demo", ""});
  Expect(Make("PUT", "/api/v1/namespaces/demo/status"),
         {"update", "demo", "namespaces", "status", "demo", ""});
  Expect(Make("GET", "/api/v1/namespaces"), {"list", "", "namespaces", "", "", ""});
}

TEST(AttributesFromRequest, NonResourcePaths) {
  for (std::string path : {"/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1", "/healthz",
                           "/readyz/etcd", "/version", "/openapi/v3/apis", "/metrics"}) {
    http::Request r = Make("GET", path);
    Attributes a = AttributesFromRequest(r);
    EXPECT_FALSE(a.resource_request) << path;
    EXPECT_EQ(a.verb, "get") << path;
    EXPECT_EQ(a.path, path);
  }
  Attributes head = AttributesFromRequest(Make("HEAD", "/healthz"));
  EXPECT_EQ(head.verb, "head");
  Attributes options = AttributesFromRequest(Make("OPTIONS", "/version"));
  EXPECT_EQ(options.verb, "options");
}

TEST(AttributesFromRequest, VerbMapping) {
  Expect(Make("POST", "/api/v1/namespaces/demo/pods"), {"create", "demo", "pods", "", "", ""});
  Expect(Make("HEAD", "/api/v1/namespaces/demo/pods/p1"), {"get", "demo", "pods", "", "p1", ""});
  Expect(Make("PUT", "/api/v1/nodes/n1"), {"update", "", "nodes", "", "n1", ""});
  Expect(Make("DELETE", "/api/v1/nodes/n1"), {"delete", "", "nodes", "", "n1", ""});
  Expect(Make("OPTIONS", "/api/v1/nodes/n1"), {"", "", "nodes", "", "n1", ""});
}

TEST(AttributesFromRequest, WatchQuery) {
  Expect(Make("GET", "/api/v1/pods", {{"watch", "true"}}), {"watch", "", "pods", "", "", ""});
  Expect(Make("GET", "/api/v1/pods", {{"watch", ""}}), {"watch", "", "pods", "", "", ""});
  Expect(Make("GET", "/api/v1/pods", {{"watch", "false"}}), {"list", "", "pods", "", "", ""});
  Expect(Make("GET", "/api/v1/pods", {{"watch", "FALSE"}}), {"list", "", "pods", "", "", ""});
  Expect(Make("GET", "/api/v1/pods", {{"watch", "0"}}), {"list", "", "pods", "", "", ""});
  // A named GET stays get whatever the query says.
  Expect(Make("GET", "/api/v1/nodes/n1", {{"watch", "1"}}), {"get", "", "nodes", "", "n1", ""});
}

TEST(AttributesFromRequest, LegacyWatchPaths) {
  Expect(Make("GET", "/api/v1/watch/namespaces/demo/pods"), {"watch", "demo", "pods", "", "", ""});
  Expect(Make("GET", "/api/v1/watch/namespaces/demo/pods/p1"),
         {"watch", "demo", "pods", "", "p1", ""});
  Expect(Make("GET", "/apis/discovery.k8s.io/v1/watch/endpointslices"),
         {"watch", "", "endpointslices", "", "", "discovery.k8s.io"});
}

TEST(AttributesFromRequest, FieldSelectorName) {
  Expect(Make("GET", "/api/v1/nodes", {{"fieldSelector", "metadata.name==n1"}, {"watch", "1"}}),
         {"watch", "", "nodes", "", "n1", ""});
  Expect(Make("DELETE", "/api/v1/namespaces/demo/pods", {{"fieldSelector", "metadata.name=p1"}}),
         {"deletecollection", "demo", "pods", "", "p1", ""});
  // != is no exact match; an invalid path segment or selector gives no name.
  Expect(Make("GET", "/api/v1/nodes", {{"fieldSelector", "metadata.name!=n1"}}),
         {"list", "", "nodes", "", "", ""});
  Expect(Make("GET", "/api/v1/nodes", {{"fieldSelector", "metadata.name=a/b"}}),
         {"list", "", "nodes", "", "", ""});
  Expect(Make("GET", "/api/v1/nodes", {{"fieldSelector", "metadata.name=.."}}),
         {"list", "", "nodes", "", "", ""});
  Expect(Make("GET", "/api/v1/nodes", {{"fieldSelector", "bogus"}}),
         {"list", "", "nodes", "", "", ""});
}

TEST(AttributesFromRequest, RawSelectorsOnCollectionsOnly) {
  http::Request list = Make("GET", "/api/v1/pods",
                            {{"fieldSelector", "spec.nodeName=n1"}, {"labelSelector", "app=web"}});
  Attributes a = AttributesFromRequest(list);
  EXPECT_EQ(a.field_selector, "spec.nodeName=n1");
  EXPECT_EQ(a.label_selector, "app=web");
  EXPECT_EQ(a.name, "");
  http::Request get =
      Make("GET", "/api/v1/namespaces/demo/pods/p1", {{"fieldSelector", "spec.nodeName=n1"}});
  Attributes g = AttributesFromRequest(get);
  EXPECT_EQ(g.field_selector, "");
  EXPECT_EQ(g.label_selector, "");
}

TEST(AttributesFromRequest, ShortPathsAndTrailingSlashes) {
  // /apis/<g>/<v> needs a fourth part to be a resource request.
  EXPECT_FALSE(
      AttributesFromRequest(Make("GET", "/apis/rbac.authorization.k8s.io/v1")).resource_request);
  Expect(Make("GET", "/api/v1/pods/"), {"list", "", "pods", "", "", ""});
  Attributes empty = AttributesFromRequest(Make("GET", ""));
  EXPECT_FALSE(empty.resource_request);
  Attributes lone = AttributesFromRequest(Make("GET", "/api/v1/watch"));
  EXPECT_TRUE(lone.resource_request);
  EXPECT_EQ(lone.resource, "");
}

}  // namespace
}  // namespace svcplane::apiserver::authorization
