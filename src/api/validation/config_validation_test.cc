// ConfigMap, Secret and ServiceAccount: defaulting (Secret type, stringData folded into data)
// and validation with upstream's texts (pkg/apis/core/validation).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/codec/json.h"
#include "api/validation/internal/test_util.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using core::v1::ConfigMap;
using core::v1::Secret;
using core::v1::ServiceAccount;
using ::testing::ElementsAre;
using testing::Errs;
using ::testing::IsEmpty;

constexpr char kKeyMsg[] =
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
    "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
    "'[-._a-zA-Z0-9]+')";

ConfigMap Cm() {
  ConfigMap cm;
  cm.metadata.name = "app-config";
  cm.metadata.namespace_ = "default";
  cm.metadata.resource_version = "1";
  cm.data = {{"key.name", "v"}};
  return cm;
}

Secret Sec(std::string type = "") {
  Secret s;
  s.metadata.name = "app-secret";
  s.metadata.namespace_ = "default";
  s.metadata.resource_version = "1";
  s.type = std::move(type);
  Default(s);
  return s;
}

TEST(ConfigMapValidationTest, ValidKeys) {
  ConfigMap cm = Cm();
  cm.data = {{"KEY_NAME", "a"}, {"key-name", "b"}, {".dotfile", "c"}};
  cm.binary_data = {{"bin", meta::Bytes{std::string("\0\xff", 2)}}};
  EXPECT_THAT(ValidateCreate(cm), IsEmpty());
}

TEST(ConfigMapValidationTest, BadKeys) {
  ConfigMap cm = Cm();
  cm.data = {{"bad key", "v"}, {"..", "v"}, {"..x", "v"}, {".", "v"}};
  cm.binary_data = {{"a/b", meta::Bytes{"x"}}};
  EXPECT_THAT(Errs(ValidateCreate(cm)),
              ElementsAre(R"(data[.]: Invalid value: ".": must not be '.')",
                          R"(data[..]: Invalid value: "..": must not be '..')",
                          R"(data[..x]: Invalid value: "..x": must not start with '..')",
                          std::string(R"(data[bad key]: Invalid value: "bad key": )") + kKeyMsg,
                          std::string(R"(binaryData[a/b]: Invalid value: "a/b": )") + kKeyMsg));
}

TEST(ConfigMapValidationTest, EmptyAndLongKeys) {
  ConfigMap cm = Cm();
  cm.data = {{"", "v"}, {std::string(254, 'k'), "v"}};
  auto errs = Errs(ValidateCreate(cm));
  ASSERT_EQ(errs.size(), 2u);
  EXPECT_EQ(errs[0], std::string(R"(data[]: Invalid value: "": )") + kKeyMsg);
  EXPECT_THAT(errs[1], ::testing::HasSubstr("must be no more than 253 characters"));
}

TEST(ConfigMapValidationTest, DuplicateKeyInDataAndBinaryData) {
  ConfigMap cm = Cm();
  cm.binary_data = {{"key.name", meta::Bytes{"x"}}};
  EXPECT_THAT(Errs(ValidateCreate(cm)),
              ElementsAre(R"(data[key.name]: Invalid value: "key.name": duplicate of key )"
                          R"(present in binaryData)"));
}

TEST(ConfigMapValidationTest, TotalSizeLimit) {
  ConfigMap cm = Cm();
  cm.data = {{"a", std::string(kMaxSecretSize / 2, 'x')}};
  cm.binary_data = {{"b", meta::Bytes{std::string(kMaxSecretSize / 2, 'y')}}};
  EXPECT_THAT(ValidateCreate(cm), IsEmpty());
  cm.binary_data["b"].data.push_back('z');
  EXPECT_THAT(Errs(ValidateCreate(cm)),
              ElementsAre("[]: Too long: must have at most 1048576 bytes"));
}

