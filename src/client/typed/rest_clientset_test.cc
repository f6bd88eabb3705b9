#include "client/typed/rest_clientset.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/codec/json.h"
#include "api/codec/protobuf.h"
#include "base/check.h"
#include "client/errors.h"
#include "client/transport/https_transport.h"
#include "client/transport/testing/tls_test_server.h"

namespace svcplane::client::typed {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using transport::testing::TestCerts;
using transport::testing::TestRequest;
using transport::testing::TestResponse;
using transport::testing::TlsTestServer;

std::string PodJson(const std::string& name, const std::string& rv) {
  return R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + name +
         R"(","namespace":"default","resourceVersion":")" + rv +
         R"("},"spec":{"containers":[{"name":"c","image":"nginx"}]}})";
}

std::string GoneStatus() {
  return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
         R"x("message":"too old resource version: 5 (9)","reason":"Expired","code":410})x";
}

// How the client asks and how the fake server answers.
struct Encoding {
  const char* name;
  transport::ContentType client;
  bool server_protobuf;  // false: a JSON-only server, whatever the client asks (the fallback)
};

const Encoding kEncodings[] = {
    {"Json", transport::ContentType::kJson, false},
    {"ProtobufClientJsonServer", transport::ContentType::kProtobuf, false},
    {"Protobuf", transport::ContentType::kProtobuf, true},
};

// A (JSON) Pod's metadata in an object of another kind, as protobuf.
template <typename T>
std::string AsKind(const std::string& pod_json, std::string_view api_version,
                   std::string_view kind) {
  auto pod = api::codec::DecodeJson<api::core::v1::Pod>(pod_json);
  SVC_CHECK(pod.ok()) << pod.status().ToString();
  T obj;
  obj.metadata = pod->metadata;
  return api::codec::EncodeProtobuf(obj, api_version, kind);
}

// `json` (an object, List or Status in JSON) re-encoded as protobuf, as kube-apiserver would
// answer a client that accepts it; `target` says the kind of a single object.
std::string ToProtobuf(const std::string& json, std::string_view target = "") {
  if (target.find("/leases/") != std::string_view::npos) {
    return AsKind<api::coordination::v1::Lease>(json, "coordination.k8s.io/v1", "Lease");
  }
  if (target.find("/nodes/") != std::string_view::npos) {
    return AsKind<api::core::v1::Node>(json, "v1", "Node");
  }
  if (target.find("/endpointslices/") != std::string_view::npos) {
    return AsKind<api::discovery::v1::EndpointSlice>(json, "discovery.k8s.io/v1", "EndpointSlice");
  }
  if (json.find(R"("kind":"PodList")") != std::string::npos) {
    auto list = api::codec::DecodeJson<api::meta::List<api::core::v1::Pod>>(json);
    SVC_CHECK(list.ok()) << list.status().ToString();
    return api::codec::EncodeProtobuf(*list, "v1", "PodList");
  }
  if (json.find(R"("kind":"Status")") != std::string::npos) {
    auto st = api::codec::DecodeJson<api::meta::StatusObject>(json);
    SVC_CHECK(st.ok()) << st.status().ToString();
    return api::codec::EncodeProtobuf(*st, "v1", "Status");
  }
  auto pod = api::codec::DecodeJson<api::core::v1::Pod>(json);
  SVC_CHECK(pod.ok()) << pod.status().ToString();
  return api::codec::EncodeProtobuf(*pod, "v1", "Pod");
}

// A fake API server answering pods and leases with canned JSON (or the same in protobuf when
// the client accepts it and the server speaks it) and recording requests.
class RestClientsetTest : public ::testing::TestWithParam<Encoding> {
 public:
  RestClientsetTest() : server_([this](const TestRequest& r) { return Handle(r); }) {
    transport::RestConfig c;
    c.host = server_.url();
    c.ca_pem = TestCerts::Get().ca_pem;
    c.qps = -1;
    transport::RestClientOptions options;
    options.content_type = GetParam().client;
    clients_ = MakeRestClientset(
        std::shared_ptr<transport::HttpTransport>(std::move(*transport::HttpsTransport::Create(c))),
        options);
  }

