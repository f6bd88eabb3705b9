#include <gtest/gtest.h>

#include "api/codec/json.h"

#include <fstream>
#include <sstream>

#include "api/codec/internal/minify.h"

namespace svcplane::api::codec {
namespace {

using core::v1::Pod;
using core::v1::Service;

std::string ErrorOf(std::string_view json) {
  auto r = DecodeJson<Service>(json);
  EXPECT_FALSE(r.ok()) << json;
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), Code::kBadRequest);
  return r.status().message();
}

TEST(JsonDecodeTest, WrongTypeNamesThePath) {
  EXPECT_EQ(ErrorOf(R"({"spec":{"ports":[{"port":80},{"port":"80"}]}})"),
            "spec.ports[1].port: expected integer, got string");
  EXPECT_EQ(ErrorOf(R"({"metadata":{"labels":{"app":1}}})"),
            "metadata.labels[app]: expected string, got number");
  EXPECT_EQ(ErrorOf(R"({"spec":{"selector":[]}})"), "spec.selector: expected object, got array");
  EXPECT_EQ(ErrorOf(R"({"spec":{"ports":[{"targetPort":true}]}})"),
            "spec.ports[0].targetPort: expected integer or string, got boolean");
}

TEST(JsonDecodeTest, NumbersOutOfRangeAreRejected) {
  EXPECT_EQ(ErrorOf(R"({"spec":{"ports":[{"port":4294967296}]}})"),
            "spec.ports[0].port: number 4294967296 out of range for int32");
  EXPECT_NE(
      ErrorOf(R"({"metadata":{"generation":99999999999999999999999}})").find("metadata.generation"),
      std::string::npos);
  EXPECT_NE(ErrorOf(R"({"spec":{"ports":[{"port":80.5}]}})").find("spec.ports[0].port"),
            std::string::npos);
}

TEST(JsonDecodeTest, MalformedDocuments) {
  for (std::string_view bad : {
           R"({"metadata":{"name":"x")",             // truncated
           R"({"metadata":{"name":"x"}} trailing)",  // garbage after the object
           R"([{"metadata":{}}])",                   // not an object
           R"()",                                    // empty
           R"({"metadata":{"name":"x",}})",          // trailing comma
           R"({"spec":{"weird":tru}})",              // bad literal inside an unknown field
           R"({"spec":{"weird":{"a":[1,2,}]}}})",    // broken unknown subtree
           R"({"spec":{"weird":"\x"}})",             // bad escape inside an unknown field
       }) {
    auto r = DecodeJson<Service>(bad);
    EXPECT_FALSE(r.ok()) << bad;
  }
}

TEST(JsonDecodeTest, InvalidUtf8IsRejected) {
  std::string bad = "{\"metadata\":{\"name\":\"\xff\xfe\"}}";
  EXPECT_FALSE(DecodeJson<Service>(bad).ok());
  std::string bad_unknown = "{\"spec\":{\"x\":\"\xc3\x28\"}}";
  EXPECT_FALSE(DecodeJson<Service>(bad_unknown).ok());
}

TEST(JsonDecodeTest, DeepNestingIsAnErrorNotACrash) {
  std::string deep = R"({"spec":{"x":)" + std::string(5000, '[') + std::string(5000, ']') + "}}";
  EXPECT_FALSE(DecodeJson<Service>(deep).ok());
  std::string deep_obj = R"({"spec":{"x":)";
  for (int i = 0; i < 3000; ++i) deep_obj += R"({"a":)";
  deep_obj += "1";
  for (int i = 0; i < 3000; ++i) deep_obj += "}";
  deep_obj += "}}";
  EXPECT_FALSE(DecodeJson<Service>(deep_obj).ok());
}

TEST(JsonDecodeTest, InvalidTimeAndQuantity) {
  EXPECT_EQ(ErrorOf(R"({"metadata":{"creationTimestamp":"yesterday"}})"),
            "metadata.creationTimestamp: invalid RFC 3339 time \"yesterday\"");
  auto node = DecodeJson<core::v1::Node>(R"({"status":{"capacity":{"cpu":"lots"}}})");
  ASSERT_FALSE(node.ok());
  EXPECT_NE(node.status().message().find("status.capacity[cpu]"), std::string::npos);
}

