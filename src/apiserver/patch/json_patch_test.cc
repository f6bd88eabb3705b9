#include "apiserver/patch/json_patch.h"

#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <boost/json.hpp>

namespace svcplane::apiserver::patch {
namespace {

namespace json = boost::json;

json::value J(std::string_view text) { return json::parse(text); }

json::value Apply(std::string_view doc, std::string_view patch) {
  json::value v = J(doc);
  Status s = ApplyJsonPatch(v, J(patch));
  EXPECT_TRUE(s.ok()) << s.ToString();
  return v;
}

Status Fail(std::string_view doc, std::string_view patch) {
  json::value v = J(doc);
  const json::value before = v;
  Status s = ApplyJsonPatch(v, J(patch));
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(v, before) << "document must be untouched on error";
  return s;
}

TEST(JsonPatchTest, AddToObjectAndArray) {
  EXPECT_EQ(Apply(R"({"a":{"b":1}})", R"([{"op":"add","path":"/a/c","value":2}])"),
            J(R"({"a":{"b":1,"c":2}})"));
  EXPECT_EQ(Apply(R"({"l":[1,3]})", R"([{"op":"add","path":"/l/1","value":2}])"),
            J(R"({"l":[1,2,3]})"));
  EXPECT_EQ(Apply(R"({"l":[1]})", R"([{"op":"add","path":"/l/-","value":2}])"),
            J(R"({"l":[1,2]})"));
  EXPECT_EQ(Apply(R"({"l":[1]})", R"([{"op":"add","path":"/l/1","value":2}])"),
            J(R"({"l":[1,2]})"));
  // add replaces an existing member.
  EXPECT_EQ(Apply(R"({"a":1})", R"([{"op":"add","path":"/a","value":{"x":[]}}])"),
            J(R"({"a":{"x":[]}})"));
}

TEST(JsonPatchTest, NegativeIndexesCountFromTheEndAsEvanphxV4) {
  EXPECT_EQ(Apply(R"({"l":[1,2,3]})", R"([{"op":"remove","path":"/l/-1"}])"), J(R"({"l":[1,2]})"));
  EXPECT_EQ(Apply(R"({"l":[1,2]})", R"([{"op":"add","path":"/l/-1","value":9}])"),
            J(R"({"l":[1,2,9]})"));
}

TEST(JsonPatchTest, PointerEscapes) {
  json::value got = Apply(R"({"metadata":{"labels":{"app.kubernetes.io/name":"a","t~x":"b"}}})",
                          R"([{"op":"replace","path":"/metadata/labels/app.kubernetes.io~1name",
                               "value":"z"},
                              {"op":"remove","path":"/metadata/labels/t~0x"}])");
  EXPECT_EQ(got, J(R"({"metadata":{"labels":{"app.kubernetes.io/name":"z"}}})"));
}

TEST(JsonPatchTest, RemoveReplaceMoveCopy) {
  EXPECT_EQ(Apply(R"({"a":1,"b":2})", R"([{"op":"remove","path":"/a"}])"), J(R"({"b":2})"));
  EXPECT_EQ(Apply(R"({"l":[1,2,3]})", R"([{"op":"remove","path":"/l/0"}])"), J(R"({"l":[2,3]})"));
  EXPECT_EQ(Apply(R"({"l":[1,2]})", R"([{"op":"replace","path":"/l/1","value":"x"}])"),
            J(R"({"l":[1,"x"]})"));
  EXPECT_EQ(Apply(R"({"a":{"x":1},"b":{}})", R"([{"op":"move","from":"/a/x","path":"/b/y"}])"),
            J(R"({"a":{},"b":{"y":1}})"));
  EXPECT_EQ(Apply(R"({"l":[1,2,3]})", R"([{"op":"move","from":"/l/0","path":"/l/-"}])"),
            J(R"({"l":[2,3,1]})"));
  EXPECT_EQ(Apply(R"({"a":{"x":[1]}})", R"([{"op":"copy","from":"/a","path":"/b"}])"),
            J(R"({"a":{"x":[1]},"b":{"x":[1]}})"));
}