 protected:
  bool Protobuf(const TestRequest& r) const {
    auto it = r.headers.find("accept");
    return GetParam().server_protobuf && it != r.headers.end() &&
           it->second.starts_with(api::codec::kProtobufContentType);
  }

  TestResponse Handle(const TestRequest& r) {
    TestResponse res = HandleJson(r);
    if (!Protobuf(r)) return res;
    if (res.stream) {
      res.headers = {{"Content-Type", std::string(api::codec::kProtobufWatchContentType)}};
      res.stream = [this](const transport::testing::ChunkWriter& write) {
        for (const std::string& e : watch_lines_) {
          auto ev = api::codec::DecodeWatchEvent(e);
          SVC_CHECK(ev.ok()) << ev.status().ToString();
          std::string frame;
          const bool undecodable = ev->object.find("not an object") != std::string::npos;
          api::codec::AppendProtobufWatchFrame(
              ev->type, undecodable ? std::string("k8s\0garbage", 11) : ToProtobuf(ev->object),
              &frame);
          // Two chunks per frame: the client must join a frame split across reads.
          const size_t half = frame.size() / 2;
          write(frame.substr(0, half));
          write(frame.substr(half));
        }
      };
      return res;
    }
    res.headers = {{"Content-Type", std::string(api::codec::kProtobufContentType)}};
    res.body = ToProtobuf(res.body, r.target);
    return res;
  }

  TestResponse HandleJson(const TestRequest& r) {
    TestResponse res;
    res.headers = {{"Content-Type", "application/json"}};
    if (r.target.find("watch=true") != std::string::npos) {
      res.stream = [this](const transport::testing::ChunkWriter& write) {
        for (const std::string& e : watch_lines_) write(e + "\n");
      };
      return res;
    }
    if (r.target.find("/missing") != std::string::npos) {
      res.status = 404;
      res.body = R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound",)"
                 R"("message":"pods \"missing\" not found","code":404})";
      return res;
    }
    if (r.method == "GET" && r.target.starts_with("/api/v1/namespaces/big/pods")) {
      res.body = R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9999"},)"
                 R"("items":[)";
      for (int i = 0; i < kBigList; ++i) {
        if (i) res.body += ",";
        res.body += PodJson("p" + std::to_string(i), std::to_string(i + 1));
      }
      res.body += "]}";
      return res;
    }
    if (r.method == "GET" && r.target.starts_with("/api/v1/namespaces/default/pods?")) {
      res.body = R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"42",)"
                 R"("continue":"abc"},"items":[)" +
                 PodJson("a", "40") + "," + PodJson("b", "41") + "]}";
      return res;
    }
    if (r.method == "DELETE") {
      res.body = R"({"kind":"Status","apiVersion":"v1","status":"Success"})";
      return res;
    }
    res.body = PodJson("a", "40");
    return res;
  }

  std::vector<std::string> Targets() {
    std::vector<std::string> out;
    for (const auto& r : server_.requests()) out.push_back(r.method + " " + r.target);
    return out;
  }

  static constexpr int kBigList = 2000;  // several of the decoder's batches
  std::vector<std::string> watch_lines_;
  TlsTestServer server_;
  std::unique_ptr<Clientset> clients_;
};

TEST_P(RestClientsetTest, VerbsUseTheKindsPaths) {
  using api::core::v1::Pod;
  auto& pods = clients_->Pods();
  auto got = pods.Get("default", "a");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)->metadata.name, "a");
  EXPECT_EQ((*got)->metadata.resource_version, "40");

  Pod p;
  p.metadata.name = "a";
  p.metadata.namespace_ = "default";
  ASSERT_TRUE(pods.Create(p).ok());
  ASSERT_TRUE(pods.Update(p).ok());
  ASSERT_TRUE(pods.UpdateStatus(p).ok());
  ASSERT_TRUE(pods.Patch("default", "a", PatchType::kMerge, "{}", {}, "status").ok());
  ASSERT_TRUE(pods.Delete("default", "a").ok());

  api::coordination::v1::Lease lease;
  lease.metadata.name = "l";
  lease.metadata.namespace_ = "kube-system";
  ASSERT_TRUE(clients_->Leases().Get("kube-system", "l").ok());
  // Cluster-scoped: a namespace passed by mistake is not put in the path.
  ASSERT_TRUE(clients_->Nodes().Get("ignored", "n1").ok());
  ASSERT_TRUE(clients_->EndpointSlices().Get("default", "s").ok());

  EXPECT_THAT(
      Targets(),
      ElementsAre("GET /api/v1/namespaces/default/pods/a", "POST /api/v1/namespaces/default/pods",
                  "PUT /api/v1/namespaces/default/pods/a",
                  "PUT /api/v1/namespaces/default/pods/a/status",
                  "PATCH /api/v1/namespaces/default/pods/a/status",
                  "DELETE /api/v1/namespaces/default/pods/a",
                  "GET /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l",
                  "GET /api/v1/nodes/n1",
                  "GET /apis/discovery.k8s.io/v1/namespaces/default/endpointslices/s"));
}

