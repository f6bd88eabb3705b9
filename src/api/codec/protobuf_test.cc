// The protobuf codec: field numbers checked against upstream's schema, Go's exact bytes for a
// small object, the envelope, watch frames, fidelity of what the model keeps as JSON, and
// malformed input.
#include "api/codec/protobuf.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <set>

#include "api/codec/internal/proto_codec.h"
#include "api/codec/json.h"

namespace svcplane::api::codec {
namespace {

using internal::ProtoSchema;

// --- field numbers -----------------------------------------------------------------------------

template <typename M>
struct Inner {
  using type = M;
};
template <typename M>
struct Inner<std::optional<M>> : Inner<M> {};
template <typename M>
struct Inner<std::vector<M>> : Inner<M> {};
template <typename K, typename V, typename C>
struct Inner<std::map<K, V, C>> : Inner<V> {};

template <typename T>
void CheckNumbers(std::set<std::string>* seen) {
  std::string name = ProtoName(meta::Tag<T>{});
  if (!seen->insert(name).second) return;
  const auto* schema = ProtoSchema::Builtin().Find(name);
  ASSERT_NE(schema, nullptr) << name;
  meta::ForEachField<T>([&](const auto& f) {
    if (f.proto > 0) {
      const auto* sf = schema->FieldByNumber(static_cast<uint32_t>(f.proto));
      ASSERT_NE(sf, nullptr) << name << "." << f.json_name << " = " << f.proto;
      EXPECT_EQ(sf->name, f.json_name) << name << " field " << f.proto;
    } else if (f.json_name != "kind" && f.json_name != "apiVersion") {
      EXPECT_EQ(schema->FieldByName(f.json_name), nullptr)
          << name << "." << f.json_name << " has a protobuf number upstream";
    }
    using M = typename Inner<typename std::decay_t<decltype(f)>::MemberType>::type;
    if constexpr (meta::Reflected<M>) CheckNumbers<M>(seen);
  });
}

template <typename T>
void CheckKind() {
  std::set<std::string> seen;
  CheckNumbers<T>(&seen);
  CheckNumbers<meta::List<T>>(&seen);
}

TEST(ProtobufSchemaTest, EveryModelledFieldNumberMatchesUpstream) {
  CheckKind<core::v1::Namespace>();
  CheckKind<core::v1::Service>();
  CheckKind<core::v1::Pod>();
  CheckKind<core::v1::Node>();
  CheckKind<core::v1::Endpoints>();
  CheckKind<core::v1::Event>();
  CheckKind<discovery::v1::EndpointSlice>();
  CheckKind<coordination::v1::Lease>();
  CheckKind<rbac::v1::Role>();
  CheckKind<rbac::v1::ClusterRole>();
  CheckKind<rbac::v1::RoleBinding>();
  CheckKind<rbac::v1::ClusterRoleBinding>();
  std::set<std::string> seen;
  CheckNumbers<meta::StatusObject>(&seen);
  CheckNumbers<core::v1::Binding>(&seen);
}

TEST(ProtobufSchemaTest, ParsesOurProtoText) {
  const auto& schema = ProtoSchema::Builtin();
  EXPECT_GT(schema.size(), 150u);
  const auto* volume = schema.Find("k8s.io.api.core.v1.Volume");
  ASSERT_NE(volume, nullptr);
  const auto* source = volume->FieldByName("volumeSource");
  ASSERT_NE(source, nullptr);
  EXPECT_TRUE(source->inline_json);
  const auto* labels =
      schema.Find("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta")->FieldByName("labels");
  ASSERT_NE(labels, nullptr);
  EXPECT_TRUE(labels->is_map);
  EXPECT_EQ(labels->number, 11u);
}

TEST(ProtobufSchemaTest, RejectsBadText) {
  EXPECT_FALSE(ProtoSchema::Parse({"package a;\nmessage M {\n  optional Nope x = 1;\n}\n"}).ok());
  EXPECT_FALSE(ProtoSchema::Parse({"package a;\nmessage M {\n  optional int32 x = ;\n}\n"}).ok());
  EXPECT_FALSE(ProtoSchema::Parse({"package a;\nmessage M {\n"}).ok());
}

// --- exact bytes ---------------------------------------------------------------------------------

std::string Hex(std::string_view s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(d[c >> 4]);
    out.push_back(d[c & 15]);
  }
  return out;
}

TEST(ProtobufTest, NamespaceBytesMatchGoMarshal) {
  core::v1::Namespace ns;
  ns.metadata.name = "foo";
  ns.metadata.creation_timestamp = meta::Time::FromUnix(1);
  std::string out = EncodeProtobuf(ns, "v1", "Namespace");
  // k8s\0, Unknown{typeMeta{"v1","Namespace"}, raw, "", ""}; raw = Namespace{metadata, spec,
  // status}: ObjectMeta writes every non-pointer string (name "foo", then 5 empty ones),
  // generation 0 and an always-present creationTimestamp {seconds: 1, nanos: 0}.
  const std::string meta =
      "0a03666f6f"
      "1200"
      "1a00"
      "2200"
      "2a00"
      "3200"
      "3800"
      "42040801"
      "1000";
  const std::string raw =
      "0a"
      "17" +
      meta +
      "1200"
      "1a02"
      "0a00";
  const std::string type_meta = "0a0276311209" + Hex("Namespace");
  EXPECT_EQ(Hex(out),
            "6b387300"
            "0a0f" +
                type_meta +
                "12"
                "1f" +
                raw + "1a002200");
}

TEST(ProtobufTest, LongBodiesGetMinimalVarintLengths) {
  core::v1::Namespace ns;
  ns.metadata.name = std::string(300, 'a');
  std::string msg;
  EncodeProtobufMessage(ns, &msg);
  // field 1 (metadata), length 300 + 3 (name tag+len) + ... as a two-byte varint.
  EXPECT_EQ(static_cast<unsigned char>(msg[0]), 0x0a);
  EXPECT_EQ(static_cast<unsigned char>(msg[1]) & 0x80, 0x80);
  EXPECT_EQ(static_cast<unsigned char>(msg[2]) & 0x80, 0);
  auto back = DecodeProtobufMessage<core::v1::Namespace>(msg);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->metadata.name, ns.metadata.name);

