#include "apiserver/patch/merge_patch.h"

#include <string_view>

#include <gtest/gtest.h>
#include <boost/json.hpp>

namespace svcplane::apiserver::patch {
namespace {

namespace json = boost::json;

json::value J(std::string_view text) { return json::parse(text); }

json::value Apply(std::string_view doc, std::string_view patch) {
  json::value v = J(doc);
  Status s = ApplyMergePatch(v, J(patch));
  EXPECT_TRUE(s.ok()) << s.ToString();
  return v;
}

TEST(MergePatchTest, NullDeletesAndObjectsMergeRecursively) {
  EXPECT_EQ(Apply(R"({"metadata":{"labels":{"a":"1","b":"2"},"name":"x"}})",
                  R"({"metadata":{"labels":{"a":null,"c":"3"}}})"),
            J(R"({"metadata":{"labels":{"b":"2","c":"3"},"name":"x"}})"));
}

TEST(MergePatchTest, ListsReplace) {
  EXPECT_EQ(Apply(R"({"spec":{"ports":[{"port":80},{"port":81}]}})",
                  R"({"spec":{"ports":[{"port":443}]}})"),
            J(R"({"spec":{"ports":[{"port":443}]}})"));
}

TEST(MergePatchTest, AddedValuesArePrunedOfNulls) {
  EXPECT_EQ(Apply(R"({})", R"({"a":{"b":null,"c":{"d":null,"e":1}},"l":[{"x":null},null]})"),
            J(R"({"a":{"c":{"e":1}},"l":[{},null]})"));
}

TEST(MergePatchTest, ScalarsAndTypeChangesReplace) {
  EXPECT_EQ(Apply(R"({"a":{"b":1},"c":1})", R"({"a":"s","c":{"d":1}})"),
            J(R"({"a":"s","c":{"d":1}})"));
}

TEST(MergePatchTest, DeletingMissingKeyIsNoop) {
  EXPECT_EQ(Apply(R"({"a":1})", R"({"b":null})"), J(R"({"a":1})"));
}

TEST(MergePatchTest, NonObjectPatchIsBadRequest) {
  json::value doc = J(R"({"a":1})");
  Status s = ApplyMergePatch(doc, J("[1]"));
  EXPECT_EQ(s.code(), Code::kBadRequest);
  EXPECT_EQ(s.message(), "Invalid JSON Patch");
  EXPECT_EQ(ApplyMergePatch(doc, J("null")).code(), Code::kBadRequest);
  EXPECT_EQ(doc, J(R"({"a":1})"));
}

}  // namespace
}  // namespace svcplane::apiserver::patch
