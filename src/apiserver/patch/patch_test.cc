#include "apiserver/patch/patch.h"

#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <boost/json.hpp>

namespace svcplane::apiserver::patch {
namespace {

namespace json = boost::json;

json::value J(std::string_view text) { return json::parse(text); }

constexpr std::string_view kUnknownFormat =
    "the body of the request was in an unknown format - accepted media types include: "
    "application/json-patch+json, application/merge-patch+json, "
    "application/strategic-merge-patch+json, application/apply-patch+yaml";

TEST(ParsePatchTypeTest, KnownTypesIgnoringParametersAndCase) {
  EXPECT_EQ(*ParsePatchType("application/json-patch+json"), PatchType::kJsonPatch);
  EXPECT_EQ(*ParsePatchType("application/merge-patch+json; charset=utf-8"), PatchType::kMergePatch);
  EXPECT_EQ(*ParsePatchType("Application/Strategic-Merge-Patch+JSON"), PatchType::kStrategicMerge);
  EXPECT_EQ(*ParsePatchType(" application/apply-patch+yaml ;x=y"), PatchType::kApply);
}

TEST(ParsePatchTypeTest, UnknownTypesAre415WithUpstreamMessage) {
  for (std::string_view ct : {"text/plain", "application/json", "", "application/yaml"}) {
    Result<PatchType> t = ParsePatchType(ct);
    ASSERT_FALSE(t.ok()) << ct;
    EXPECT_EQ(t.status().code(), Code::kUnsupportedMediaType);
    EXPECT_EQ(t.status().message(), kUnknownFormat);
  }
}

constexpr std::string_view kService = R"({"apiVersion":"v1","kind":"Service",
  "metadata":{"name":"web","namespace":"default","labels":{"app":"web"}},
  "spec":{"ports":[{"port":80,"targetPort":8080}],"selector":{"app":"web"}}})";

TEST(ApplyPatchTest, StrategicScenario16) {
  const json::value current = J(kService);
  Result<json::value> got =
      ApplyPatch(PatchType::kStrategicMerge, "Service", current,
                 R"({"spec":{"$setElementOrder/ports":[{"port":80},{"port":443}],
                  "ports":[{"port":443,"targetPort":8443}]}})");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->at_pointer("/spec/ports"),
            J(R"([{"port":80,"targetPort":8080},{"port":443,"targetPort":8443}])"));
  EXPECT_EQ(current, J(kService));
}

TEST(ApplyPatchTest, MergePatchOfLabels) {
  Result<json::value> got = ApplyPatch(PatchType::kMergePatch, "Service", J(kService),
                                       R"({"metadata":{"labels":{"app":null,"tier":"fe"}}})");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->at_pointer("/metadata/labels"), J(R"({"tier":"fe"})"));
}

TEST(ApplyPatchTest, JsonPatchFailingTestIs422AndCurrentUntouched) {
  const json::value current = J(kService);
  Result<json::value> got = ApplyPatch(PatchType::kJsonPatch, "Service", current,
                                       R"([{"op":"replace","path":"/spec/selector/app","value":"x"},
                     {"op":"test","path":"/metadata/labels/app","value":"other"}])");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Code::kInvalid);
  EXPECT_EQ(current, J(kService));
  got = ApplyPatch(PatchType::kJsonPatch, "Service", current,
                   R"([{"op":"test","path":"/metadata/labels/app","value":"web"},
                       {"op":"replace","path":"/spec/selector/app","value":"x"}])");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->at_pointer("/spec/selector/app"), "x");
}

TEST(ApplyPatchTest, InvalidJsonBodyIsBadRequest) {
  for (PatchType t : {PatchType::kJsonPatch, PatchType::kMergePatch, PatchType::kStrategicMerge}) {
    Result<json::value> got = ApplyPatch(t, "Service", J(kService), R"({"spec":)");
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), Code::kBadRequest);
  }
  Result<json::value> got = ApplyPatch(PatchType::kStrategicMerge, "Service", J(kService), "[]");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Code::kBadRequest);
}

TEST(ApplyPatchTest, JsonPatchReplacingTheDocumentWithANonObjectIsBadRequest) {
  Result<json::value> got =
      ApplyPatch(PatchType::kJsonPatch, "Service", J(kService),
                 R"([{"op":"remove","path":"/spec"},{"op":"remove","path":"/metadata"}])");
  ASSERT_TRUE(got.ok());  // still an object
  EXPECT_EQ(*got, J(R"({"apiVersion":"v1","kind":"Service"})"));
}

TEST(ApplyPatchTest, ApplyPatchIsNotMergedHere) {
  // Server-side apply goes through the field manager (registry/apply.h); this is a bug guard.
  Result<json::value> got = ApplyPatch(PatchType::kApply, "Service", J(kService), "{}");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Code::kInternal);
}

TEST(ApplyPatchTest, StrategicPatchOnKindWithoutSchemaIs415) {
  Result<json::value> got = ApplyPatch(PatchType::kStrategicMerge, "Widget", J("{}"), "{}");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Code::kUnsupportedMediaType);
  EXPECT_EQ(got.status().message().find("strategic-merge-patch"), std::string::npos);
  // Other patch types work for any kind.
  EXPECT_TRUE(ApplyPatch(PatchType::kMergePatch, "Widget", J("{}"), R"({"a":1})").ok());
}

TEST(ApplyPatchTest, NullStrategicPatchIsNoop) {
  Result<json::value> got = ApplyPatch(PatchType::kStrategicMerge, "Service", J(kService), "null");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, J(kService));
}

}  // namespace
}  // namespace svcplane::apiserver::patch
