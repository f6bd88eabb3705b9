#include "client/typed/rest_clientset.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/codec/json.h"
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

// A fake API server answering pods and leases with canned JSON and recording requests.
class RestClientsetTest : public ::testing::Test {
 public:
  RestClientsetTest() : server_([this](const TestRequest& r) { return Handle(r); }) {
    transport::RestConfig c;
    c.host = server_.url();
    c.ca_pem = TestCerts::Get().ca_pem;
    c.qps = -1;
    clients_ = MakeRestClientset(std::shared_ptr<transport::HttpTransport>(
        std::move(*transport::HttpsTransport::Create(c))));
  }

 protected:
  TestResponse Handle(const TestRequest& r) {
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

  std::vector<std::string> watch_lines_;
  TlsTestServer server_;
  std::unique_ptr<Clientset> clients_;
};

TEST_F(RestClientsetTest, VerbsUseTheKindsPaths) {
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

TEST_F(RestClientsetTest, BindPodPostsABinding) {
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

TEST_F(RestClientsetTest, ListDecodesItemsAndListMeta) {
  auto list = clients_->Pods().List("default", {.limit = 2});
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_EQ(list->items[1]->metadata.name, "b");
  EXPECT_EQ(list->resource_version, "42");
  EXPECT_EQ(list->continue_token, "abc");
}

TEST_F(RestClientsetTest, ErrorsCarryTheReason) {
  auto got = clients_->Pods().Get("default", "missing");
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(IsNotFound(got.status()));
}

TEST_F(RestClientsetTest, WatchDecodesEventsAndBookmarks) {
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

TEST_F(RestClientsetTest, WatchErrorEventIsGone) {
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

TEST_F(RestClientsetTest, WatchHandlerStops) {
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

TEST_F(RestClientsetTest, UndecodableWatchEventIsAnError) {
  watch_lines_ = {R"({"type":"ADDED","object":{"metadata":"not an object"}})"};
  CancelToken cancel;
  Status st = clients_->Pods().Watch(
      "", {}, [&](WatchEvent<api::core::v1::Pod>) { return true; }, cancel);
  EXPECT_FALSE(st.ok());
}

}  // namespace
}  // namespace svcplane::client::typed