TEST(ConfigMapValidationTest, Immutable) {
  ConfigMap old = Cm();
  old.immutable = true;
  ConfigMap cm = old;
  cm.metadata.labels = {{"a", "b"}};  // metadata stays writable
  EXPECT_THAT(ValidateUpdate(cm, old), IsEmpty());
  cm.data["key.name"] = "changed";
  cm.binary_data["new"] = meta::Bytes{"x"};
  cm.immutable = false;
  EXPECT_THAT(Errs(ValidateUpdate(cm, old)),
              ElementsAre("immutable: Forbidden: field is immutable when `immutable` is set",
                          "data: Forbidden: field is immutable when `immutable` is set",
                          "binaryData: Forbidden: field is immutable when `immutable` is set"));
  // Unset counts as unsetting it.
  cm = old;
  cm.immutable.reset();
  EXPECT_THAT(Errs(ValidateUpdate(cm, old)),
              ElementsAre("immutable: Forbidden: field is immutable when `immutable` is set"));
  // A mutable one may become immutable, with new data in the same write.
  ConfigMap mutable_old = Cm();
  cm = Cm();
  cm.immutable = true;
  cm.data["other"] = "x";
  EXPECT_THAT(ValidateUpdate(cm, mutable_old), IsEmpty());
}

TEST(SecretDefaultsTest, TypeAndStringData) {
  auto s = codec::DecodeJson<Secret>(
      R"({"kind":"Secret","apiVersion":"v1","metadata":{"name":"s"},)"
      R"("data":{"a":"b2xk","b":"Yg=="},"stringData":{"a":"new","c":"sea"}})");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->data.at("a").data, "old");
  Default(*s);
  EXPECT_EQ(s->type, "Opaque");
  EXPECT_TRUE(s->string_data.empty());
  EXPECT_EQ(s->data.at("a").data, "new");  // stringData wins
  EXPECT_EQ(s->data.at("b").data, "b");
  EXPECT_EQ(s->data.at("c").data, "sea");
  EXPECT_EQ(codec::EncodeJson(*s),
            R"({"kind":"Secret","apiVersion":"v1","metadata":{"name":"s",)"
            R"("creationTimestamp":null},"data":{"a":"bmV3","b":"Yg==","c":"c2Vh"},)"
            R"("type":"Opaque"})");
}

TEST(SecretValidationTest, KeysAndSize) {
  Secret s = Sec();
  s.data = {{"bad key", meta::Bytes{"v"}}, {"ok", meta::Bytes{"v"}}};
  EXPECT_THAT(Errs(ValidateCreate(s)),
              ElementsAre(std::string(R"(data[bad key]: Invalid value: "bad key": )") + kKeyMsg));
  s.data = {{"big", meta::Bytes{std::string(kMaxSecretSize + 1, 'x')}}};
  EXPECT_THAT(Errs(ValidateCreate(s)),
              ElementsAre("data: Too long: must have at most 1048576 bytes"));
}

TEST(SecretValidationTest, TypeRequiredKeys) {
  EXPECT_THAT(ValidateCreate(Sec("Opaque")), IsEmpty());
  EXPECT_THAT(ValidateCreate(Sec("example.com/custom")), IsEmpty());
  EXPECT_THAT(
      Errs(ValidateCreate(Sec("kubernetes.io/service-account-token"))),
      ElementsAre("metadata.annotations[kubernetes.io/service-account.name]: Required value"));
  EXPECT_THAT(Errs(ValidateCreate(Sec("kubernetes.io/dockercfg"))),
              ElementsAre("data[.dockercfg]: Required value"));
  EXPECT_THAT(Errs(ValidateCreate(Sec("kubernetes.io/dockerconfigjson"))),
              ElementsAre("data[.dockerconfigjson]: Required value"));
  EXPECT_THAT(Errs(ValidateCreate(Sec("kubernetes.io/basic-auth"))),
              ElementsAre("data[username]: Required value", "data[password]: Required value"));
  EXPECT_THAT(Errs(ValidateCreate(Sec("kubernetes.io/ssh-auth"))),
              ElementsAre("data[ssh-privatekey]: Required value"));
  EXPECT_THAT(Errs(ValidateCreate(Sec("kubernetes.io/tls"))),
              ElementsAre("data[tls.crt]: Required value", "data[tls.key]: Required value"));

  Secret sa = Sec("kubernetes.io/service-account-token");
  sa.metadata.annotations = {{"kubernetes.io/service-account.name", "default"}};
  EXPECT_THAT(ValidateCreate(sa), IsEmpty());
  Secret basic = Sec("kubernetes.io/basic-auth");
  basic.data = {{"password", meta::Bytes{}}};  // present, even empty, is enough
  EXPECT_THAT(ValidateCreate(basic), IsEmpty());
  Secret tls = Sec("kubernetes.io/tls");
  tls.data = {{"tls.crt", meta::Bytes{"c"}}, {"tls.key", meta::Bytes{"k"}}};
  EXPECT_THAT(ValidateCreate(tls), IsEmpty());
}

