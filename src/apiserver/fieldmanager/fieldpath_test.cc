#include "apiserver/fieldmanager/fieldpath.h"

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace svcplane::apiserver::fieldmanager {
namespace {

namespace json = boost::json;

PathElement F(std::string name) { return PathElement::Field(std::move(name)); }
PathElement K(std::string_view json_object) {
  std::vector<std::pair<std::string, json::value>> fields;
  json::value parsed = json::parse(json_object);
  for (auto& kv : parsed.get_object()) {
    fields.emplace_back(std::string(kv.key()), kv.value());
  }
  return PathElement::Key(std::move(fields));
}
PathElement V(std::string_view json_value) { return PathElement::Value(json::parse(json_value)); }
PathElement I(int64_t i) { return PathElement::Index(i); }

Set Parse(std::string_view text) {
  Result<Set> s = Set::FromFieldsV1(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status().ToString();
  return s.ok() ? *s : Set();
}

// Round trip: the text is canonical, so it comes back byte for byte.
void ExpectCanonical(std::string_view text) { EXPECT_EQ(Parse(text).ToFieldsV1(), text); }

TEST(FieldsV1, KubectlApplyOfAServiceIsByteExact) {
  Set s;
  s.Insert({F("metadata"), F("labels"), F("app")});
  s.Insert({F("spec"), F("selector")});
  PathElement port = K(R"({"protocol":"TCP","port":80})");  // unsorted on purpose
  s.Insert({F("spec"), F("ports"), port});
  for (const char* f : {"targetPort", "port", "name"})
    s.Insert({F("spec"), F("ports"), port, F(f)});
  const std::string want =
      R"({"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:targetPort":{}}},"f:selector":{}}})";
  EXPECT_EQ(s.ToFieldsV1(), want);
  EXPECT_EQ(want.size(), 169u);  // spec §2.2
  EXPECT_EQ(Parse(want), s);
}

TEST(FieldsV1, PodContainersNestAssociativeLists) {
  ExpectCanonical(
      R"({"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:env":{"k:{\"name\":\"MODE\"}":{".":{},"f:name":{},"f:value":{}}},"f:image":{},"f:name":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}}}})");
}

TEST(FieldsV1, EmptySetIsEmptyObject) {
  EXPECT_EQ(Set().ToFieldsV1(), "{}");
  EXPECT_TRUE(Parse("{}").Empty());
  EXPECT_TRUE(Parse("null").Empty());
}

// Upstream's TestSerializeV1GoldenData: parse, write back, same bytes.
TEST(FieldsV1, UpstreamGoldenData) {
  ExpectCanonical(
      R"({"f:aaa":{},"f:aab":{},"f:aac":{},"f:aad":{},"f:aae":{},"f:aaf":{},"k:{\"name\":\"first\"}":{},"k:{\"name\":\"second\"}":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{},"k:{\"port\":443,\"protocol\":\"udp\"}":{},"v:1":{},"v:2":{},"v:3":{},"v:\"aa\"":{},"v:\"ab\"":{},"v:true":{},"i:1":{},"i:2":{},"i:3":{},"i:4":{}})");
  ExpectCanonical(
      R"({"f:aaa":{"k:{\"name\":\"second\"}":{"v:3":{"f:aab":{}}},"v:3":{},"v:true":{}},"f:aab":{"f:aaa":{},"f:aaf":{"k:{\"port\":443,\"protocol\":\"udp\"}":{"k:{\"port\":443,\"protocol\":\"tcp\"}":{}}},"k:{\"name\":\"first\"}":{}},"f:aac":{"f:aaa":{"v:1":{}},"f:aac":{},"v:3":{"k:{\"name\":\"second\"}":{}}},"f:aad":{"f:aac":{"v:1":{}},"f:aaf":{"k:{\"name\":\"first\"}":{"k:{\"name\":\"first\"}":{}}},"i:1":{"i:1":{},"i:3":{"v:true":{}}}},"f:aae":{"f:aae":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{"k:{\"port\":443,\"protocol\":\"udp\"}":{}},"i:4":{"f:aaf":{}}},"f:aaf":{"i:1":{"f:aac":{}},"i:2":{},"i:3":{}},"k:{\"name\":\"first\"}":{"f:aad":{"f:aaf":{}}},"k:{\"port\":443,\"protocol\":\"tcp\"}":{"f:aaa":{"f:aad":{}}},"k:{\"port\":443,\"protocol\":\"udp\"}":{"f:aac":{},"k:{\"name\":\"first\"}":{"i:3":{}},"k:{\"port\":443,\"protocol\":\"udp\"}":{"i:4":{}}},"v:1":{"f:aac":{"i:4":{}},"f:aaf":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{}},"v:2":{"f:aad":{"f:aaf":{}},"i:1":{}},"v:3":{"f:aaa":{},"k:{\"name\":\"first\"}":{},"i:2":{}},"v:\"aa\"":{"f:aab":{"f:aaf":{}},"f:aae":{},"k:{\"name\":\"first\"}":{"f:aad":{}},"i:2":{}},"v:\"ab\"":{"f:aaf":{"i:4":{}},"k:{\"port\":443,\"protocol\":\"tcp\"}":{},"k:{\"port\":443,\"protocol\":\"udp\"}":{},"v:1":{"k:{\"port\":443,\"protocol\":\"udp\"}":{}},"i:1":{"f:aae":{"i:4":{}}}},"v:true":{"k:{\"name\":\"second\"}":{"f:aaa":{}},"i:2":{"k:{\"port\":443,\"protocol\":\"tcp\"}":{}}},"i:1":{"i:3":{"f:aaf":{}}},"i:2":{"f:aae":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{"v:1":{}}},"i:3":{"f:aab":{"v:true":{"v:\"aa\"":{}}},"f:aaf":{},"i:1":{}},"i:4":{"v:\"aa\"":{"f:aab":{"k:{\"name\":\"second\"}":{}}}}})");
}