TEST(JsonPatchTest, ReplaceMissingObjectKeyAddsItAsEvanphxV4) {
  EXPECT_EQ(Apply(R"({"a":1})", R"([{"op":"replace","path":"/b","value":2}])"),
            J(R"({"a":1,"b":2})"));
}

TEST(JsonPatchTest, TestOperation) {
  EXPECT_EQ(Apply(R"({"a":{"b":[1,{"c":"d"}]},"n":1})",
                  R"([{"op":"test","path":"/a/b","value":[1,{"c":"d"}]},
                      {"op":"test","path":"/n","value":1.0},
                      {"op":"test","path":"/missing","value":null}])"),
            J(R"({"a":{"b":[1,{"c":"d"}]},"n":1})"));
}

TEST(JsonPatchTest, FailingTestIsInvalidAndNamesOpAndPath) {
  Status s = Fail(R"({"metadata":{"labels":{"app":"a"}}})",
                  R"([{"op":"add","path":"/metadata/labels/x","value":"1"},
                      {"op":"test","path":"/metadata/labels/app","value":"b"}])");
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_EQ(s.message(),
            "json patch operation 1 (test) on path \"/metadata/labels/app\" failed: testing value "
            "/metadata/labels/app failed: test failed");
}

TEST(JsonPatchTest, FailingOperationsAreInvalid) {
  EXPECT_EQ(Fail(R"({"a":1})", R"([{"op":"remove","path":"/b"}])").code(), Code::kInvalid);
  EXPECT_EQ(Fail(R"({"l":[1]})", R"([{"op":"replace","path":"/l/5","value":1}])").code(),
            Code::kInvalid);
  EXPECT_EQ(Fail(R"({"l":[1]})", R"([{"op":"add","path":"/l/3","value":1}])").code(),
            Code::kInvalid);
  EXPECT_EQ(Fail(R"({"l":[1]})", R"([{"op":"add","path":"/l/x","value":1}])").code(),
            Code::kInvalid);
  EXPECT_EQ(Fail(R"({"a":1})", R"([{"op":"add","path":"/x/y","value":1}])").code(), Code::kInvalid);
  EXPECT_EQ(Fail(R"({"a":1})", R"([{"op":"move","from":"/nope","path":"/b"}])").code(),
            Code::kInvalid);
  EXPECT_EQ(Fail(R"({"a":1})", R"([{"op":"copy","path":"/b"}])").code(), Code::kInvalid);
  Status s = Fail(R"({"a":1})", R"([{"op":"frobnicate","path":"/a"}])");
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_NE(s.message().find("Unexpected kind: frobnicate"), std::string::npos);
  s = Fail(R"({"a":1})", R"([{"op":"add","value":1}])");
  EXPECT_NE(s.message().find("operation missing path field"), std::string::npos);
  s = Fail(R"({"a":1})", R"([{"op":"remove","path":"a"}])");
  EXPECT_EQ(s.code(), Code::kInvalid);
}

TEST(JsonPatchTest, MalformedPatchIsBadRequest) {
  EXPECT_EQ(Fail(R"({"a":1})", R"({"op":"add"})").code(), Code::kBadRequest);
  EXPECT_EQ(Fail(R"({"a":1})", R"([1])").code(), Code::kBadRequest);
}

TEST(JsonPatchTest, TooManyOperations) {
  json::array ops;
  for (int i = 0; i < 10001; ++i) {
    ops.push_back(json::object{{"op", "test"}, {"path", "/a"}, {"value", 1}});
  }
  json::value doc = J(R"({"a":1})");
  Status s = ApplyJsonPatch(doc, ops);
  EXPECT_EQ(s.code(), Code::kRequestEntityTooLarge);
  EXPECT_EQ(s.message(),
            "Request entity too large: The allowed maximum operations in a JSON patch is 10000, "
            "got 10001");
  ops.pop_back();
  EXPECT_TRUE(ApplyJsonPatch(doc, ops).ok());
}

}  // namespace
}  // namespace svcplane::apiserver::patch
