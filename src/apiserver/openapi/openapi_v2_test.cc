#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <string>
#include <vector>

#include "api/codec/internal/proto_wire.h"
#include "apiserver/openapi/openapi.h"

namespace svcplane::apiserver::openapi {
namespace {

namespace json = boost::json;
using api::codec::internal::ProtoReader;
using api::codec::internal::WireType;

const Documents& Docs() {
  static const Documents* d = new Documents();
  return *d;
}

const json::object& Swagger() {
  static const json::object* s = new json::object(json::parse(Docs().SwaggerJson()).as_object());
  return *s;
}

// --- a test-side protobuf reader: field number → raw values, numbers from OpenAPIv2.proto ----

using Msg = std::multimap<uint32_t, std::string_view>;

Msg Parse(std::string_view bytes) {
  Msg out;
  ProtoReader r(bytes);
  while (!r.done()) {
    uint32_t field;
    WireType wt;
    std::string_view raw;
    EXPECT_TRUE(r.ReadTag(&field, &wt) && r.ReadRaw(wt, &raw)) << "malformed message";
    if (::testing::Test::HasFailure()) break;
    out.emplace(field, raw);
  }
  return out;
}

std::string_view One(const Msg& m, uint32_t field) {
  EXPECT_EQ(m.count(field), 1u) << "field " << field;
  auto it = m.find(field);
  return it == m.end() ? std::string_view() : it->second;
}

std::vector<std::string_view> All(const Msg& m, uint32_t field) {
  std::vector<std::string_view> out;
  for (auto [it, end] = m.equal_range(field); it != end; ++it) out.push_back(it->second);
  return out;
}

// Repeated Named* pairs (name = 1, value = 2) as a map name → value bytes.
std::map<std::string_view, std::string_view> Named(const Msg& m, uint32_t field) {
  std::map<std::string_view, std::string_view> out;
  for (std::string_view pair : All(m, field)) {
    Msg p = Parse(pair);
    out[One(p, 1)] = One(p, 2);
  }
  return out;
}

// NamedAny vendor extensions: Any.yaml (field 2) parsed (our YAML is JSON text).
std::map<std::string_view, json::value> Extensions(const Msg& m, uint32_t field) {
  std::map<std::string_view, json::value> out;
  for (auto [name, any] : Named(m, field)) out[name] = json::parse(One(Parse(any), 2));
  return out;
}

constexpr uint32_t kDocSwagger = 1, kDocInfo = 2, kDocPaths = 8, kDocDefinitions = 9;
constexpr uint32_t kSchemaRef = 1, kSchemaDescription = 4, kSchemaRequired = 19,
                   kSchemaAdditional = 21, kSchemaType = 22, kSchemaItems = 23,
                   kSchemaProperties = 25, kSchemaExtensions = 31;

std::map<std::string_view, std::string_view> Definitions() {
  static const Msg* doc = new Msg(Parse(Docs().SwaggerProtobuf()));
  return Named(Parse(One(*doc, kDocDefinitions)), 1);
}

Msg Definition(std::string_view name) {
  auto defs = Definitions();
  EXPECT_TRUE(defs.contains(name)) << name;
  return Parse(defs[name]);
}

Msg Property(const Msg& schema, std::string_view name) {
  auto props = Named(Parse(One(schema, kSchemaProperties)), 1);
  EXPECT_TRUE(props.contains(name)) << name;
  return Parse(props[name]);
}

std::string_view Type(const Msg& schema) { return One(Parse(One(schema, kSchemaType)), 1); }

// --- the protobuf document ---------------------------------------------------------------------

TEST(OpenApiV2Proto, DocumentHeader) {
  Msg doc = Parse(Docs().SwaggerProtobuf());
  EXPECT_EQ(One(doc, kDocSwagger), "2.0");
  Msg info = Parse(One(doc, kDocInfo));
  EXPECT_EQ(One(info, 1), "Kubernetes");
  EXPECT_EQ(One(info, 2), "v1.30.0");
  EXPECT_EQ(doc.size(), 4u);  // swagger, info, paths, definitions
}

TEST(OpenApiV2Proto, SameDefinitionsAndPropertiesAsTheJson) {
  const json::object& defs = Swagger().at("definitions").as_object();
  auto proto_defs = Definitions();
  ASSERT_EQ(proto_defs.size(), defs.size());
  for (const auto& [name, schema] : defs) {
    std::string_view n(name.data(), name.size());
    ASSERT_TRUE(proto_defs.contains(n)) << n;
    Msg s = Parse(proto_defs[n]);
    const json::object& o = schema.as_object();
    if (o.contains("properties")) {
      EXPECT_EQ(Named(Parse(One(s, kSchemaProperties)), 1).size(),
                o.at("properties").as_object().size())
          << n;
    }
    if (o.contains("description")) {
      EXPECT_EQ(One(s, kSchemaDescription), std::string_view(o.at("description").as_string()));
    }
  }
}

TEST(OpenApiV2Proto, KindsCarryGroupVersionKind) {
  struct Case {
    std::string_view name, group, kind;
  };
  for (const Case& c :
       {Case{"io.k8s.api.core.v1.Pod", "", "Pod"},
        Case{"io.k8s.api.core.v1.ServiceList", "", "ServiceList"},
        Case{"io.k8s.api.discovery.v1.EndpointSlice", "discovery.k8s.io", "EndpointSlice"},
        Case{"io.k8s.api.coordination.v1.Lease", "coordination.k8s.io", "Lease"}}) {
    auto ext = Extensions(Definition(c.name), kSchemaExtensions);
    ASSERT_TRUE(ext.contains("x-kubernetes-group-version-kind")) << c.name;
    EXPECT_EQ(ext["x-kubernetes-group-version-kind"],
              json::parse(R"([{"group":")" + std::string(c.group) + R"(","kind":")" +
                          std::string(c.kind) + R"(","version":"v1"}])"))
        << c.name;
  }
}