// Upstream's TestDropUnknown.
TEST(FieldsV1, UnknownElementKindsAreDropped) {
  EXPECT_EQ(Parse(R"({"f:aaa":{},"r:aab":{}})").ToFieldsV1(), R"({"f:aaa":{}})");
  // A node whose only entries are unknown is a member, as upstream reads it.
  EXPECT_EQ(Parse(R"({"f:a":{"z:b":{}}})").ToFieldsV1(), R"({"f:a":{}})");
}

TEST(FieldsV1, ParseCanonicalisesOrderAndDuplicates) {
  EXPECT_EQ(
      Parse(
          R"({"i:0":{},"v:\"x\"":{},"k:{\"b\":1,\"a\":2}":{"f:z":{},".":{}},"f:b":{},"f:a":null})")
          .ToFieldsV1(),
      R"({"f:a":{},"f:b":{},"k:{\"a\":2,\"b\":1}":{".":{},"f:z":{}},"v:\"x\"":{},"i:0":{}})");
  // A member whose "." is written last still gets it first.
  EXPECT_EQ(Parse(R"({"f:a":{"f:b":{},".":{}}})").ToFieldsV1(), R"({"f:a":{".":{},"f:b":{}}})");
}

TEST(FieldsV1, MalformedInputIsAnError) {
  for (const char* bad : {
           R"({"k:notjson":{}})",    // k: payload is not JSON
           R"({"k:[1,2]":{}})",      // k: payload is not an object
           R"({"v:{":{}})",          // v: payload is not JSON
           R"({"i:x":{}})",          // i: is not a number
           R"({"x":{}})",            // shorter than two bytes
           R"({"fa":{}})",           // no colon
           R"({"f:a":1})",           // value is not an object
           R"({"f:a":{"f:b":[]}})",  // nested value is not an object
           R"([])",                  // not an object at all
           R"({"f:a":)",             // not JSON
       }) {
    Result<Set> s = Set::FromFieldsV1(bad);
    EXPECT_FALSE(s.ok()) << bad;
    if (!s.ok()) {
      EXPECT_EQ(s.status().code(), Code::kBadRequest) << bad;
    }
  }
}

TEST(FieldsV1, EscapingFollowsGoEncodingJson) {
  Set s;
  s.Insert({F("metadata"), F("annotations"), F("a<b>&\"c\"\\")});
  s.Insert({F("metadata"), F("finalizers"), V(R"("x/<y>")")});
  s.Insert({F("spec"), F("ports"), K(R"({"name":"a&b"})")});
  EXPECT_EQ(
      s.ToFieldsV1(),
      R"({"f:metadata":{"f:annotations":{"f:a\u003cb\u003e\u0026\"c\"\\":{}},"f:finalizers":{"v:\"x/\\u003cy\\u003e\"":{}}},"f:spec":{"f:ports":{"k:{\"name\":\"a\\u0026b\"}":{}}}})");
  EXPECT_EQ(Parse(s.ToFieldsV1()), s);
}

TEST(FieldsV1, NumbersAndOtherValues) {
  Set s;
  s.Insert({F("a"), V("1.5")});
  s.Insert({F("a"), V("80.0")});  // written as Go writes float64(80)
  s.Insert({F("a"), V("1e21")});
  s.Insert({F("a"), V("0.0000001")});
  s.Insert({F("a"), V("null")});
  s.Insert({F("a"), V("false")});
  s.Insert({F("a"), V(R"({"b":1,"a":[true,null]})")});
  EXPECT_EQ(
      s.ToFieldsV1(),
      R"({"f:a":{"v:1e-7":{},"v:1.5":{},"v:80":{},"v:1e+21":{},"v:false":{},"v:{\"a\":[true,null],\"b\":1}":{},"v:null":{}}})");
}

