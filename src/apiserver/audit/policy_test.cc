#include "apiserver/audit/policy.h"

#include <gtest/gtest.h>

namespace svcplane::apiserver::audit {
namespace {

authorization::Attributes Resource(const http::Identity* user, std::string verb, std::string group,
                                   std::string resource, std::string ns = "", std::string sub = "",
                                   std::string name = "") {
  authorization::Attributes a;
  a.user = user;
  a.verb = std::move(verb);
  a.resource_request = true;
  a.api_group = std::move(group);
  a.resource = std::move(resource);
  a.ns = std::move(ns);
  a.subresource = std::move(sub);
  a.name = std::move(name);
  return a;
}

authorization::Attributes NonResource(const http::Identity* user, std::string path) {
  authorization::Attributes a;
  a.user = user;
  a.verb = "get";
  a.path = std::move(path);
  return a;
}

Policy Parse(std::string_view text) {
  auto p = ParsePolicy(text);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? *p : Policy{};
}

TEST(PolicyTest, ParseErrorsAreKubeApiserversTexts) {
  EXPECT_EQ(
      ParsePolicy("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n").status().message(),
      "loaded illegal policy with 0 rules");
  EXPECT_EQ(ParsePolicy("apiVersion: audit.k8s.io/v1\nkind: Policy\n").status().message(),
            "loaded illegal policy with 0 rules");
  EXPECT_EQ(
      ParsePolicy("apiVersion: audit.k8s.io/v1\nrules: [{level: None}]\n").status().message(),
      R"(Object 'Kind' is missing in '{"apiVersion":"audit.k8s.io/v1","rules":[{"level":"None"}]}')");
  EXPECT_EQ(ParsePolicy("kind: Policy\nrules: [{level: None}]\n").status().message(),
            R"(Object 'apiVersion' is missing in '{"kind":"Policy","rules":[{"level":"None"}]}')");
  EXPECT_EQ(ParsePolicy("apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: [{level: None}]\n")
                .status()
                .message(),
            R"(no kind "Policy" is registered for version "audit.k8s.io/v1beta1")");
  EXPECT_EQ(ParsePolicy("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: All}]\n")
                .status()
                .message(),
            "rules[0].level: Unsupported value: \"All\": supported values: \"None\", "
            "\"Metadata\", \"Request\", \"RequestResponse\"");
  EXPECT_FALSE(ParsePolicy("apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [Nope]\n"
                           "rules: [{level: None}]\n")
                   .ok());
}

TEST(PolicyTest, JsonPolicyParses) {
  Policy p = Parse(R"({"apiVersion":"audit.k8s.io/v1","kind":"Policy",
      "omitStages":["RequestReceived"],"rules":[{"level":"Metadata"}]})");
  ASSERT_EQ(p.rules.size(), 1u);
  EXPECT_EQ(p.rules[0].level, Level::kMetadata);
  http::Identity u{"jane", {"dev"}};
  RuleEvaluation e = p.Evaluate(NonResource(&u, "/api"));
  EXPECT_EQ(e.level, Level::kMetadata);
  EXPECT_TRUE(e.Omits(Stage::kRequestReceived));
  EXPECT_FALSE(e.Omits(Stage::kResponseComplete));
}

TEST(PolicyTest, FirstMatchWinsAndNoMatchIsNone) {
  Policy p = Parse(R"(apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  users: ["system:kube-proxy"]
  verbs: ["watch"]
- level: Request
  userGroups: ["system:nodes"]
  omitStages: ["ResponseStarted"]
- level: RequestResponse
  verbs: ["create"]
)");
  http::Identity kp{"system:kube-proxy", {"system:authenticated"}};
  http::Identity node{"system:node:n1", {"system:nodes", "system:authenticated"}};
  http::Identity jane{"jane", {"dev"}};
  EXPECT_EQ(p.Evaluate(Resource(&kp, "watch", "", "services")).level, Level::kNone);
  EXPECT_EQ(p.Evaluate(Resource(&kp, "get", "", "services")).level, Level::kNone);  // no match
  RuleEvaluation n = p.Evaluate(Resource(&node, "get", "", "nodes"));
  EXPECT_EQ(n.level, Level::kRequest);
  EXPECT_TRUE(n.Omits(Stage::kRequestReceived));  // the policy's, unioned
  EXPECT_TRUE(n.Omits(Stage::kResponseStarted));
  EXPECT_EQ(p.Evaluate(Resource(&jane, "create", "", "pods", "demo")).level,
            Level::kRequestResponse);
  // Unauthenticated: rules naming users or groups never match.
  EXPECT_EQ(p.Evaluate(Resource(nullptr, "get", "", "nodes")).level, Level::kNone);
}

TEST(PolicyTest, ResourceForms) {
  Policy p = Parse(R"(apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
  resources: [{group: "", resources: ["pods/status"]}]
- level: Request
  resources: [{group: "", resources: ["*/status"]}]
- level: RequestResponse
  resources: [{group: "discovery.k8s.io", resources: ["endpointslices/*"]}]
- level: Metadata
  resources: [{group: "coordination.k8s.io", resources: ["leases"], resourceNames: ["n1"]}]
- level: Request
  resources: [{group: "rbac.authorization.k8s.io"}]
- level: RequestResponse
  resources: [{group: "", resources: ["*"]}]
)");
  http::Identity u{"jane", {}};
  EXPECT_EQ(p.Evaluate(Resource(&u, "patch", "", "pods", "demo", "status")).level,
            Level::kMetadata);
  EXPECT_EQ(p.Evaluate(Resource(&u, "patch", "", "nodes", "", "status")).level, Level::kRequest);
  EXPECT_EQ(p.Evaluate(Resource(&u, "get", "discovery.k8s.io", "endpointslices", "demo")).level,
            Level::kRequestResponse);  // "res/*" covers the resource itself too
  EXPECT_EQ(p.Evaluate(Resource(&u, "get", "coordination.k8s.io", "leases", "x", "", "n1")).level,
            Level::kMetadata);
  EXPECT_EQ(p.Evaluate(Resource(&u, "get", "coordination.k8s.io", "leases", "x", "", "n2")).level,
            Level::kNone);
  EXPECT_EQ(p.Evaluate(Resource(&u, "delete", "rbac.authorization.k8s.io", "roles")).level,
            Level::kRequest);
  EXPECT_EQ(p.Evaluate(Resource(&u, "get", "", "pods", "demo", "log")).level,
            Level::kRequestResponse);  // "*" matches subresources too
  EXPECT_EQ(p.Evaluate(Resource(&u, "get", "apps", "deployments")).level, Level::kNone);
  EXPECT_EQ(p.Evaluate(NonResource(&u, "/api")).level, Level::kNone);
}

TEST(PolicyTest, NamespacesAndNonResourceUrls) {
  Policy p = Parse(R"(apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/version"]
- level: Request
  namespaces: ["kube-system"]
- level: RequestResponse
  namespaces: [""]
- level: Metadata
  nonResourceURLs: ["*"]
)");
  http::Identity u{"jane", {}};
  EXPECT_EQ(p.Evaluate(NonResource(&u, "/healthz")).level, Level::kNone);
  EXPECT_EQ(p.Evaluate(NonResource(&u, "/healthz/ping")).level, Level::kNone);
  EXPECT_EQ(p.Evaluate(NonResource(&u, "/version")).level, Level::kNone);
  EXPECT_EQ(p.Evaluate(NonResource(&u, "/version/x")).level, Level::kMetadata);
  EXPECT_EQ(p.Evaluate(Resource(&u, "get", "", "pods", "kube-system")).level, Level::kRequest);
  EXPECT_EQ(p.Evaluate(Resource(&u, "get", "", "nodes", "")).level, Level::kRequestResponse);
  EXPECT_EQ(p.Evaluate(Resource(&u, "get", "", "pods", "demo")).level, Level::kNone);
}