TEST(OpenApiV2Proto, FieldsReferToDefinitionsWithPatchMetadata) {
  Msg pod = Definition("io.k8s.api.core.v1.Pod");
  EXPECT_EQ(Type(pod), "object");
  Msg spec = Property(pod, "spec");
  EXPECT_EQ(One(spec, kSchemaRef), "#/definitions/io.k8s.api.core.v1.PodSpec");
  EXPECT_EQ(spec.count(24), 0u);  // no allOf: kube-openapi's v2 models ignore it

  Msg containers = Property(Definition("io.k8s.api.core.v1.PodSpec"), "containers");
  EXPECT_EQ(Type(containers), "array");
  Msg item = Parse(One(Parse(One(containers, kSchemaItems)), 1));
  EXPECT_EQ(One(item, kSchemaRef), "#/definitions/io.k8s.api.core.v1.Container");
  auto ext = Extensions(containers, kSchemaExtensions);
  EXPECT_EQ(ext["x-kubernetes-patch-merge-key"], "name");
  EXPECT_EQ(ext["x-kubernetes-patch-strategy"], "merge");

  Msg ports = Property(Definition("io.k8s.api.core.v1.Container"), "ports");
  ext = Extensions(ports, kSchemaExtensions);
  EXPECT_EQ(ext["x-kubernetes-list-type"], "map");
  EXPECT_EQ(ext["x-kubernetes-patch-merge-key"], "containerPort");
  std::vector<std::string_view> required =
      All(Definition("io.k8s.api.core.v1.ContainerPort"), kSchemaRequired);
  EXPECT_THAT(required, ::testing::Contains("containerPort"));

  // map[string]string: additionalProperties → AdditionalPropertiesItem.schema (1).
  Msg labels = Property(Definition("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"), "labels");
  EXPECT_EQ(Type(labels), "object");
  EXPECT_EQ(Type(Parse(One(Parse(One(labels, kSchemaAdditional)), 1))), "string");
}

