// RestClient with ContentType::kProtobuf: typed calls send and accept protobuf, decode whatever
// the server answers, and map protobuf Status errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>

#include "api/codec/json.h"
#include "api/codec/protobuf.h"
#include "client/errors.h"
#include "client/transport/https_transport.h"
#include "client/transport/rest_client.h"
#include "client/transport/testing/tls_test_server.h"

namespace svcplane::client::transport {
namespace {

using testing::TestCerts;
using testing::TestRequest;
using testing::TestResponse;
using testing::TlsTestServer;

class RestClientProtobufTest : public ::testing::Test {
 public:
  RestClientProtobufTest()
      : server_([this](const TestRequest& r) { return Handle(r); }),
        client_(MakeTransport(server_), {.content_type = ContentType::kProtobuf}) {}

  static std::shared_ptr<HttpTransport> MakeTransport(const TlsTestServer& server) {
    RestConfig c;
    c.host = server.url();
    c.ca_pem = TestCerts::Get().ca_pem;
    c.qps = -1;
    return std::shared_ptr<HttpTransport>(std::move(*HttpsTransport::Create(c)));
  }

 protected:
  TestResponse Handle(const TestRequest& r) {
    {
      std::lock_guard lock(mu_);
      requests_.push_back(r);
    }
    TestResponse res;
    res.headers = {{"Content-Type", std::string(api::codec::kProtobufContentType)}};
    if (r.target.find("/missing") != std::string::npos) {
      api::meta::StatusObject st;
      st.status = "Failure";
      st.reason = "NotFound";
      st.message = "services \"missing\" not found";
      st.code = 404;
      res.status = 404;
      res.body = api::codec::EncodeProtobuf(st, "v1", "Status");
      return res;
    }
    if (r.target.find("/json-only") != std::string::npos) {  // a JSON-only server
      res.headers = {{"Content-Type", "application/json"}};
      res.body = R"({"kind":"Service","apiVersion":"v1","metadata":{"name":"json-only"}})";
      return res;
    }
    if (r.method == "POST" || r.method == "PUT") {
      res.status = r.method == "POST" ? 201 : 200;
      res.body = r.body;  // echo: the server "stored" what we sent
      return res;
    }
    api::core::v1::Service svc;
    svc.metadata.name = "web";
    svc.metadata.resource_version = "12";
    svc.spec.cluster_ip = "10.0.0.1";
    if (r.target.starts_with("/api/v1/namespaces/default/services?")) {
      api::ServiceList list;
      list.metadata.resource_version = "12";
      list.items = {svc, svc};
      res.body = api::codec::EncodeProtobuf(list, "v1", "ServiceList");
      return res;
    }
    res.body = api::codec::EncodeProtobuf(svc, "v1", "Service");
    return res;
  }

  std::mutex mu_;
  std::vector<TestRequest> requests_;
  TlsTestServer server_;
  RestClient client_;
};

TEST_F(RestClientProtobufTest, TypedCallsSpeakProtobuf) {
  const ResourceRef web{.resource = "services", .namespace_ = "default", .name = "web"};
  const ResourceRef all{.resource = "services", .namespace_ = "default"};
  auto got = client_.GetAs<api::core::v1::Service>(web);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->kind, "Service");
  EXPECT_EQ(got->spec.cluster_ip, "10.0.0.1");

  auto list = client_.ListAs<api::ServiceList>(all, {.limit = 10});
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(list->kind, "ServiceList");
  EXPECT_EQ(list->items.size(), 2u);

  api::core::v1::Service svc;
  svc.metadata.name = "new";
  svc.unknown.items.emplace_back("notInSchema", "1");  // dropped on the wire, as upstream does
  svc.spec.unknown.items.emplace_back("clusterIP", "\"x\"");  // shadows a member: ignored
  auto created = client_.CreateAs(all, svc);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->metadata.name, "new");
  EXPECT_EQ(created->api_version, "v1");
  EXPECT_EQ(created->kind, "Service");

  std::lock_guard lock(mu_);
  ASSERT_EQ(requests_.size(), 3u);
  for (const auto& r : requests_) {
    EXPECT_EQ(r.headers.at("accept"), "application/vnd.kubernetes.protobuf, application/json");
  }
  EXPECT_EQ(requests_[2].headers.at("content-type"), api::codec::kProtobufContentType);
  EXPECT_TRUE(requests_[2].body.starts_with(api::codec::kProtobufMagic));
}

TEST_F(RestClientProtobufTest, JsonAnswersAndProtobufErrors) {
  auto json = client_.GetAs<api::core::v1::Service>(
      {.resource = "services", .namespace_ = "default", .name = "json-only"});
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  EXPECT_EQ(json->metadata.name, "json-only");

  auto missing = client_.GetAs<api::core::v1::Service>(
      {.resource = "services", .namespace_ = "default", .name = "missing"});
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(IsNotFound(missing.status())) << missing.status().ToString();
  EXPECT_THAT(missing.status().message(), ::testing::HasSubstr("\"missing\" not found"));
}

// A transport that can only stream lines (no StreamBytes): a protobuf client watches in JSON.
class LinesOnlyTransport final : public HttpTransport {
 public:
  Result<HttpResponse> Do(const HttpRequest&) override {
    return UnavailableError("not used in this test");
  }
  Result<HttpResponse> Stream(const HttpRequest& request, const LineHandler& on_line,
                              CancelToken&) override {
    accept = HttpResponse{.headers = request.headers}.Header("Accept");
    on_line(R"({"type":"ADDED","object":{"kind":"Service","apiVersion":"v1",)"
            R"("metadata":{"name":"a","resourceVersion":"7"}}})");
    return HttpResponse{.status = 200, .headers = {{"Content-Type", "application/json"}}};
  }
  std::string accept;
};

TEST(RestClientWatchFramesTest, FallsBackToJsonWithoutStreamBytes) {
  auto transport = std::make_shared<LinesOnlyTransport>();
  RestClient client(transport, {.content_type = ContentType::kProtobuf});
  std::vector<std::string> seen;
  CancelToken cancel;
  Status st = client.WatchFrames(
      {.resource = "services"}, {},
      [&](const WatchFrame& f) {
        EXPECT_FALSE(f.protobuf);
        seen.push_back(std::string(f.type) + " " + std::string(f.object));
        return true;
      },
      cancel);
  EXPECT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_THAT(seen[0], ::testing::StartsWith("ADDED {"));
  EXPECT_EQ(transport->accept, "application/json");
}

TEST(RestClientWatchFramesTest, ParsesContentType) {
  EXPECT_EQ(*ParseContentType("application/json"), ContentType::kJson);
  EXPECT_EQ(*ParseContentType("application/vnd.kubernetes.protobuf"), ContentType::kProtobuf);
  EXPECT_FALSE(ParseContentType("application/yaml").ok());
}

}  // namespace
}  // namespace svcplane::client::transport