TEST(JsonDecodeTest, NullMeansZeroAndDuplicatesKeepTheLast) {
  auto r = DecodeJson<Service>(
      R"({"metadata":{"name":"a","name":"b","labels":null},"spec":{"ports":null,"clusterIP":null}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->metadata.name, "b");
  EXPECT_TRUE(r->metadata.labels.empty());
  EXPECT_TRUE(r->spec.ports.empty());
}

TEST(JsonDecodeTest, EscapedStringsAndKeys) {
  auto r = DecodeJson<Service>(
      R"({"metadata":{"n\u0061me":"caf\u00e9","annotations":{"a\"b":"line\nbreak"}},"x\ty":1})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->metadata.name, "caf\xc3\xa9");
  EXPECT_EQ(r->metadata.annotations.at("a\"b"), "line\nbreak");
  std::string out = EncodeJson(*r);
  EXPECT_NE(out.find(R"("a\"b":"line\nbreak")"), std::string::npos);
  EXPECT_NE(out.find(R"("x\ty":1)"), std::string::npos);
}

// Found by json_decode_fuzz: unknown scalar fields were written back empty.
TEST(JsonDecodeTest, UnknownScalarFieldsRoundTrip) {
  std::string in = R"({"spec":{"priorityClassName":"high","runtimeClassName" : "gvisor" ,"n":1.5,)"
                   R"("big":12345678901234567890,"t":true,"f":false,"z":null,"esc":"a\"b"}})";
  auto pod = DecodeJson<Pod>(in);
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  std::string out = EncodeJson(*pod);
  for (std::string_view want : {R"("priorityClassName":"high")", R"("runtimeClassName":"gvisor")",
                                R"("n":1.5)", R"("big":12345678901234567890)", R"("t":true)",
                                R"("f":false)", R"("z":null)", R"("esc":"a\"b")"}) {
    EXPECT_NE(out.find(want), std::string::npos) << want << " in " << out;
  }
  auto again = DecodeJson<Pod>(out);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(*again == *pod);
}

TEST(JsonDecodeTest, UnknownFieldsAreStoredCompactly) {
  auto r = DecodeJson<Service>("{\"spec\": {\"future\" : {\n  \"a\" : [ 1 , \"x y\\\" z\" ]\n}}}");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE(EncodeJson(*r).find(R"("future":{"a":[1,"x y\" z"]})"), std::string::npos)
      << EncodeJson(*r);
}

TEST(JsonEncodeTest, EscapesLikeGo) {
  Service svc;
  svc.metadata.name = "<a&b>\x01\xe2\x80\xa8";
  std::string out = EncodeJson(svc);
  EXPECT_NE(out.find(R"("name":"\u003ca\u0026b\u003e\u0001\u2028")"), std::string::npos) << out;
}

TEST(JsonEncodeTest, OmitEmptyAndAlwaysFollowGoTags) {
  Service svc;
  svc.kind = "Service";
  svc.api_version = "v1";
  svc.metadata.name = "web";
  svc.spec.ports.push_back(
      {.name = "", .protocol = "TCP", .port = 80, .target_port = meta::IntOrString::FromInt(8080)});
  EXPECT_EQ(
      EncodeJson(svc),
      R"({"kind":"Service","apiVersion":"v1","metadata":{"name":"web","creationTimestamp":null},)"
      R"("spec":{"ports":[{"protocol":"TCP","port":80,"targetPort":8080}]},)"
      R"("status":{"loadBalancer":{}}})");
}

// Fields kept in a boxed `rest` (meta::Boxed) are ordinary members on the wire, in Go's order;
// an object without them never allocates the box, not even to encode it.
TEST(JsonBoxedFieldsTest, RestFieldsAreMembersOnTheWire) {
  const std::string json =
      R"({"metadata":{"name":"a","creationTimestamp":null},)"
      R"("spec":{"containers":[{"name":"c","image":"i","resources":{"limits":{"cpu":"1"}},)"
      R"("imagePullPolicy":"Always"}],"restartPolicy":"Never","nodeName":"n","hostNetwork":true,)"
      R"("priority":0},"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True",)"
      R"("lastProbeTime":null,"lastTransitionTime":null,"reason":"r"}],"hostIP":"192.0.2.1",)"
      R"("podIP":"10.0.0.1"}})";
  auto pod = DecodeJson<Pod>(json);
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  EXPECT_EQ(pod->spec.rest->restart_policy, "Never");
  EXPECT_TRUE(pod->spec.rest->host_network);
  EXPECT_EQ(pod->spec.rest->priority, 0);
  EXPECT_EQ(pod->spec.containers[0].rest->image_pull_policy, "Always");
  EXPECT_EQ(pod->spec.containers[0].rest->resources.text, R"({"limits":{"cpu":"1"}})");
  EXPECT_EQ(pod->status.conditions[0].rest->reason, "r");
  EXPECT_EQ(pod->status.rest->host_ip, "192.0.2.1");
  EXPECT_EQ(pod->spec.node_name, "n");
  EXPECT_EQ(EncodeJson(*pod), json);

  auto slim = DecodeJson<Pod>(
      R"({"metadata":{"name":"a"},"spec":{"containers":[{"name":"c","ports":[{"containerPort":80}]}],)"
      R"("nodeName":"n"},"status":{"conditions":[{"type":"Ready","status":"True"}]}})");
  ASSERT_TRUE(slim.ok()) << slim.status().ToString();
  const Pod& cslim = *slim;
  EXPECT_EQ(EncodeJson(cslim),
            R"({"metadata":{"name":"a","creationTimestamp":null},)"
            R"("spec":{"containers":[{"name":"c","ports":[{"containerPort":80}],"resources":{}}],)"
            R"("nodeName":"n"},"status":{"conditions":[{"type":"Ready","status":"True",)"
            R"("lastProbeTime":null,"lastTransitionTime":null}]}})");
  EXPECT_FALSE(cslim.spec.rest.allocated());
  EXPECT_FALSE(cslim.spec.containers[0].rest.allocated());
  EXPECT_FALSE(cslim.status.rest.allocated());
  EXPECT_FALSE(cslim.status.conditions[0].rest.allocated());
}

