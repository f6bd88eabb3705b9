// ConfigMap, Secret and ServiceAccount through the JSON and protobuf codecs: []byte values as
// base64 in JSON (Go's StdEncoding, strict about padding) and raw bytes in protobuf, upstream's
// field numbers and order, and lossless round trips.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/codec/json.h"
#include "api/codec/protobuf.h"
#include "api/types.h"

namespace svcplane::api::codec {
namespace {

using core::v1::ConfigMap;
using core::v1::Secret;
using core::v1::ServiceAccount;
using ::testing::HasSubstr;

template <typename T>
T ViaProtobuf(const T& obj, std::string_view kind) {
  auto back = DecodeProtobuf<T>(EncodeProtobuf(obj, "v1", kind));
  EXPECT_TRUE(back.ok()) << back.status().message();
  return back.ok() ? *back : T{};
}

template <typename T>
T ViaJson(const T& obj) {
  auto back = DecodeJson<T>(EncodeJson(obj));
  EXPECT_TRUE(back.ok()) << back.status().message();
  return back.ok() ? *back : T{};
}

TEST(ConfigCodecTest, ConfigMapJsonShapeAndRoundTrips) {
  constexpr std::string_view kJson =
      R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c","namespace":"default",)"
      R"("creationTimestamp":null},"immutable":true,"data":{"a":"1","b":"two"},)"
      R"("binaryData":{"bin":"AP8="}})";
  auto cm = DecodeJson<ConfigMap>(kJson);
  ASSERT_TRUE(cm.ok()) << cm.status().message();
  EXPECT_EQ(cm->binary_data.at("bin").data, std::string("\0\xff", 2));
  EXPECT_EQ(cm->immutable, true);
  EXPECT_EQ(EncodeJson(*cm), kJson);
  EXPECT_EQ(ViaJson(*cm), *cm);
  EXPECT_EQ(ViaProtobuf(*cm, "ConfigMap"), *cm);
}

TEST(ConfigCodecTest, ConfigMapProtobufFieldNumbers) {
  ConfigMap cm;
  cm.metadata.name = "c";
  cm.data = {{"k", "v"}};
  cm.binary_data = {{"b", meta::Bytes{std::string("\0\xff", 2)}}};
  cm.immutable = true;
  // The envelope's views point into the encoded bytes: keep them alive.
  const std::string encoded = EncodeProtobuf(cm, "v1", "ConfigMap");
  auto env = DecodeProtobufEnvelope(encoded);
  ASSERT_TRUE(env.ok()) << env.status().message();
  EXPECT_EQ(env->kind, "ConfigMap");
  std::string_view raw = env->raw;
  // data = 2 {key = 1, value = 2}, binaryData = 3, immutable = 4, in field-number order (Go's).
  const std::string data("\x12\x06\x0a\x01k\x12\x01v", 8);
  const std::string binary(
      "\x1a\x07\x0a\x01"
      "b\x12\x02\x00\xff",
      9);
  const std::string immutable("\x20\x01", 2);
  size_t d = raw.find(data), b = raw.find(binary), i = raw.rfind(immutable);
  ASSERT_NE(d, std::string_view::npos);
  ASSERT_NE(b, std::string_view::npos);
  ASSERT_NE(i, std::string_view::npos);
  EXPECT_LT(d, b);
  EXPECT_LT(b, i);
  EXPECT_EQ(i + immutable.size(), raw.size());
}

TEST(ConfigCodecTest, SecretBytesAreBase64InJsonAndRawInProtobuf) {
  Secret s;
  s.metadata.name = "s";
  s.type = "Opaque";
  s.data = {{"password", meta::Bytes{"s3cr3t"}}, {"empty", meta::Bytes{}}};
  EXPECT_EQ(EncodeJson(s), R"({"metadata":{"name":"s","creationTimestamp":null},)"
                           R"("data":{"empty":"","password":"czNjcjN0"},"type":"Opaque"})");
  EXPECT_EQ(ViaJson(s), s);
  Secret back = ViaProtobuf(s, "Secret");
  EXPECT_EQ((back.kind + " " + back.api_version), "Secret v1");  // from the envelope
  back.kind.clear();
  back.api_version.clear();
  EXPECT_EQ(back, s);
  std::string wire = EncodeProtobuf(s, "v1", "Secret");
  EXPECT_THAT(wire, HasSubstr("s3cr3t"));
  EXPECT_THAT(wire, HasSubstr(std::string("\x1a\x06Opaque", 8)));  // type = 3
}

TEST(ConfigCodecTest, SecretStringDataDecodes) {
  auto s = DecodeJson<Secret>(R"({"stringData":{"user":"admin"},"type":"Opaque"})");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->string_data.at("user"), "admin");
}

TEST(ConfigCodecTest, InvalidBase64IsAnErrorWithGoText) {
  for (auto [json, at] : std::vector<std::pair<std::string_view, std::string_view>>{
           {R"({"data":{"k":"not base64!"}})", "3"},
           {R"({"data":{"k":"YWJj=="}})", "4"},
           {R"({"data":{"k":"YQ"}})", "0"},
           {R"({"data":{"k":"YQ="}})", "3"}}) {
    auto s = DecodeJson<Secret>(json);
    ASSERT_FALSE(s.ok()) << json;
    EXPECT_THAT(s.status().message(),
                HasSubstr("illegal base64 data at input byte " + std::string(at)))
        << json;
  }
  auto ok = DecodeJson<Secret>("{\"data\":{\"k\":\"YW\\nJj\"}}");  // line breaks are skipped
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->data.at("k").data, "abc");
}

TEST(ConfigCodecTest, ServiceAccountRoundTrips) {
  constexpr std::string_view kJson =
      R"({"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"builder",)"
      R"("creationTimestamp":null},"secrets":[{"name":"tok"}],"imagePullSecrets":)"
      R"([{"name":"reg"}],"automountServiceAccountToken":false})";
  auto sa = DecodeJson<ServiceAccount>(kJson);
  ASSERT_TRUE(sa.ok()) << sa.status().message();
  EXPECT_EQ(sa->automount_service_account_token, false);
  EXPECT_EQ(EncodeJson(*sa), kJson);
  EXPECT_EQ(ViaProtobuf(*sa, "ServiceAccount"), *sa);
}

}  // namespace
}  // namespace svcplane::api::codec
