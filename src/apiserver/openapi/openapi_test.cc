#include "apiserver/openapi/openapi.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>

#include <boost/json.hpp>

namespace svcplane::apiserver::openapi {
namespace {

namespace json = boost::json;

class OpenApiTest : public ::testing::Test {
 protected:
  static const Documents& Docs() {
    static const Documents* d = new Documents();
    return *d;
  }
  static json::object Doc(std::string_view path) {
    const std::string* s = Docs().GroupVersion(path);
    EXPECT_NE(s, nullptr) << path;
    return s ? json::parse(*s).as_object() : json::object();
  }
  static const json::object& Schema(const json::object& doc, std::string_view name) {
    return doc.at("components").at("schemas").at(name).as_object();
  }
};

TEST_F(OpenApiTest, IndexListsEveryGroupVersionWithHash) {
  auto index = json::parse(Docs().Index()).as_object();
  const auto& paths = index.at("paths").as_object();
  EXPECT_EQ(paths.size(), 8u);
  for (auto p :
       {"api/v1", "apis/apps/v1", "apis/discovery.k8s.io/v1", "apis/coordination.k8s.io/v1",
        "apis/rbac.authorization.k8s.io/v1", "apis/authentication.k8s.io/v1",
        "apis/authentication.k8s.io/v1beta1", "apis/authorization.k8s.io/v1"}) {
    ASSERT_TRUE(paths.contains(p)) << p;
    std::string url(paths.at(p).at("serverRelativeURL").as_string());
    EXPECT_EQ(url, "/openapi/v3/" + std::string(p) + "?hash=" + std::string(Docs().Hash(p)));
    EXPECT_EQ(Docs().Hash(p).size(), 128u);
  }
  EXPECT_EQ(Docs().GroupVersion("apis/batch/v1"), nullptr);
  EXPECT_EQ(Docs().Hash("api/v2"), "");
}

// What kubectl checks before sending fieldValidation=Strict (api-discovery §5.3).
TEST_F(OpenApiTest, EveryKindHasPatchWithFieldValidationAndStrategicMerge) {
  struct Case {
    std::string_view doc, path, group, kind;
  };
  for (const Case& c : std::vector<Case>{
           {"api/v1", "/api/v1/namespaces/{namespace}/services/{name}", "", "Service"},
           {"api/v1", "/api/v1/namespaces/{namespace}/pods/{name}", "", "Pod"},
           {"api/v1", "/api/v1/nodes/{name}", "", "Node"},
           {"api/v1", "/api/v1/namespaces/{name}", "", "Namespace"},
           {"api/v1", "/api/v1/namespaces/{namespace}/endpoints/{name}", "", "Endpoints"},
           {"api/v1", "/api/v1/namespaces/{namespace}/events/{name}", "", "Event"},
           {"api/v1", "/api/v1/namespaces/{namespace}/configmaps/{name}", "", "ConfigMap"},
           {"api/v1", "/api/v1/namespaces/{namespace}/secrets/{name}", "", "Secret"},
           {"api/v1", "/api/v1/namespaces/{namespace}/serviceaccounts/{name}", "",
            "ServiceAccount"},
           {"apis/discovery.k8s.io/v1",
            "/apis/discovery.k8s.io/v1/namespaces/{namespace}/endpointslices/{name}",
            "discovery.k8s.io", "EndpointSlice"},
           {"apis/coordination.k8s.io/v1",
            "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}",
            "coordination.k8s.io", "Lease"},
           {"apis/rbac.authorization.k8s.io/v1",
            "/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles/{name}",
            "rbac.authorization.k8s.io", "Role"},
           {"apis/rbac.authorization.k8s.io/v1",
            "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/{name}",
            "rbac.authorization.k8s.io", "ClusterRoleBinding"},
           {"apis/apps/v1", "/apis/apps/v1/namespaces/{namespace}/deployments/{name}", "apps",
            "Deployment"},
           {"apis/apps/v1", "/apis/apps/v1/namespaces/{namespace}/replicasets/{name}", "apps",
            "ReplicaSet"}}) {
    auto doc = Doc(c.doc);
    ASSERT_TRUE(doc.at("paths").as_object().contains(c.path)) << c.path;
    const auto& patch = doc.at("paths").at(c.path).at("patch").as_object();
    EXPECT_EQ(
        json::serialize(patch.at("x-kubernetes-group-version-kind")),
        json::serialize(json::object{{"group", c.group}, {"version", "v1"}, {"kind", c.kind}}));
    std::vector<std::string> params;
    for (const auto& p : patch.at("parameters").as_array()) {
      EXPECT_EQ(p.at("in").as_string(), "query");
      params.emplace_back(p.at("name").as_string());
    }
    EXPECT_THAT(params, ::testing::IsSupersetOf({"fieldValidation", "fieldManager", "dryRun"}));
    const auto& content = patch.at("requestBody").at("content").as_object();
    EXPECT_TRUE(content.contains("application/strategic-merge-patch+json"));
    EXPECT_TRUE(content.contains("application/apply-patch+yaml"));
    EXPECT_TRUE(content.contains("application/merge-patch+json"));
    EXPECT_TRUE(content.contains("application/json-patch+json"));
    // The kind's component carries its GVK as a list (how kubectl apply finds it).
    std::string ref(patch.at("responses")
                        .at("200")
                        .at("content")
                        .at("application/json")
                        .at("schema")
                        .at("$ref")
                        .as_string());
    std::string name = ref.substr(std::string("#/components/schemas/").size());
    EXPECT_EQ(Schema(doc, name).at("x-kubernetes-group-version-kind").at(0).at("kind").as_string(),
              c.kind);
  }
}

TEST_F(OpenApiTest, PostAndPutListValidationParams) {
  const auto doc = Doc("api/v1");
  const auto& coll = doc.at("paths").at("/api/v1/namespaces/{namespace}/services").as_object();
  for (const auto* op :
       {&coll.at("post"),
        &doc.at("paths").at("/api/v1/namespaces/{namespace}/services/{name}").at("put")}) {
    std::vector<std::string> params;
    for (const auto& p : op->at("parameters").as_array())
      params.emplace_back(p.at("name").as_string());
    EXPECT_THAT(params, ::testing::ElementsAre("dryRun", "fieldManager", "fieldValidation"));
  }
  EXPECT_EQ(coll.at("get").at("operationId").as_string(), "listCoreV1NamespacedService");
  EXPECT_EQ(coll.at("delete").at("operationId").as_string(),
            "deleteCoreV1CollectionNamespacedService");
  EXPECT_TRUE(doc.at("paths").as_object().contains("/api/v1/services"));
  EXPECT_TRUE(
      doc.at("paths").as_object().contains("/api/v1/namespaces/{namespace}/pods/{name}/status"));
  EXPECT_TRUE(doc.at("paths").as_object().contains("/api/v1/namespaces/{name}/finalize"));
  // Namespaces have no deletecollection verb, so no DELETE on the collection.
  EXPECT_FALSE(doc.at("paths").at("/api/v1/namespaces").as_object().contains("delete"));
  EXPECT_EQ(doc.at("openapi").as_string(), "3.0.0");
}

TEST_F(OpenApiTest, SchemasAreGeneratedFromTheModel) {
  auto doc = Doc("api/v1");
  const auto& spec = Schema(doc, "io.k8s.api.core.v1.ServiceSpec");
  const auto& ports = spec.at("properties").at("ports").as_object();
  EXPECT_EQ(ports.at("type").as_string(), "array");
  EXPECT_EQ(ports.at("x-kubernetes-patch-merge-key").as_string(), "port");
  EXPECT_EQ(ports.at("x-kubernetes-patch-strategy").as_string(), "merge");
  EXPECT_EQ(ports.at("x-kubernetes-list-type").as_string(), "map");
  EXPECT_EQ(json::serialize(ports.at("x-kubernetes-list-map-keys")), R"(["port","protocol"])");
  EXPECT_EQ(ports.at("items").at("allOf").at(0).at("$ref").as_string(),
            "#/components/schemas/io.k8s.api.core.v1.ServicePort");
  EXPECT_EQ(json::serialize(spec.at("properties").at("selector")),
            R"({"type":"object","additionalProperties":{"type":"string","default":""},)"
            R"("description":)" +
                json::serialize(spec.at("properties").at("selector").at("description")) + "}");
  EXPECT_EQ(spec.at("properties").at("clusterIPs").at("x-kubernetes-list-type").as_string(),
            "atomic");

  const auto& port = Schema(doc, "io.k8s.api.core.v1.ServicePort");
  EXPECT_EQ(json::serialize(port.at("required")), R"(["port"])");
  EXPECT_EQ(port.at("properties").at("port").at("format").as_string(), "int32");
  EXPECT_EQ(port.at("properties").at("targetPort").at("allOf").at(0).at("$ref").as_string(),
            "#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString");
  EXPECT_TRUE(Schema(doc, "io.k8s.apimachinery.pkg.util.intstr.IntOrString")
                  .at("x-kubernetes-int-or-string")
                  .as_bool());
  EXPECT_EQ(Schema(doc, "io.k8s.apimachinery.pkg.apis.meta.v1.Time").at("format").as_string(),
            "date-time");

  const auto& meta = Schema(doc, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  EXPECT_EQ(meta.at("properties").at("generation").at("format").as_string(), "int64");
  EXPECT_EQ(
      meta.at("properties").at("ownerReferences").at("x-kubernetes-patch-merge-key").as_string(),
      "uid");
  EXPECT_EQ(meta.at("properties").at("finalizers").at("x-kubernetes-patch-strategy").as_string(),
            "merge");

  const auto& container = Schema(doc, "io.k8s.api.core.v1.Container");
  EXPECT_TRUE(container.at("x-kubernetes-preserve-unknown-fields").as_bool());
  EXPECT_EQ(container.at("properties").at("ports").at("x-kubernetes-patch-merge-key").as_string(),
            "containerPort");
  // Fields the model keeps verbatim get hand-written schemas (overlay.cc) so that kubectl apply
  // can walk them.
  EXPECT_EQ(container.at("properties").at("resources").at("allOf").at(0).at("$ref").as_string(),
            "#/components/schemas/io.k8s.api.core.v1.ResourceRequirements");
  EXPECT_EQ(container.at("properties").at("env").at("x-kubernetes-patch-merge-key").as_string(),
            "name");
  EXPECT_EQ(
      container.at("properties").at("volumeMounts").at("x-kubernetes-patch-merge-key").as_string(),
      "mountPath");
  EXPECT_TRUE(
      Schema(doc, "io.k8s.api.core.v1.Probe").at("properties").as_object().contains("httpGet"));
  EXPECT_EQ(Schema(doc, "io.k8s.api.core.v1.PodSpec")
                .at("properties")
                .at("volumes")
                .at("x-kubernetes-patch-strategy")
                .as_string(),
            "merge,retainKeys");
  EXPECT_EQ(Schema(doc, "io.k8s.api.core.v1.PodSpec")
                .at("properties")
                .at("containers")
                .at("x-kubernetes-patch-merge-key")
                .as_string(),
            "name");
  EXPECT_EQ(Schema(doc, "io.k8s.api.core.v1.NodeStatus")
                .at("properties")
                .at("capacity")
                .at("additionalProperties")
                .at("allOf")
                .at(0)
                .at("$ref")
                .as_string(),
            "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity");
  EXPECT_EQ(
      json::serialize(
          Schema(doc, "io.k8s.api.core.v1.ServiceList").at("x-kubernetes-group-version-kind")),
      R"([{"group":"","kind":"ServiceList","version":"v1"}])");
  EXPECT_EQ(json::serialize(Schema(doc, "io.k8s.api.core.v1.PodList").at("required")),
            R"(["items"])");
}

// apps' scale subresource takes and returns an autoscaling/v1 Scale.
TEST_F(OpenApiTest, ScaleSubresourceUsesTheScaleKind) {
  auto doc = Doc("apis/apps/v1");
  const auto& path =
      doc.at("paths").at("/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale");
  const auto& put = path.at("put").as_object();
  EXPECT_EQ(put.at("operationId").as_string(), "replaceAppsV1NamespacedDeploymentScale");
  EXPECT_EQ(json::serialize(put.at("x-kubernetes-group-version-kind")),
            R"({"group":"autoscaling","version":"v1","kind":"Scale"})");
  EXPECT_NE(json::serialize(put.at("requestBody")).find("io.k8s.api.autoscaling.v1.Scale"),
            std::string::npos);
  EXPECT_EQ(json::serialize(Schema(doc, "io.k8s.api.autoscaling.v1.ScaleStatus").at("required")),
            R"(["replicas"])");
  EXPECT_TRUE(doc.at("paths").as_object().contains(
      "/apis/apps/v1/namespaces/{namespace}/replicasets/{name}/scale"));
}

TEST_F(OpenApiTest, EveryRefResolves) {
  for (auto path :
       {"api/v1", "apis/discovery.k8s.io/v1", "apis/coordination.k8s.io/v1", "apis/apps/v1"}) {
    auto doc = Doc(path);
    const auto& schemas = doc.at("components").at("schemas").as_object();
    int refs = 0;
    std::function<void(const json::value&)> walk = [&](const json::value& v) {
      if (v.is_object()) {
        for (const auto& [k, child] : v.as_object()) {
          if (k == "$ref") {
            ++refs;
            std::string ref(child.as_string());
            std::string name = ref.substr(std::string("#/components/schemas/").size());
            EXPECT_TRUE(schemas.contains(name)) << path << ": dangling " << ref;
          } else {
            walk(child);
          }
        }
      } else if (v.is_array()) {
        for (const auto& child : v.as_array()) walk(child);
      }
    };
    walk(doc);
    EXPECT_GT(refs, 10) << path;
  }
}

TEST_F(OpenApiTest, GroupDocsHoldOnlyTheirKinds) {
  auto disc = Doc("apis/discovery.k8s.io/v1");
  const auto& schemas = disc.at("components").at("schemas").as_object();
  EXPECT_TRUE(schemas.contains("io.k8s.api.discovery.v1.EndpointSlice"));
  EXPECT_FALSE(schemas.contains("io.k8s.api.core.v1.Pod"));
  EXPECT_TRUE(schemas.contains("io.k8s.api.core.v1.ObjectReference"));  // targetRef
  const auto& eps = schemas.at("io.k8s.api.discovery.v1.EndpointSlice").as_object();
  EXPECT_EQ(json::serialize(eps.at("required")), R"(["addressType","endpoints"])");
  auto lease = Doc("apis/coordination.k8s.io/v1");
  EXPECT_EQ(lease.at("components")
                .at("schemas")
                .at("io.k8s.api.coordination.v1.LeaseSpec")
                .at("properties")
                .at("renewTime")
                .at("allOf")
                .at(0)
                .at("$ref")
                .as_string(),
            "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime");
}

// The review kinds: a POST on the collection, no item path, both versions' GVKs for the shared
// SelfSubjectReview schema in the all-groups document.
TEST_F(OpenApiTest, ReviewKindsAreCreateOnly) {
  for (auto [doc_path, path, schema] : std::vector<std::array<std::string_view, 3>>{
           {"apis/authentication.k8s.io/v1", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
            "io.k8s.api.authentication.v1.SelfSubjectReview"},
           {"apis/authentication.k8s.io/v1beta1",
            "/apis/authentication.k8s.io/v1beta1/selfsubjectreviews",
            "io.k8s.api.authentication.v1.SelfSubjectReview"},
           {"apis/authorization.k8s.io/v1",
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            "io.k8s.api.authorization.v1.SelfSubjectAccessReview"},
           {"apis/authorization.k8s.io/v1", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
            "io.k8s.api.authorization.v1.SelfSubjectRulesReview"}}) {
    auto doc = Doc(doc_path);
    const auto& paths = doc.at("paths").as_object();
    ASSERT_TRUE(paths.contains(path)) << path;
    const auto& ops = paths.at(path).as_object();
    EXPECT_TRUE(ops.contains("post")) << path;
    EXPECT_FALSE(ops.contains("get")) << path;
    EXPECT_FALSE(paths.contains(std::string(path) + "/{name}")) << path;
    EXPECT_TRUE(doc.at("components").at("schemas").as_object().contains(schema)) << schema;
  }
}

}  // namespace
}  // namespace svcplane::apiserver::openapi