TEST_P(RestClientsetTest, BindPodPostsABinding) {
  ASSERT_TRUE(clients_->BindPod("default", "a", "node-1", "uid-1").ok());
  auto reqs = server_.requests();
  ASSERT_EQ(reqs.size(), 1u);
  const auto& r = reqs[0];
  EXPECT_EQ(r.method + " " + r.target, "POST /api/v1/namespaces/default/pods/a/binding");
  auto b = api::codec::DecodeJson<api::core::v1::Binding>(r.body);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->kind, "Binding");
  EXPECT_EQ(b->metadata.name, "a");
  EXPECT_EQ(b->metadata.namespace_, "default");
  EXPECT_EQ(b->metadata.uid, "uid-1");
  EXPECT_EQ(b->target.kind, "Node");
  EXPECT_EQ(b->target.name, "node-1");
  EXPECT_TRUE(IsNotFound(clients_->BindPod("default", "missing", "node-1")));
}

TEST_P(RestClientsetTest, ListDecodesItemsAndListMeta) {
  auto list = clients_->Pods().List("default", {.limit = 2});
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_EQ(list->items[1]->metadata.name, "b");
  EXPECT_EQ(list->resource_version, "42");
  EXPECT_EQ(list->continue_token, "abc");
}

// A list of many items decodes while it streams in, on several threads, and keeps its order.
TEST_P(RestClientsetTest, BigListKeepsItsOrder) {
  for (int round = 0; round < 2; ++round) {  // the second one on the reused connection
    auto list = clients_->Pods().List("big", {});
    ASSERT_TRUE(list.ok()) << list.status().ToString();
    ASSERT_EQ(list->items.size(), static_cast<size_t>(kBigList));
    for (int i = 0; i < kBigList; ++i) {
      ASSERT_EQ(list->items[i]->metadata.name, "p" + std::to_string(i));
      ASSERT_EQ(list->items[i]->spec.containers.at(0).image, "nginx");
    }
    EXPECT_EQ(list->resource_version, "9999");
    EXPECT_EQ(list->continue_token, "");
  }
}

TEST_P(RestClientsetTest, ErrorsCarryTheReason) {
  auto got = clients_->Pods().Get("default", "missing");
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(IsNotFound(got.status()));
}

TEST_P(RestClientsetTest, WatchDecodesEventsAndBookmarks) {
  watch_lines_ = {
      R"({"type":"ADDED","object":)" + PodJson("a", "50") + "}",
      R"({"type":"MODIFIED","object":)" + PodJson("a", "51") + "}",
      R"({"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"55"}}})",
      R"({"type":"DELETED","object":)" + PodJson("a", "56") + "}",
  };
  std::vector<std::pair<WatchEventType, std::string>> seen;
  CancelToken cancel;
  Status st = clients_->Pods().Watch(
      "default", {.resource_version = "49", .allow_watch_bookmarks = true},
      [&](WatchEvent<api::core::v1::Pod> ev) {
        seen.emplace_back(ev.type, ev.object->metadata.resource_version);
        return true;
      },
      cancel);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_THAT(seen, ElementsAre(std::pair(WatchEventType::kAdded, std::string("50")),
                                std::pair(WatchEventType::kModified, std::string("51")),
                                std::pair(WatchEventType::kBookmark, std::string("55")),
                                std::pair(WatchEventType::kDeleted, std::string("56"))));
  EXPECT_THAT(Targets().back(), HasSubstr("allowWatchBookmarks=true"));
  EXPECT_THAT(Targets().back(), HasSubstr("resourceVersion=49"));
}