TEST(JsonCodecTest, PeekTypeMetaAndWatchEvents) {
  auto tm = PeekTypeMeta(R"({"metadata":{"x":[1]},"kind":"Pod","apiVersion":"v1"})");
  ASSERT_TRUE(tm.ok());
  EXPECT_EQ(tm->kind, "Pod");
  EXPECT_EQ(tm->api_version, "v1");

  std::string ev;
  EncodeWatchEvent("ADDED", R"({"kind":"Pod"})", &ev);
  EXPECT_EQ(ev, R"({"type":"ADDED","object":{"kind":"Pod"}})");
  auto decoded = DecodeWatchEvent(ev);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->type, "ADDED");
  EXPECT_EQ(decoded->object, R"({"kind":"Pod"})");
  EXPECT_FALSE(DecodeWatchEvent(R"({"object":{}})").ok());
}

TEST(JsonCodecTest, StatusObject) {
  meta::StatusObject st;
  st.status = "Failure";
  st.message = "pods \"x\" not found";
  st.reason = "NotFound";
  st.details = meta::StatusDetails{.name = "x", .kind = "pods"};
  st.code = 404;
  std::string json = EncodeJson(st);
  EXPECT_EQ(json, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                  R"("message":"pods \"x\" not found","reason":"NotFound",)"
                  R"("details":{"name":"x","kind":"pods"},"code":404})");
  auto back = DecodeJson<meta::StatusObject>(json);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(*back == st);
}

TEST(JsonTest, BindingAsTheSchedulerSendsIt) {
  auto b = DecodeJson<core::v1::Binding>(
      R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"p","namespace":"ns"},)"
      R"("target":{"apiVersion":"v1","kind":"Node","name":"n"}})");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->metadata.name, "p");
  EXPECT_EQ(b->metadata.namespace_, "ns");
  EXPECT_EQ(b->target.kind, "Node");
  EXPECT_EQ(b->target.name, "n");
  EXPECT_EQ(EncodeJson(*b),
            R"({"kind":"Binding","apiVersion":"v1","metadata":{"name":"p","namespace":"ns",)"
            R"("creationTimestamp":null},"target":{"kind":"Node","name":"n","apiVersion":"v1"}})");
}