TEST(PathElement, CanonicalOrderOfKinds) {
  std::vector<PathElement> sorted = {F("a"),
                                     F("b"),
                                     K(R"({"a":1})"),
                                     K(R"({"a":1,"b":1})"),
                                     K(R"({"b":0})"),
                                     V("1"),
                                     V("2.5"),
                                     V("3"),
                                     V(R"("a")"),
                                     V("false"),
                                     V("true"),
                                     V("[1]"),
                                     V("{}"),
                                     V("null"),
                                     I(0),
                                     I(2)};
  for (size_t i = 0; i < sorted.size(); ++i) {
    for (size_t j = 0; j < sorted.size(); ++j) {
      int want = i < j ? -1 : (i > j ? 1 : 0);
      EXPECT_EQ(Compare(sorted[i], sorted[j]), want)
          << sorted[i].FieldsV1Key() << " vs " << sorted[j].FieldsV1Key();
    }
  }
}

TEST(PathElement, NumbersCompareByValue) {
  EXPECT_EQ(V("80"), V("80.0"));
  EXPECT_EQ(K(R"({"port":80})"), K(R"({"port":80.0})"));
  EXPECT_LT(V("-1"), V("18446744073709551615"));
  EXPECT_EQ(Compare(V("18446744073709551615"), V("-5")), 1);
}