// Fields the model keeps verbatim are still listed in v2 (kube-openapi's v2 validator knows no
// x-kubernetes-preserve-unknown-fields): untyped, so any value passes.
TEST(OpenApiV2Json, UpstreamOnlyFieldsAreUntypedProperties) {
  const json::object& defs = Swagger().at("definitions").as_object();
  const json::object& volume = defs.at("io.k8s.api.core.v1.Volume").at("properties").as_object();
  ASSERT_TRUE(volume.contains("csi"));
  EXPECT_FALSE(volume.at("csi").as_object().contains("type"));
  EXPECT_FALSE(volume.at("csi").as_object().contains("$ref"));
  EXPECT_TRUE(volume.at("emptyDir").as_object().contains("$ref"));  // modelled ones keep theirs
  EXPECT_TRUE(defs.at("io.k8s.api.core.v1.PodSpec")
                  .at("properties")
                  .as_object()
                  .contains("schedulingGates"));
}

// What kubectl 1.27's v2 QueryParamVerifier looks for: a PATCH operation whose
// x-kubernetes-group-version-kind is the kind and whose parameters include the query parameter
// fieldValidation (ParametersItem.parameter.non_body_parameter.query_parameter_sub_schema).
TEST(OpenApiV2Proto, PatchOperationsListFieldValidation) {
  Msg doc = Parse(Docs().SwaggerProtobuf());
  auto paths = Named(Parse(One(doc, kDocPaths)), 2);
  EXPECT_EQ(paths.size(), Swagger().at("paths").as_object().size());
  struct Case {
    std::string_view path, group, kind;
  };
  for (const Case& c : {Case{"/api/v1/namespaces/{namespace}/pods/{name}", "", "Pod"},
                        Case{"/api/v1/nodes/{name}", "", "Node"},
                        Case{"/api/v1/namespaces/{name}", "", "Namespace"},
                        Case{"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}",
                             "coordination.k8s.io", "Lease"},
                        Case{"/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}",
                             "rbac.authorization.k8s.io", "ClusterRole"}}) {
    ASSERT_TRUE(paths.contains(c.path)) << c.path;
    Msg op = Parse(One(Parse(paths[c.path]), 8));  // PathItem.patch
    auto ext = Extensions(op, 13);
    EXPECT_EQ(ext["x-kubernetes-group-version-kind"],
              (json::object{{"group", c.group}, {"kind", c.kind}, {"version", "v1"}}));
    std::vector<std::string_view> query_names;
    std::vector<std::string_view> body_schemas;
    for (std::string_view item : All(op, 8)) {
      Msg param = Parse(One(Parse(item), 1));
      if (param.contains(2)) {
        Msg non_body = Parse(One(param, 2));
        if (non_body.contains(3)) query_names.push_back(One(Parse(One(non_body, 3)), 4));
      } else {
        Msg body = Parse(One(param, 1));
        EXPECT_EQ(One(body, 3), "body");
        body_schemas.push_back(One(Parse(One(body, 5)), kSchemaRef));
      }
    }
    EXPECT_THAT(query_names, ::testing::IsSupersetOf({"fieldValidation", "fieldManager"}));
    EXPECT_THAT(body_schemas,
                ::testing::ElementsAre("#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"));
    EXPECT_THAT(All(op, 7), ::testing::Contains("application/strategic-merge-patch+json"));
    EXPECT_THAT(All(op, 7), ::testing::Contains("application/apply-patch+yaml"));
  }
}

// --- the JSON document -------------------------------------------------------------------------

void CollectRefs(const json::value& v, std::vector<std::string>* refs) {
  if (v.is_object()) {
    for (const auto& [k, x] : v.as_object()) {
      if (k == "$ref") refs->emplace_back(x.as_string());
      CollectRefs(x, refs);
    }
  } else if (v.is_array()) {
    for (const auto& x : v.as_array()) CollectRefs(x, refs);
  }
}