  // Three-byte lengths (>= 16384) and short bodies next to long ones.
  ns.metadata.name = std::string(20000, 'b');
  ns.metadata.labels = {{"a", "b"}, {"c", std::string(200, 'd')}};
  msg.clear();
  EncodeProtobufMessage(ns, &msg);
  EXPECT_EQ(static_cast<unsigned char>(msg[1]) & 0x80, 0x80);
  EXPECT_EQ(static_cast<unsigned char>(msg[2]) & 0x80, 0x80);
  EXPECT_EQ(static_cast<unsigned char>(msg[3]) & 0x80, 0);
  back = DecodeProtobufMessage<core::v1::Namespace>(msg);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->metadata, ns.metadata);
}

// --- round trips ---------------------------------------------------------------------------------

constexpr std::string_view kPodJson =
    R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"default","creationTimestamp":null,"labels":{"app":"web"}},"spec":{"volumes":[{"name":"data","emptyDir":{"sizeLimit":"1Gi"}},{"name":"cfg","configMap":{"name":"app-config","defaultMode":420,"items":[{"key":"a","path":"b"}]}}],"containers":[{"name":"c","image":"nginx","command":["/bin/sh","-c"],"args":["echo hi"],"ports":[{"containerPort":80,"protocol":"TCP"}],"env":[{"name":"A","value":"1"},{"name":"POD","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}],"resources":{"limits":{"cpu":"500m","memory":"128Mi"}},"volumeMounts":[{"name":"data","mountPath":"/data"}],"livenessProbe":{"httpGet":{"path":"/healthz","port":8080,"scheme":"HTTP"},"initialDelaySeconds":3,"periodSeconds":10},"readinessProbe":{"tcpSocket":{"port":"http"}},"securityContext":{"runAsUser":0,"allowPrivilegeEscalation":false}}],"securityContext":{"runAsNonRoot":true},"tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule","tolerationSeconds":30}],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a","b"]}]}]}}}},"status":{}})";