// Upstream's TestPathElementString plus the spec's conflict forms.
TEST(PathElement, StringForms) {
  EXPECT_EQ(F("spec").String(), ".spec");
  EXPECT_EQ(K(R"({"name":"foo"})").String(), R"([name="foo"])");
  EXPECT_EQ(K(R"({"protocol":"TCP","port":80})").String(), R"([port=80,protocol="TCP"])");
  EXPECT_EQ(V(R"("v")").String(), R"([="v"])");
  EXPECT_EQ(V("1").String(), "[=1]");
  EXPECT_EQ(V("1.5").String(), "[=1.5]");
  EXPECT_EQ(V("1000000.0").String(), "[=1e+06]");  // Go's %v of a float64
  EXPECT_EQ(V("true").String(), "[=true]");
  EXPECT_EQ(V("null").String(), "[=null]");
  EXPECT_EQ(I(3).String(), "[3]");
  EXPECT_EQ(V(R"("a\"b\\c\nd\u0001é")").String(), R"([="a\"b\\c\nd\x01é"])");
  EXPECT_EQ(
      PathString({F("spec"), F("ports"), K(R"({"port":80,"protocol":"TCP"})"), F("targetPort")}),
      R"(.spec.ports[port=80,protocol="TCP"].targetPort)");
  EXPECT_EQ(PathString({F("metadata"), F("labels"), F("app.kubernetes.io/name")}),
            ".metadata.labels.app.kubernetes.io/name");
  EXPECT_EQ(PathString({F("status"), F("conditions"), K(R"({"type":"Ready"})"), F("status")}),
            R"(.status.conditions[type="Ready"].status)");
}

TEST(PathElement, FieldsV1Keys) {
  EXPECT_EQ(F("app.kubernetes.io/name").FieldsV1Key(), "f:app.kubernetes.io/name");
  EXPECT_EQ(K(R"({"protocol":"TCP","port":80})").FieldsV1Key(),
            R"(k:{"port":80,"protocol":"TCP"})");
  EXPECT_EQ(V(R"("example.com/cleanup")").FieldsV1Key(), R"(v:"example.com/cleanup")");
  EXPECT_EQ(I(0).FieldsV1Key(), "i:0");
}

Set Of(std::vector<Path> paths) {
  Set s;
  for (const auto& p : paths) s.Insert(p);
  return s;
}

TEST(Set, InsertHasAndPrefixes) {
  Set s = Of({{F("a"), F("b"), F("c")}, {F("a"), F("b")}, {F("x")}});
  EXPECT_TRUE(s.Has({F("a"), F("b"), F("c")}));
  EXPECT_TRUE(s.Has({F("a"), F("b")}));
  EXPECT_FALSE(s.Has({F("a")}));
  EXPECT_FALSE(s.Has({}));
  EXPECT_TRUE(s.HasPrefix({F("a")}));
  EXPECT_TRUE(s.HasPrefix({F("a"), F("b")}));
  EXPECT_FALSE(s.HasPrefix({F("b")}));
  EXPECT_EQ(s.Size(), 3u);
  s.Insert({});  // the whole object is never owned
  EXPECT_EQ(s.Size(), 3u);
  ASSERT_NE(s.Child(F("a")), nullptr);
  EXPECT_EQ(s.Child(F("z")), nullptr);
  EXPECT_TRUE(s.HasMember(F("x")));
  EXPECT_EQ(s.ToFieldsV1(), R"({"f:a":{"f:b":{".":{},"f:c":{}}},"f:x":{}})");
}

TEST(Set, UnionAndIntersection) {
  Set a = Of({{F("a"), F("b")}, {F("c")}, {F("d"), F("e")}});
  Set b = Of({{F("a"), F("x")}, {F("c")}, {F("d")}});
  EXPECT_EQ(a.Union(b).ToFieldsV1(),
            R"({"f:a":{"f:b":{},"f:x":{}},"f:c":{},"f:d":{".":{},"f:e":{}}})");
  EXPECT_EQ(a.Union(b), b.Union(a));
  EXPECT_EQ(a.Intersection(b).ToFieldsV1(), R"({"f:c":{}})");
  EXPECT_TRUE(a.Intersection(Set()).Empty());
}

// SMD: parent - child = parent; child - parent = child (Difference), but RecursiveDifference
// removes a member's whole subtree.
TEST(Set, DifferenceKeepsChildrenOfRemovedMembers) {
  Set s = Of({{F("a"), F("b"), F("c")}, {F("a"), F("b")}, {F("x")}});
  Set parent = Of({{F("a"), F("b")}});
  EXPECT_EQ(s.Difference(parent).ToFieldsV1(), R"({"f:a":{"f:b":{"f:c":{}}},"f:x":{}})");
  EXPECT_EQ(s.RecursiveDifference(parent).ToFieldsV1(), R"({"f:x":{}})");
  Set child = Of({{F("a"), F("b"), F("c")}});
  EXPECT_EQ(s.Difference(child).ToFieldsV1(), R"({"f:a":{"f:b":{}},"f:x":{}})");
  EXPECT_EQ(s.RecursiveDifference(child).ToFieldsV1(), R"({"f:a":{"f:b":{}},"f:x":{}})");
  // Emptied children disappear entirely.
  EXPECT_TRUE(child.Difference(s).Empty());
  EXPECT_EQ(child.Difference(s).ToFieldsV1(), "{}");
  EXPECT_TRUE(Of({{F("status"), F("x")}}).RecursiveDifference(Of({{F("status")}})).Empty());
}

TEST(Set, LeavesWithPrefixIterateAndString) {
  Set s = Of({{F("a"), F("b"), F("c")}, {F("a"), F("b")}, {F("x")}, {F("a"), F("y")}});
  EXPECT_EQ(s.Leaves().ToFieldsV1(), R"({"f:a":{"f:b":{"f:c":{}},"f:y":{}},"f:x":{}})");
  EXPECT_EQ(s.WithPrefix(F("a")).ToFieldsV1(), R"({"f:b":{".":{},"f:c":{}},"f:y":{}})");
  EXPECT_TRUE(s.WithPrefix(F("q")).Empty());
  // SMD order: this level's members first, then each child in order.
  EXPECT_EQ(s.String(), ".x\n.a.b\n.a.y\n.a.b.c");
  std::vector<std::string> seen;
  s.Iterate([&](const Path& p) { seen.push_back(PathString(p)); });
  EXPECT_EQ(seen.size(), s.Size());
}

// Upstream's TestSerialize: random sets survive a round trip.
TEST(Set, RandomRoundTrips) {
  std::mt19937 rng(42);
  auto element = [&]() -> PathElement {
    switch (rng() % 4) {
      case 0:
        return F(std::string(1, static_cast<char>('a' + rng() % 5)));
      case 1:
        return rng() % 2 ? K(R"({"name":"first"})")
                         : K(R"({"port":)" + std::to_string(rng() % 3) + R"(,"protocol":"tcp"})");
      case 2:
        return rng() % 2 ? V(std::to_string(rng() % 4)) : V(R"("aa")");
      default:
        return I(static_cast<int64_t>(rng() % 4));
    }
  };
  for (int round = 0; round < 200; ++round) {
    Set s;
    for (int j = 0; j < 50; ++j) {
      Path p;
      size_t len = 2 + rng() % 4;
      for (size_t k = 0; k < len; ++k) p.push_back(element());
      s.Insert(p);
    }
    std::string text = s.ToFieldsV1();
    Set back = Parse(text);
    ASSERT_EQ(back, s) << text;
    ASSERT_EQ(back.ToFieldsV1(), text);
    // Set algebra identities on random input.
    Set t = Parse(text).Difference(Of({{element()}}));
    EXPECT_EQ(s.Union(t), s);
    EXPECT_EQ(s.Intersection(t), t);
    EXPECT_TRUE(t.Difference(s).Empty());
  }
}

}  // namespace
}  // namespace svcplane::apiserver::fieldmanager