TEST(OpenApiV2Json, EveryReferenceResolves) {
  std::vector<std::string> refs;
  CollectRefs(Swagger(), &refs);
  ASSERT_GT(refs.size(), 100u);
  const json::object& defs = Swagger().at("definitions").as_object();
  for (const std::string& r : refs) {
    ASSERT_TRUE(r.starts_with("#/definitions/")) << r;
    EXPECT_TRUE(defs.contains(r.substr(14))) << r;
  }
  EXPECT_EQ(Docs().SwaggerJson().find("allOf"), std::string::npos);
  EXPECT_EQ(Docs().SwaggerJson().find("components"), std::string::npos);
}

TEST(OpenApiV2Json, OperationsAreSwagger2) {
  const json::object& item =
      Swagger().at("paths").at("/api/v1/namespaces/{namespace}/services").as_object();
  const json::object& post = item.at("post").as_object();
  EXPECT_EQ(post.at("operationId"), "createCoreV1NamespacedService");
  EXPECT_FALSE(post.contains("requestBody"));
  bool has_body = false;
  for (const auto& p : post.at("parameters").as_array()) {
    if (p.at("in") == "body") {
      has_body = true;
      EXPECT_EQ(p.at("schema").at("$ref"), "#/definitions/io.k8s.api.core.v1.Service");
    } else {
      EXPECT_FALSE(p.as_object().contains("schema"));
      EXPECT_EQ(p.at("type"), "string");
    }
  }
  EXPECT_TRUE(has_body);
  EXPECT_EQ(post.at("responses").at("201").at("schema").at("$ref"),
            "#/definitions/io.k8s.api.core.v1.Service");
  EXPECT_THAT(post.at("produces").as_array(), ::testing::Contains(json::value("application/json")));
  // Path-level parameters too: {namespace} is a required path parameter of type string.
  const json::object& ns = item.at("parameters").as_array()[0].as_object();
  EXPECT_EQ(ns.at("name"), "namespace");
  EXPECT_EQ(ns.at("in"), "path");
  EXPECT_EQ(ns.at("type"), "string");
  EXPECT_EQ(ns.at("required"), true);
}

// --- negotiation -------------------------------------------------------------------------------

TEST(OpenApiV2Serve, NegotiatesLikeKubeApiserver) {
  const Documents& d = Docs();
  V2Response r = d.ServeV2("", "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body, d.SwaggerJson());

  for (std::string_view accept :
       {kV2ProtobufAccept, kV2ProtobufContentType,
        std::string_view("application/json;q=0.5, "
                         "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")}) {
    r = d.ServeV2(accept, "");
    EXPECT_EQ(r.status, 200) << accept;
    EXPECT_EQ(r.content_type, kV2ProtobufContentType) << accept;
    EXPECT_EQ(r.body, d.SwaggerProtobuf()) << accept;
  }
  EXPECT_EQ(d.ServeV2("*/*", "").content_type, "application/json");
  EXPECT_EQ(d.ServeV2("text/html, application/*;q=0.9", "").content_type, "application/json");
  EXPECT_EQ(d.ServeV2("text/html", "").status, 406);
  EXPECT_EQ(d.ServeV2("application/json;q=0", "").status, 406);
}

TEST(OpenApiV2Serve, ETagAndIfNoneMatch) {
  const Documents& d = Docs();
  std::string etag(d.ServeV2("", "").etag);
  ASSERT_EQ(etag.size(), 130u);  // quoted SHA-512, upper-case hex
  EXPECT_EQ(etag.front(), '"');
  EXPECT_EQ(d.ServeV2(kV2ProtobufAccept, "").etag, etag);  // one ETag for both (Vary: Accept)

  V2Response r = d.ServeV2(kV2ProtobufAccept, etag);
  EXPECT_EQ(r.status, 304);
  EXPECT_TRUE(r.body.empty());
  EXPECT_EQ(r.etag, etag);
  EXPECT_EQ(d.ServeV2("", "\"other\", W/" + etag).status, 304);
  EXPECT_EQ(d.ServeV2("", "*").status, 304);
  EXPECT_EQ(d.ServeV2("", "\"other\"").status, 200);
  EXPECT_EQ(d.ServeV2("text/html", etag).status, 406);
}

}  // namespace
}  // namespace svcplane::apiserver::openapi
