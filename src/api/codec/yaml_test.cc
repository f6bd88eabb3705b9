#include <gtest/gtest.h>

#include "api/codec/json.h"
#include "api/codec/yaml.h"

namespace svcplane::api::codec {
namespace {

TEST(YamlTest, MultiDocumentManifest) {
  auto docs = YamlToJson(R"(
apiVersion: v1
kind: Service
metadata:
  name: web
  labels: {app: web, "version": "1"}
spec:
  selector:
    app: web
  ports:
  - name: http
    port: 80
    targetPort: http
---
---
apiVersion: v1
kind: Pod
metadata:
  name: web-1
spec:
  hostNetwork: false
  terminationGracePeriodSeconds: 5
  containers:
  - name: c
    image: "nginx:1.25"
    args: [--x=1, yes, "yes", 0x1F, 1.5, ~]
)");
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  ASSERT_EQ(docs->size(), 2u);
  auto svc = DecodeJson<core::v1::Service>((*docs)[0]);
  ASSERT_TRUE(svc.ok()) << svc.status().ToString();
  EXPECT_EQ(svc->spec.ports[0].port, 80);
  EXPECT_EQ(svc->spec.ports[0].target_port.str_value, "http");
  EXPECT_EQ(svc->metadata.labels.at("version"), "1");
  auto pod = DecodeJson<core::v1::Pod>((*docs)[1]);
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  EXPECT_EQ(pod->spec.rest->termination_grace_period_seconds, 5);
  EXPECT_NE((*docs)[1].find(R"("args":["--x=1",true,"yes",31,1.5,null])"), std::string::npos)
      << (*docs)[1];
}

TEST(YamlTest, UnquotedNumberLabelIsATypeErrorLikeKubectl) {
  auto docs = YamlToJson("metadata:\n  labels:\n    version: 1\n");
  ASSERT_TRUE(docs.ok());
  auto svc = DecodeJson<core::v1::Service>((*docs)[0]);
  ASSERT_FALSE(svc.ok());
  EXPECT_EQ(svc.status().message(), "metadata.labels[version]: expected string, got number");
}

TEST(YamlTest, SyntaxErrorsNameLineAndColumn) {
  auto r = YamlToJson("metadata:\n  name: [unclosed\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kBadRequest);
  EXPECT_NE(r.status().message().find("line"), std::string::npos);
  auto tab = YamlToJson("a: 1\n\tb: 2\n");
  EXPECT_FALSE(tab.ok());
  auto dup_doc = YamlToJson("a: [1, 2\n");
  EXPECT_FALSE(dup_doc.ok());
}

// yaml-cpp 0.7 looped forever on these (found by json_decode_fuzz); they must come back as
// errors, quickly.
TEST(YamlTest, InputsThatHungYamlCppAreErrors) {
  for (std::string_view bad : {",\xeb\x10", ",x", "  ,x", "- a\n,b", "[1],", "{a: 1},", "'x',",
                               "\"x\",", "---\n,x", "a: 1\n---\n,"}) {
    auto r = YamlToJson(bad);
    EXPECT_FALSE(r.ok()) << bad;
  }
  // Valid YAML (a flow map with key `1"`), on which yaml-cpp 0.7 also never returned.
  auto ok = YamlToJson("{\n 1\",\n \"a\": 1\n}");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)[0], R"({"1\"":null,"a":1})");
}

TEST(YamlTest, AliasesExpandButNotWithoutBound) {
  auto ok = YamlToJson("a: &x {b: 1}\nc: *x\n");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)[0], R"({"a":{"b":1},"c":{"b":1}})");
  std::string laughs = "a: &a [x,x,x,x,x,x,x,x,x,x]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    laughs += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) laughs += std::string(i ? "," : "") + "*" + char(c - 1);
    laughs += "]\n";
  }
  auto bomb = YamlToJson(laughs);
  ASSERT_FALSE(bomb.ok());
  EXPECT_NE(bomb.status().message().find("64 MiB"), std::string::npos);
}

TEST(YamlTest, CommasThatAreContentStillParse) {
  for (std::string_view ok :
       {"a: b,c", "a: [1, 2]", "a: {b: 1, c: 2}", "a: \"x,\" # ,y", "a: |\n  ,x\n  ,y\nb: 1",
        "- 'a,b'\n- \"c\\\",d\"", "a: [\n  1,\n  2\n]"}) {
    auto r = YamlToJson(ok);
    EXPECT_TRUE(r.ok()) << ok << ": " << r.status().ToString();
  }
}

TEST(YamlTest, DeepNestingIsAnError) {
  std::string deep(3000, '[');
  auto r = YamlToJson(deep);
  EXPECT_FALSE(r.ok());
}

}  // namespace
}  // namespace svcplane::api::codec