boost::json::value Canonical(const boost::json::value& v) {
  if (v.is_object()) {
    std::vector<std::pair<std::string, boost::json::value>> items;
    for (const auto& kv : v.as_object()) {
      items.emplace_back(std::string(kv.key()), Canonical(kv.value()));
    }
    std::sort(items.begin(), items.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    boost::json::object out;
    for (auto& [k, val] : items) out.emplace(k, std::move(val));
    return out;
  }
  if (v.is_array()) {
    boost::json::array out;
    for (const auto& e : v.as_array()) out.push_back(Canonical(e));
    return out;
  }
  return v;
}

std::string CanonicalText(std::string_view json) {
  return boost::json::serialize(Canonical(boost::json::parse(json)));
}

TEST(ProtobufTest, PodWithUnmodelledPartsSurvivesBothWays) {
  auto pod = DecodeJson<core::v1::Pod>(kPodJson);
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  std::string bytes = EncodeProtobuf(*pod, "v1", "Pod");
  auto back = DecodeProtobuf<core::v1::Pod>(bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->kind, "Pod");
  EXPECT_EQ(back->api_version, "v1");
  // JSON → protobuf → JSON: nothing lost (command, env, probes, volumes, resources, affinity,
  // security contexts with their zero values).
  EXPECT_EQ(CanonicalText(EncodeJson(*back)), CanonicalText(kPodJson));
  // protobuf → JSON → protobuf: the same bytes.
  auto via_json = DecodeJson<core::v1::Pod>(EncodeJson(*back));
  ASSERT_TRUE(via_json.ok());
  EXPECT_EQ(Hex(EncodeProtobuf(*via_json, "v1", "Pod")), Hex(bytes));
}

// Boxed `rest` fields travel under their own field numbers and come back as an equal object;
// an object without them decodes without allocating the box. Container.resources is written as
// an empty message even when unset (Go writes structs always) and must decode back to the unset
// RawJson, not `{}` (meta::NormalizeDecoded), or the objects differ and every Container's box
// gets allocated.
TEST(ProtobufTest, BoxedRestFieldsRoundTrip) {
  core::v1::Pod pod;
  pod.metadata.name = "a";
  pod.spec.containers.push_back({.name = "c", .image = "i"});
  pod.spec.containers[0].rest->image_pull_policy = "Always";
  pod.spec.rest->restart_policy = "Never";
  pod.spec.rest->priority = 7;
  pod.spec.rest->tolerations.push_back({R"({"operator":"Exists"})"});
  pod.status.rest->host_ip = "192.0.2.1";
  pod.status.rest->qos_class = "BestEffort";
  pod.status.conditions.push_back({.type = "Ready", .status = "True"});
  pod.status.conditions[0].rest->message = "m";
  auto back = DecodeProtobuf<core::v1::Pod>(EncodeProtobuf(pod, "v1", "Pod"));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  back->kind.clear();
  back->api_version.clear();
  EXPECT_TRUE(*back == pod) << EncodeJson(*back) << "\n" << EncodeJson(pod);
  EXPECT_EQ(back->spec.rest->priority, 7);
  EXPECT_EQ(back->status.conditions[0].rest->message, "m");
  auto via_json = DecodeJson<core::v1::Pod>(EncodeJson(pod));
  ASSERT_TRUE(via_json.ok()) << via_json.status().ToString();
  EXPECT_TRUE(*via_json == pod) << EncodeJson(*via_json);

  core::v1::Pod slim;
  slim.metadata.name = "b";
  slim.spec.containers.push_back({.name = "c"});
  auto slim_back = DecodeProtobuf<core::v1::Pod>(EncodeProtobuf(slim, "v1", "Pod"));
  ASSERT_TRUE(slim_back.ok()) << slim_back.status().ToString();
  EXPECT_FALSE(slim_back->metadata.rest.allocated());
  EXPECT_FALSE(slim_back->spec.rest.allocated());
  EXPECT_FALSE(slim_back->spec.containers[0].rest.allocated());
  EXPECT_FALSE(slim_back->status.rest.allocated());
  slim_back->kind.clear();
  slim_back->api_version.clear();
  EXPECT_TRUE(*slim_back == slim) << EncodeJson(*slim_back);
}

TEST(ProtobufTest, VolumeSourceIsInlineAndTypedOnTheWire) {
  auto pod = DecodeJson<core::v1::Pod>(kPodJson);
  ASSERT_TRUE(pod.ok());
  std::string msg;
  EncodeProtobufMessage(*pod, &msg);
  // Volume{name=1, volumeSource=2{emptyDir=2{sizeLimit=2 Quantity{string=1 "1Gi"}}}}.
  std::string volume =
      "0a0464617461"
      "12"
      "09"
      "12"
      "07"
      "12"
      "05"
      "0a03" +
      Hex("1Gi");
  EXPECT_NE(Hex(msg).find("0a11" + volume), std::string::npos) << Hex(msg);
}

TEST(ProtobufTest, UnknownFieldsOfModelledStructsTravelByNumber) {
  auto svc = DecodeJson<core::v1::Service>(
      R"({"metadata":{"name":"s"},"spec":{"ports":[{"port":80,"targetPort":8080}],)"
      R"("type":"ClusterIP","externalTrafficPolicy":"Cluster","sessionAffinity":"None",)"
      R"("publishNotReadyAddresses":false,"ipFamilyPolicy":"SingleStack"},"status":{}})");
  ASSERT_TRUE(svc.ok());
  svc->spec.unknown.items.emplace_back("loadBalancerSourceRanges", "[]");  // modelled: ignored
  svc->metadata.unknown.items.emplace_back("futureField", "\"x\"");  // not in the schema: dropped
  auto back = DecodeProtobuf<core::v1::Service>(EncodeProtobuf(*svc, "v1", "Service"));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->spec.ports[0].target_port, meta::IntOrString::FromInt(8080));
  EXPECT_EQ(back->spec.ip_family_policy, "SingleStack");
  EXPECT_TRUE(back->metadata.unknown.empty());
}

