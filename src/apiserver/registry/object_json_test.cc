#include "apiserver/registry/object_json.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace svcplane::apiserver::registry {
namespace {

TEST(ObjectJsonTest, SplicesResourceVersionIntoMetadata) {
  EXPECT_EQ(WithResourceVersion(R"({"kind":"Pod","metadata":{"name":"a"}})", 42),
            R"({"kind":"Pod","metadata":{"resourceVersion":"42","name":"a"}})");
  EXPECT_EQ(WithResourceVersion(R"({"kind":"Pod","metadata":{}})", 7),
            R"({"kind":"Pod","metadata":{"resourceVersion":"7"}})");
}

TEST(ObjectJsonTest, WritesStoredBytesWithTheRevisionWithoutCopyingThem) {
  auto stored = std::make_shared<const std::string>(R"({"kind":"Pod","metadata":{"name":"a"}})");
  ObjectJson json(stored, 42);
  EXPECT_EQ(stored.use_count(), 2);  // shared with the store, not copied
  EXPECT_EQ(json.str(), R"({"kind":"Pod","metadata":{"resourceVersion":"42","name":"a"}})");
  std::string out = "[";
  json.AppendTo(&out);
  EXPECT_EQ(out, R"([{"kind":"Pod","metadata":{"resourceVersion":"42","name":"a"}})");
  EXPECT_EQ(json.size(), json.str().size());
  auto empty_meta = std::make_shared<const std::string>(R"({"kind":"Pod","metadata":{}})");
  EXPECT_EQ(ObjectJson(empty_meta, 1234567).size(), ObjectJson(empty_meta, 1234567).str().size());
  auto foreign = std::make_shared<const std::string>(R"({"kind":"Pod"})");
  EXPECT_EQ(ObjectJson(foreign, 5).size(), foreign->size());
}

// Our encoder's layout takes a shortcut; every other layout, and layouts that only start like
// it, must splice at the same place a plain search finds.
TEST(ObjectJsonTest, SplicesEveryLayoutInsideTheObjectsOwnMetadata) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"},"spec":{}})",
       R"({"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"9","name":"a"},"spec":{}})"},
      {R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{}})",
       R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"resourceVersion":"9"}})"},
      {R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}})",
       R"({"apiVersion":"v1","kind":"Pod","metadata":{"resourceVersion":"9","name":"a"}})"},
      {R"({"kind":"Pod","apiVersion":"v1","spec":{},"metadata":{"name":"a"}})",
       R"({"kind":"Pod","apiVersion":"v1","spec":{},"metadata":{"resourceVersion":"9","name":"a"}})"},
      {R"({"kind":"Pod","apiVersion":"v1")", R"({"kind":"Pod","apiVersion":"v1")"},
      {R"({"kind":"Pod)", R"({"kind":"Pod)"},
      {R"({"kind":")", R"({"kind":")"},
      {R"({"kind":"Pod","apiVersion":"v1","metadata":)",
       R"({"kind":"Pod","apiVersion":"v1","metadata":)"},
  };
  for (const auto& [stored, want] : cases) {
    EXPECT_EQ(WithResourceVersion(stored, 9), want) << stored;
    ObjectJson json(std::make_shared<const std::string>(stored), 9);
    EXPECT_EQ(json.str(), want) << stored;
    EXPECT_EQ(json.size(), want.size()) << stored;
  }
}

// A list item finds its splice only when written; it must write (and size) every layout
// exactly as an eager one, also when copied before or after that.
TEST(ObjectJsonTest, SpliceFoundWhenWrittenMatchesTheEagerOne) {
  const std::vector<std::string> layouts = {
      R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"},"spec":{}})",
      R"({"kind":"Pod","apiVersion":"v1","metadata":{}})",
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}})",
      R"({"kind":"Pod","apiVersion":"v1"})",
  };
  for (const auto& stored : layouts) {
    auto bytes = std::make_shared<const std::string>(stored);
    const ObjectJson eager(bytes, 123);
    const ObjectJson lazy(bytes, 123, ObjectJson::FindSpliceWhenWritten{});
    const ObjectJson copied_before = lazy;
    std::string out;
    lazy.AppendTo(&out);
    EXPECT_EQ(out, eager.str()) << stored;
    EXPECT_EQ(lazy.size(), eager.size()) << stored;
    const ObjectJson copied_after = lazy;
    EXPECT_EQ(copied_before.str(), eager.str()) << stored;
    EXPECT_EQ(copied_after.str(), eager.str()) << stored;
    // A move hands the bytes over (no new reference) and keeps the splice.
    const long refs = bytes.use_count();
    ObjectJson moving(bytes, 123, ObjectJson::FindSpliceWhenWritten{});
    ObjectJson moved(std::move(moving));
    EXPECT_EQ(bytes.use_count(), refs + 1) << stored;
    ObjectJson assigned;
    assigned = std::move(moved);
    EXPECT_EQ(bytes.use_count(), refs + 1) << stored;
    EXPECT_EQ(assigned.str(), eager.str()) << stored;
    EXPECT_EQ(ObjectJson(bytes, 0, ObjectJson::FindSpliceWhenWritten{}).str(), stored);
  }
}

TEST(ObjectJsonTest, RevisionZeroWritesBytesAsTheyAre) {
  auto bytes = std::make_shared<const std::string>(R"({"metadata":{"resourceVersion":"9"}})");
  EXPECT_EQ(ObjectJson(bytes, 0).str(), *bytes);
  EXPECT_EQ(ObjectJson(bytes, 0).size(), bytes->size());
  EXPECT_EQ(ObjectJson().str(), "");
}

TEST(ObjectJsonTest, Keys) {
  EXPECT_EQ(ObjectKey("/registry/pods", "default", "a"), "/registry/pods/default/a");
  EXPECT_EQ(ObjectKey("/registry/minions", "", "n1"), "/registry/minions/n1");
  EXPECT_EQ(CollectionPrefix("/registry/pods", ""), "/registry/pods/");
}

TEST(ObjectJsonTest, ContinueTokensRoundTripAndRejectGarbage) {
  std::string t = EncodeContinueToken({1234, "default/web-2"});
  auto back = DecodeContinueToken(t);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->revision, 1234);
  EXPECT_EQ(back->start, "default/web-2");
  EXPECT_EQ(DecodeContinueToken("!!!").status().code(), Code::kBadRequest);
  EXPECT_EQ(DecodeContinueToken("e30").status().code(), Code::kBadRequest);  // "{}"
}

TEST(ObjectJsonTest, ResourceVersions) {
  EXPECT_EQ(*ParseResourceVersion("17"), 17);
  EXPECT_FALSE(ParseResourceVersion("abc").ok());
  EXPECT_FALSE(ParseResourceVersion("-1").ok());
  EXPECT_FALSE(ParseResourceVersion("").ok());
}

}  // namespace
}  // namespace svcplane::apiserver::registry