TEST(SecretValidationTest, DockerConfigMustBeJsonObjectAndIsRedacted) {
  Secret s = Sec("kubernetes.io/dockerconfigjson");
  s.data = {{".dockerconfigjson", meta::Bytes{R"({"auths":{}})"}}};
  EXPECT_THAT(ValidateCreate(s), IsEmpty());
  s.data = {{".dockerconfigjson", meta::Bytes{"hunter2"}}};
  EXPECT_THAT(Errs(ValidateCreate(s)),
              ElementsAre(R"(data[.dockerconfigjson]: Invalid value: "<secret contents )"
                          R"(redacted>": invalid character 'h' looking for beginning of value)"));
  s.data = {{".dockerconfigjson", meta::Bytes{"[1]"}}};
  EXPECT_THAT(Errs(ValidateCreate(s)),
              ElementsAre(R"(data[.dockerconfigjson]: Invalid value: "<secret contents )"
                          R"(redacted>": json: cannot unmarshal array into Go value of type )"
                          R"(map[string]interface {})"));
}

TEST(SecretValidationTest, UpdateTypeAndImmutable) {
  Secret old = Sec();
  old.data = {{"k", meta::Bytes{"v"}}};
  Secret s = old;
  s.type = "kubernetes.io/ssh-auth";
  s.data["ssh-privatekey"] = meta::Bytes{"key"};
  EXPECT_THAT(Errs(ValidateUpdate(s, old)),
              ElementsAre(R"(type: Invalid value: "kubernetes.io/ssh-auth": field is immutable)"));

  old.immutable = true;
  s = old;
  s.data["k"] = meta::Bytes{"changed"};
  EXPECT_THAT(Errs(ValidateUpdate(s, old)),
              ElementsAre("data: Forbidden: field is immutable when `immutable` is set"));
  s = old;
  s.immutable = false;
  EXPECT_THAT(Errs(ValidateUpdate(s, old)),
              ElementsAre("immutable: Forbidden: field is immutable when `immutable` is set"));
}

TEST(ServiceAccountValidationTest, Name) {
  ServiceAccount sa;
  sa.metadata.name = "default";
  sa.metadata.namespace_ = "default";
  EXPECT_THAT(ValidateCreate(sa), IsEmpty());
  sa.metadata.name = "Bad_Name";
  EXPECT_THAT(Errs(ValidateCreate(sa)),
              ElementsAre(std::string(R"(metadata.name: Invalid value: "Bad_Name": )") +
                          testing::kSubdomainMsg));
}

TEST(ConfigKindsAdmitTest, QualifiedKinds) {
  auto st = ToInvalidStatus("ConfigMap", "c", ValidateCreate([] {
                              ConfigMap cm = Cm();
                              cm.data = {{"bad key", "v"}};
                              return cm;
                            }()));
  EXPECT_EQ(st.message(), std::string(R"(ConfigMap "c" is invalid: data[bad key]: Invalid value: )"
                                      R"("bad key": )") +
                              kKeyMsg);
}

}  // namespace
}  // namespace svcplane::api::validation