TEST(ProtobufTest, ListsAndStatus) {
  core::v1::Pod a, b;
  a.metadata.name = "a";
  b.metadata.name = "b";
  meta::ListMeta lm;
  lm.resource_version = "42";
  std::vector<const core::v1::Pod*> items = {&a, &b};
  std::string out;
  EncodeProtobufList<core::v1::Pod>(lm, items, "v1", "PodList", &out);
  auto list = DecodeProtobuf<PodList>(out);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(list->kind, "PodList");
  EXPECT_EQ(list->metadata.resource_version, "42");
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_EQ(list->items[1].metadata.name, "b");

  meta::StatusObject st;
  st.status = "Failure";
  st.message = "pods \"x\" not found";
  st.reason = "NotFound";
  st.code = 404;
  st.details = meta::StatusDetails{.name = "x", .kind = "pods"};
  auto back = DecodeProtobuf<meta::StatusObject>(EncodeProtobuf(st, "v1", "Status"));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, st);
}

// A List framed for streaming (head, items, tail) is byte for byte the List assembled whole,
// whatever the items' sizes (lengths of one, two and three varint bytes, empty messages, none).
TEST(ProtobufTest, FramedListIsTheAssembledList) {
  meta::ListMeta lm;
  lm.resource_version = "12345";
  lm.continue_ = "token";
  for (std::vector<size_t> sizes :
       {std::vector<size_t>{}, {0}, {1, 127, 128}, {16383, 16384, 3}, {200000, 5, 70000}}) {
    std::vector<std::string> messages;
    for (size_t i = 0; i < sizes.size(); ++i) messages.emplace_back(sizes[i], char('a' + i));
    const std::vector<std::string_view> views(messages.begin(), messages.end());
    std::string whole;
    EncodeProtobufListOfMessages(lm, views, "v1", "PodList", &whole);
    auto frame = FrameProtobufList(lm, sizes, "v1", "PodList");
    std::string streamed = frame.head;
    for (const auto& m : messages) {
      const size_t before = streamed.size();
      AppendProtobufListItem(m, &streamed);
      EXPECT_EQ(streamed.size() - before, ProtobufListItemSize(m.size()));
    }
    streamed += frame.tail;
    EXPECT_EQ(frame.size, whole.size()) << sizes.size() << " items";
    EXPECT_EQ(streamed, whole) << sizes.size() << " items";
  }
}

TEST(ProtobufTest, ListItemEncodedInPlaceMatchesItsMessage) {
  core::v1::Pod pod;
  pod.metadata.name = "web-0";
  pod.metadata.labels = {{"app", "web"}};
  pod.spec.containers.push_back({.name = "c", .image = std::string(300, 'i')});
  std::string message;
  EncodeProtobufMessage(pod, &message);
  std::string expected = "prefix";
  AppendProtobufListItem(message, &expected);

  std::string out = "prefix";
  EXPECT_TRUE(AppendProtobufListItemEncoded(pod, message.size(), &out));
  EXPECT_EQ(out, expected);
  // A wrong size is reported (the caller must not send the bytes as a valid field).
  std::string wrong;
  EXPECT_FALSE(AppendProtobufListItemEncoded(pod, message.size() + 1, &wrong));
}

TEST(ProtobufTest, TimesKeepTheirPrecision) {
  core::v1::Event ev;
  ev.metadata.name = "e";
  ev.first_timestamp = meta::Time::FromUnix(1714557600);
  ev.event_time = meta::MicroTime::FromUnixMicros(1714557600123456);
  ev.series =
      core::v1::EventSeries{.count = 2, .last_observed_time = meta::MicroTime::FromUnixMicros(-1)};
  auto back = DecodeProtobuf<core::v1::Event>(EncodeProtobuf(ev, "v1", "Event"));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->first_timestamp, ev.first_timestamp);
  EXPECT_EQ(back->event_time, ev.event_time);
  EXPECT_EQ(back->series->last_observed_time, ev.series->last_observed_time);
  EXPECT_TRUE(back->last_timestamp.IsZero());
}