TEST_P(RestClientsetTest, WatchErrorEventIsGone) {
  watch_lines_ = {R"({"type":"ADDED","object":)" + PodJson("a", "50") + "}",
                  R"({"type":"ERROR","object":)" + GoneStatus() + "}"};
  int events = 0;
  CancelToken cancel;
  Status st = clients_->Pods().Watch(
      "", {.resource_version = "5"},
      [&](WatchEvent<api::core::v1::Pod>) {
        ++events;
        return true;
      },
      cancel);
  EXPECT_TRUE(IsGone(st)) << st.ToString();
  EXPECT_EQ(events, 1);
}

TEST_P(RestClientsetTest, WatchHandlerStops) {
  watch_lines_ = {R"({"type":"ADDED","object":)" + PodJson("a", "50") + "}",
                  R"({"type":"ADDED","object":)" + PodJson("b", "51") + "}"};
  int events = 0;
  CancelToken cancel;
  Status st = clients_->Pods().Watch(
      "", {},
      [&](WatchEvent<api::core::v1::Pod>) {
        ++events;
        return false;
      },
      cancel);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(events, 1);
}

TEST_P(RestClientsetTest, UndecodableWatchEventIsAnError) {
  watch_lines_ = {R"({"type":"ADDED","object":{"metadata":"not an object"}})"};
  CancelToken cancel;
  Status st = clients_->Pods().Watch(
      "", {}, [&](WatchEvent<api::core::v1::Pod>) { return true; }, cancel);
  EXPECT_FALSE(st.ok());
}

// What goes on the wire: Accept and request bodies follow the client's content type; patch
// bodies stay JSON.
TEST_P(RestClientsetTest, RequestsCarryTheContentType) {
  using api::core::v1::Pod;
  Pod p;
  p.metadata.name = "a";
  p.metadata.namespace_ = "default";
  auto& pods = clients_->Pods();
  ASSERT_TRUE(pods.Get("default", "a").ok());
  ASSERT_TRUE(pods.Create(p).ok());
  ASSERT_TRUE(pods.Patch("default", "a", PatchType::kMerge, "{}", {}, "").ok());
  watch_lines_ = {R"({"type":"ADDED","object":)" + PodJson("a", "50") + "}"};
  CancelToken cancel;
  ASSERT_TRUE(pods.Watch(
                      "default", {}, [](WatchEvent<Pod>) { return true; }, cancel)
                  .ok());

  const auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 4u);
  const bool proto = GetParam().client == transport::ContentType::kProtobuf;
  for (const auto& r : requests) {
    EXPECT_EQ(r.headers.at("accept").starts_with("application/vnd.kubernetes.protobuf"), proto)
        << r.method << " " << r.headers.at("accept");
  }
  EXPECT_EQ(requests[0].headers.at("accept"),
            proto ? "application/vnd.kubernetes.protobuf, application/json" : "application/json");
  EXPECT_EQ(requests[1].headers.at("content-type"),
            proto ? "application/vnd.kubernetes.protobuf" : "application/json");
  if (proto) {
    EXPECT_TRUE(requests[1].body.starts_with(api::codec::kProtobufMagic));
    auto sent = api::codec::DecodeProtobuf<Pod>(requests[1].body);
    ASSERT_TRUE(sent.ok()) << sent.status().ToString();
    EXPECT_EQ(sent->metadata.name, "a");
    EXPECT_EQ(sent->kind, "Pod");
    EXPECT_EQ(requests[3].headers.at("accept"),
              "application/vnd.kubernetes.protobuf;stream=watch, application/json");
  }
  EXPECT_EQ(requests[2].headers.at("content-type"), "application/merge-patch+json");
  EXPECT_EQ(requests[2].body, "{}");
}

INSTANTIATE_TEST_SUITE_P(Encodings, RestClientsetTest, ::testing::ValuesIn(kEncodings),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace svcplane::client::typed