TEST(PolicyTest, ShippedDefaultPolicyParses) {
  auto p = LoadPolicyFile(std::string(SVCPLANE_SOURCE_DIR) + "/examples/audit-policy.yaml");
  ASSERT_TRUE(p.ok()) << p.status().message();
  http::Identity kp{"system:kube-proxy", {"system:authenticated"}};
  http::Identity admin{"admin", {"system:masters", "system:authenticated"}};
  EXPECT_EQ(p->Evaluate(Resource(&kp, "watch", "discovery.k8s.io", "endpointslices")).level,
            Level::kNone);
  EXPECT_EQ(p->Evaluate(NonResource(&admin, "/readyz")).level, Level::kNone);
  EXPECT_EQ(p->Evaluate(Resource(&admin, "list", "", "pods", "demo")).level, Level::kMetadata);
  EXPECT_EQ(p->Evaluate(Resource(&admin, "create", "", "pods", "demo")).level, Level::kRequest);
  EXPECT_EQ(p->Evaluate(Resource(&admin, "create", "rbac.authorization.k8s.io", "roles")).level,
            Level::kRequestResponse);
  EXPECT_EQ(p->Evaluate(Resource(&admin, "create", "", "events", "demo")).level, Level::kNone);
  EXPECT_EQ(p->Evaluate(NonResource(&admin, "/api")).level, Level::kMetadata);
  EXPECT_TRUE(p->Evaluate(NonResource(&admin, "/api")).Omits(Stage::kRequestReceived));
}

TEST(PolicyTest, MissingFileIsAnError) {
  auto p = LoadPolicyFile("/nonexistent/policy.yaml");
  EXPECT_EQ(p.status().message(), "failed to read file path \"/nonexistent/policy.yaml\"");
}

}  // namespace
}  // namespace svcplane::apiserver::audit