TEST(TimeTest, FormatsAndParses) {
  EXPECT_EQ(meta::FormatRFC3339(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(meta::FormatRFC3339(1714557600), "2024-05-01T10:00:00Z");
  EXPECT_EQ(meta::FormatRFC3339Micro(1714557600000001), "2024-05-01T10:00:00.000001Z");
  EXPECT_EQ(meta::ParseRFC3339Micros("2024-05-01T12:00:00+02:00"), 1714557600000000);
  EXPECT_EQ(meta::ParseRFC3339Micros("2024-05-01T10:00:00.5Z"), 1714557600500000);
  EXPECT_FALSE(meta::ParseRFC3339Micros("2024-05-01 10:00:00Z"));
  EXPECT_FALSE(meta::ParseRFC3339Micros("2024-13-01T10:00:00Z"));
}

TEST(QuantityTest, MilliValue) {
  EXPECT_EQ(meta::Quantity{"250m"}.MilliValue(), 250);
  EXPECT_EQ(meta::Quantity{"4"}.MilliValue(), 4000);
  EXPECT_EQ(meta::Quantity{"1Ki"}.MilliValue(), 1024000);
  EXPECT_EQ(meta::Quantity{"1e3"}.MilliValue(), 1000000);
  EXPECT_FALSE(meta::Quantity{"abc"}.MilliValue());
  EXPECT_FALSE(meta::Quantity{"1Zi"}.MilliValue());
}

TEST(QuantityTest, MilliValueSignsFractionsAndExponents) {
  EXPECT_EQ(meta::Quantity{"+2"}.MilliValue(), 2000);
  EXPECT_EQ(meta::Quantity{"-1"}.MilliValue(), -1000);
  EXPECT_EQ(meta::Quantity{"0.5"}.MilliValue(), 500);
  EXPECT_EQ(meta::Quantity{".5"}.MilliValue(), 500);
  EXPECT_EQ(meta::Quantity{"1.5Gi"}.MilliValue(), 1610612736000);
  EXPECT_EQ(meta::Quantity{"1e+2"}.MilliValue(), 100000);
  EXPECT_EQ(meta::Quantity{"5e-1"}.MilliValue(), 500);
  EXPECT_EQ(meta::Quantity{"0.1m"}.MilliValue(), 1);  // rounded up, as upstream's MilliValue
  // Not numbers: every digit and dot before the suffix must belong to one number.
  EXPECT_FALSE(meta::Quantity{"1.2.3"}.MilliValue());
  EXPECT_FALSE(meta::Quantity{"."}.MilliValue());
  EXPECT_FALSE(meta::Quantity{"+"}.MilliValue());
  EXPECT_FALSE(meta::Quantity{"++1"}.MilliValue());
  EXPECT_FALSE(meta::Quantity{"1e"}.MilliValue());
  EXPECT_FALSE(meta::Quantity{"1e1.5"}.MilliValue());
  EXPECT_FALSE(meta::Quantity{""}.MilliValue());
}

}  // namespace
}  // namespace svcplane::api::codec

namespace svcplane::api::codec {
namespace {

// A body without whitespace to drop is parsed in place (the minified copy is the body); one
// with whitespace is validated as sent, so dropping whitespace never makes bad JSON good.
TEST(JsonForLogTest, MinifiesValidatesAndReadsMetadata) {
  const std::string compact =
      R"({"kind":"Pod","metadata":{"name":"p","namespace":"ns","uid":"u","resourceVersion":"7"},)"
      R"("spec":{"args":["sh -c","a  b"]}})";
  auto a = JsonForLog(compact, true);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->json, compact);
  EXPECT_EQ(a->name, "p");
  EXPECT_EQ(a->ns, "ns");
  EXPECT_EQ(a->uid, "u");
  EXPECT_EQ(a->resource_version, "7");

  auto b = JsonForLog(
      "{\n  \"kind\": \"Pod\",\n  \"metadata\": {\"name\" : \"q\"},\n"
      "  \"spec\": {\"args\": [\"sh -c\"]}\n}\n",
      true);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->json, R"({"kind":"Pod","metadata":{"name":"q"},"spec":{"args":["sh -c"]}})");
  EXPECT_EQ(b->name, "q");

  EXPECT_FALSE(JsonForLog(R"({"a":tr ue})", true).ok());
  EXPECT_FALSE(JsonForLog(R"({"a":1 2})", true).ok());
  EXPECT_FALSE(JsonForLog(R"({"a":tru})", true).ok());
  EXPECT_FALSE(JsonForLog(R"({"a":"unclosed})", true).ok());
  EXPECT_TRUE(JsonForLog(R"({"a":1})", true).ok());

  auto c = JsonForLog(R"({"metadata":{"name":"r"}})", false);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->json, "");
  EXPECT_EQ(c->name, "r");
  EXPECT_FALSE(JsonForLog(R"({"a":tr ue})", false).ok());
}

// Minify uses simdjson's AVX2 kernel where it can (the AVX-512 one is slow on AMD Zen 4); its
// output is the active kernel's, byte for byte.
TEST(JsonForLogTest, MinifyMatchesSimdjsonsActiveKernel) {
  std::ifstream in(SVCPLANE_TESTDATA "/pod.json");
  std::stringstream pod;
  pod << in.rdbuf();
  for (const std::string& text :
       {pod.str(), std::string(R"({ "a" : [ 1 , "x  y\" z" , {"b" :null} ] })"), std::string(" "),
        std::string("[\n\t1,\r\n2 ]"), std::string(R"({"unclosed": "x)")}) {
    std::string ours(text.size() + simdjson::SIMDJSON_PADDING, '\0');
    std::string theirs(text.size() + simdjson::SIMDJSON_PADDING, '\0');
    size_t n = 0, m = 0;
    const auto a = internal::Minify(text.data(), text.size(), ours.data(), n);
    const auto b = simdjson::minify(text.data(), text.size(), theirs.data(), m);
    EXPECT_EQ(a, b) << text;
    if (a == simdjson::SUCCESS) {
      EXPECT_EQ(ours.substr(0, n), theirs.substr(0, m)) << text;
    }
  }
}

}  // namespace
}  // namespace svcplane::api::codec