// What kube-scheduler POSTs to pods/{name}/binding when it speaks protobuf.
TEST(ProtobufTest, BindingRoundTrips) {
  core::v1::Binding b;
  b.metadata.name = "p";
  b.metadata.namespace_ = "ns";
  b.metadata.uid = "u-1";
  b.target.kind = "Node";
  b.target.name = "n1";
  auto back = DecodeProtobuf<core::v1::Binding>(EncodeProtobuf(b, "v1", "Binding"));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->kind, "Binding");
  EXPECT_EQ(back->api_version, "v1");
  EXPECT_EQ(back->metadata.name, "p");
  EXPECT_EQ(back->metadata.uid, "u-1");
  EXPECT_EQ(back->target.kind, "Node");
  EXPECT_EQ(back->target.name, "n1");
}

TEST(ProtobufTest, WatchFrames) {
  core::v1::Namespace ns;
  ns.metadata.name = "n";
  std::string obj = EncodeProtobuf(ns, "v1", "Namespace");
  std::string stream;
  AppendProtobufWatchFrame("ADDED", obj, &stream);
  AppendProtobufWatchFrame("DELETED", obj, &stream);
  std::string one;
  AppendProtobufWatchFrame("ADDED", obj, &one);
  EXPECT_EQ(one.substr(0, 4), std::string("\0\0\0", 3) + static_cast<char>(one.size() - 4));
  std::string_view view = stream;
  std::string_view partial = view.substr(0, 10);
  auto none = NextProtobufWatchFrame(&partial);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  auto first = NextProtobufWatchFrame(&view);
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_EQ((*first)->type, "ADDED");
  auto decoded = DecodeProtobuf<core::v1::Namespace>((*first)->object);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->metadata.name, "n");
  auto second = NextProtobufWatchFrame(&view);
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_EQ((*second)->type, "DELETED");
  EXPECT_TRUE(view.empty());

  std::string huge = "\x7f\xff\xff\xff" + std::string(16, '\0');
  std::string_view hv = huge;
  auto err = NextProtobufWatchFrame(&hv, 1 << 20);
  EXPECT_FALSE(err.ok());
}

// --- malformed input -------------------------------------------------------------------------

TEST(ProtobufTest, MalformedInputIsBadRequest) {
  core::v1::Pod pod;
  pod.metadata.name = "p";
  pod.spec.containers.push_back({.name = "c", .image = "i"});
  std::string good = EncodeProtobuf(pod, "v1", "Pod");
  ASSERT_TRUE(DecodeProtobuf<core::v1::Pod>(good).ok());

  auto bad_magic = DecodeProtobuf<core::v1::Pod>("{\"kind\":\"Pod\"}");
  ASSERT_FALSE(bad_magic.ok());
  EXPECT_EQ(bad_magic.status().code(), Code::kBadRequest);
  EXPECT_THAT(bad_magic.status().message(), testing::HasSubstr("k8s"));

  for (size_t n = 4; n < good.size(); ++n) {
    auto r = DecodeProtobuf<core::v1::Pod>(std::string_view(good).substr(0, n));
    // Some prefixes end on a field boundary of the envelope and are valid but empty; none crash,
    // and any failure is a 400.
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), Code::kBadRequest);
    }
  }
  // A length prefix far beyond the body.
  std::string oversized = std::string(kProtobufMagic) + "\x12\xff\xff\xff\xff\x0f" + "abc";
  EXPECT_FALSE(DecodeProtobuf<core::v1::Pod>(oversized).ok());
  // A string field with a varint wire type.
  std::string wrong_type;
  internal::ProtoWriter w(&wrong_type);
  size_t m = w.Begin(1);
  w.Int(1, 5);
  w.End(m);
  auto r = DecodeProtobufMessage<core::v1::Pod>(wrong_type);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), testing::HasSubstr("metadata.name"));
  // Invalid UTF-8 never reaches our JSON.
  std::string bad_utf8;
  internal::ProtoWriter w2(&bad_utf8);
  size_t m2 = w2.Begin(1);
  w2.Bytes(1, "\xff\xfe");
  w2.End(m2);
  EXPECT_FALSE(DecodeProtobufMessage<core::v1::Pod>(bad_utf8).ok());
}

}  // namespace
}  // namespace svcplane::api::codec
