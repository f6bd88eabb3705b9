#include "client/transport/rest_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "client/errors.h"
#include "client/transport/https_transport.h"
#include "client/transport/testing/tls_test_server.h"

namespace svcplane::client::transport {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TestCerts;
using testing::TestRequest;
using testing::TestResponse;
using testing::TlsTestServer;

TEST(ResourcePathTest, CoreGroupedNamespacedClusterAndSubresource) {
  EXPECT_EQ(ResourcePath({.resource = "pods", .namespace_ = "default"}),
            "/api/v1/namespaces/default/pods");
  EXPECT_EQ(ResourcePath({.resource = "nodes", .name = "n1"}), "/api/v1/nodes/n1");
  EXPECT_EQ(ResourcePath({.resource = "pods"}), "/api/v1/pods");
  EXPECT_EQ(ResourcePath({.group = "discovery.k8s.io",
                          .resource = "endpointslices",
                          .namespace_ = "ns",
                          .name = "s-abc"}),
            "/apis/discovery.k8s.io/v1/namespaces/ns/endpointslices/s-abc");
  EXPECT_EQ(
      ResourcePath(
          {.resource = "services", .namespace_ = "ns", .name = "web", .subresource = "status"}),
      "/api/v1/namespaces/ns/services/web/status");
  EXPECT_EQ(ResourcePath({.resource = "namespaces", .name = "x", .subresource = "finalize"}),
            "/api/v1/namespaces/x/finalize");
}

TEST(EncodeQueryTest, SortedAndEscapedLikeGo) {
  ListOptions o;
  o.label_selector = "app=web,tier in (a,b)";
  o.field_selector = "metadata.name=x";
  o.limit = 500;
  o.continue_token = "eyJ2Ijo+/=";
  o.resource_version = "0";
  o.resource_version_match = "NotOlderThan";
  o.timeout_seconds = 300;
  o.allow_watch_bookmarks = true;
  o.watch = true;
  EXPECT_EQ(EncodeQuery(o),
            "?allowWatchBookmarks=true&continue=eyJ2Ijo%2B%2F%3D&"
            "fieldSelector=metadata.name%3Dx&labelSelector=app%3Dweb%2Ctier+in+%28a%2Cb%29&"
            "limit=500&resourceVersion=0&resourceVersionMatch=NotOlderThan&timeoutSeconds=300&"
            "watch=true");
  EXPECT_EQ(EncodeQuery({}), "");
}

HttpResponse Response(int status, std::string body, HttpHeaders headers = {}) {
  return HttpResponse{status, std::move(headers), std::move(body)};
}

std::string StatusBody(int code, const std::string& reason, const std::string& message,
                       const std::string& details = "") {
  std::string s = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)";
  s += R"("message":")" + message + R"(","reason":")" + reason + "\"";
  if (!details.empty()) s += R"(,"details":)" + details;
  return s + R"(,"code":)" + std::to_string(code) + "}";
}

TEST(ErrorFromResponseTest, MapsStatusReasons) {
  struct Case {
    int http;
    std::string reason;
    Code code;
    bool (*pred)(const Status&);
  };
  const Case cases[] = {
      {404, "NotFound", Code::kNotFound, IsNotFound},
      {409, "AlreadyExists", Code::kAlreadyExists, IsAlreadyExists},
      {409, "Conflict", Code::kConflict, IsConflict},
      {410, "Expired", Code::kGone, IsResourceExpired},
      {410, "Gone", Code::kGone, IsGone},
      {422, "Invalid", Code::kInvalid, IsInvalid},
      {400, "BadRequest", Code::kBadRequest, IsBadRequest},
      {403, "Forbidden", Code::kForbidden, IsForbidden},
      {401, "Unauthorized", Code::kUnauthorized, IsUnauthorized},
      {429, "TooManyRequests", Code::kTooManyRequests, IsTooManyRequests},
      {503, "ServiceUnavailable", Code::kUnavailable, IsServiceUnavailable},
      {504, "Timeout", Code::kTimeout, IsTimeout},
      {500, "InternalError", Code::kInternal, IsInternalError},
      {405, "MethodNotAllowed", Code::kMethodNotAllowed, IsMethodNotSupported},
      {415, "UnsupportedMediaType", Code::kUnsupportedMediaType, nullptr},
      {413, "RequestEntityTooLarge", Code::kRequestEntityTooLarge, nullptr},
      // An unknown reason falls back to the HTTP code.
      {409, "SomethingNew", Code::kConflict, IsConflict},
  };
  for (const Case& c : cases) {
    Status s = ErrorFromResponse(Response(c.http, StatusBody(c.http, c.reason, "msg " + c.reason)));
    EXPECT_EQ(s.code(), c.code) << c.reason;
    EXPECT_EQ(s.message(), "msg " + c.reason);
    if (c.pred) {
      EXPECT_TRUE(c.pred(s)) << c.reason;
    }
  }
}

TEST(ErrorFromResponseTest, KeepsCausesOfInvalid) {
  Status s = ErrorFromResponse(Response(
      422, StatusBody(422, "Invalid", "Service \\\"x\\\" is invalid",
                      R"({"name":"x","kind":"Service","causes":[{"reason":"FieldValueInvalid",)"
                      R"("message":"Invalid value: 70000","field":"spec.ports[0].port"}]})")));
  EXPECT_TRUE(IsInvalid(s));
  EXPECT_EQ(s.message(), "Service \"x\" is invalid");
  EXPECT_THAT(s.causes(), ElementsAre(StatusCause{"FieldValueInvalid", "spec.ports[0].port",
                                                  "Invalid value: 70000"}));
}

TEST(ErrorFromResponseTest, RetryAfterFromHeaderOrDetails) {
  Status a = ErrorFromResponse(
      Response(429, StatusBody(429, "TooManyRequests", "slow down"), {{"Retry-After", "7"}}));
  EXPECT_TRUE(IsTooManyRequests(a));
  EXPECT_EQ(RetryAfterSeconds(a), 7);
  Status b = ErrorFromResponse(
      Response(429, StatusBody(429, "TooManyRequests", "slow down", R"({"retryAfterSeconds":3})")));
  EXPECT_EQ(RetryAfterSeconds(b), 3);
  Status c = ErrorFromResponse(Response(503, "", {{"Retry-After", "2"}}));
  EXPECT_TRUE(IsServiceUnavailable(c));
  EXPECT_EQ(RetryAfterSeconds(c), 2);
  EXPECT_EQ(RetryAfterSeconds(ErrorFromResponse(Response(404, ""))), std::nullopt);
}

TEST(ErrorFromResponseTest, NonStatusBodiesMapByHttpCode) {
  Status nf = ErrorFromResponse(Response(404, "404 page not found"));
  EXPECT_TRUE(IsNotFound(nf));
  EXPECT_EQ(nf.message(), "the server could not find the requested resource");
  Status ise = ErrorFromResponse(Response(500, "boom"));
  EXPECT_TRUE(IsInternalError(ise));
  EXPECT_THAT(ise.message(), HasSubstr("(\"boom\")"));
  EXPECT_TRUE(IsBadRequest(ErrorFromResponse(Response(418, ""))));
  EXPECT_TRUE(IsServiceUnavailable(ErrorFromResponse(Response(502, ""))));
}

// A fake API server: records requests and answers from a small script.
class RestClientTest : public ::testing::Test {
 public:
  RestClientTest()
      : server_([this](const TestRequest& r) { return Handle(r); }),
        client_(MakeTransport(server_)) {}

  static std::shared_ptr<HttpTransport> MakeTransport(const TlsTestServer& server) {
    RestConfig c;
    c.host = server.url();
    c.ca_pem = TestCerts::Get().ca_pem;
    c.qps = -1;
    return std::shared_ptr<HttpTransport>(std::move(*HttpsTransport::Create(c)));
  }

 protected:
  TestResponse Handle(const TestRequest& r) {
    TestResponse res;
    res.headers = {{"Content-Type", "application/json"}};
    if (r.target.find("/secrets") != std::string::npos) {
      res.status = 403;
      res.body =
          StatusBody(403, "Forbidden",
                     R"(secrets is forbidden: User \"bob\" cannot watch resource \"secrets\")");
      return res;
    }
    if (r.target.find("watch=true") != std::string::npos) {
      res.stream = [this](const testing::ChunkWriter& write) {
        for (const std::string& e : watch_events_) write(e + "\n");
      };
      return res;
    }
    if (r.target.starts_with("/api/v1/namespaces/default/services/missing")) {
      res.status = 404;
      res.body = StatusBody(404, "NotFound", "services \\\"missing\\\" not found",
                            R"({"name":"missing","kind":"services"})");
      return res;
    }
    res.body = R"({"kind":"Service","apiVersion":"v1","metadata":{"name":"web",)"
               R"("namespace":"default","resourceVersion":"12"},"spec":{"clusterIP":"10.0.0.1"}})";
    return res;
  }

  std::vector<std::string> watch_events_;
  TlsTestServer server_;
  RestClient client_;
};

TEST_F(RestClientTest, VerbsPathsQueriesAndContentTypes) {
  const ResourceRef web{.resource = "services", .namespace_ = "default", .name = "web"};
  const ResourceRef all{.resource = "services", .namespace_ = "default"};
  ASSERT_TRUE(client_.Get(web, {.resource_version = "0"}).ok());
  ASSERT_TRUE(client_.List(all, {.label_selector = "app=web", .limit = 10}).ok());
  ASSERT_TRUE(client_.Create(all, "{\"c\":1}", {.field_manager = "svcplane"}).ok());
  ASSERT_TRUE(client_.Update(web, "{\"u\":1}", {.dry_run = true}).ok());
  ASSERT_TRUE(client_.Patch(web, PatchType::kStrategicMerge, "{\"p\":1}").ok());
  ASSERT_TRUE(
      client_.Delete(web, {.propagation_policy = "Background", .precondition_uid = "u-1"}).ok());
  auto reqs = server_.requests();
  ASSERT_EQ(reqs.size(), 6u);
  EXPECT_EQ(reqs[0].method, "GET");
  EXPECT_EQ(reqs[0].target, "/api/v1/namespaces/default/services/web?resourceVersion=0");
  EXPECT_EQ(reqs[0].headers["accept"], "application/json");
  EXPECT_EQ(reqs[1].target, "/api/v1/namespaces/default/services?labelSelector=app%3Dweb&limit=10");
  EXPECT_EQ(reqs[2].method, "POST");
  EXPECT_EQ(reqs[2].target, "/api/v1/namespaces/default/services?fieldManager=svcplane");
  EXPECT_EQ(reqs[2].headers["content-type"], "application/json");
  EXPECT_EQ(reqs[2].body, "{\"c\":1}");
  EXPECT_EQ(reqs[3].method, "PUT");
  EXPECT_EQ(reqs[3].target, "/api/v1/namespaces/default/services/web?dryRun=All");
  EXPECT_EQ(reqs[4].method, "PATCH");
  EXPECT_EQ(reqs[4].headers["content-type"], "application/strategic-merge-patch+json");
  EXPECT_EQ(reqs[5].method, "DELETE");
  EXPECT_EQ(reqs[5].body,
            R"({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background",)"
            R"("preconditions":{"uid":"u-1"}})");
  EXPECT_EQ(server_.connections_accepted(), 1);  // all over one keep-alive connection
}

TEST_F(RestClientTest, TypedGetDecodesAndErrorsMap) {
  auto svc = client_.GetAs<api::core::v1::Service>(
      {.resource = "services", .namespace_ = "default", .name = "web"});
  ASSERT_TRUE(svc.ok()) << svc.status().ToString();
  EXPECT_EQ(svc->metadata.name, "web");
  EXPECT_EQ(svc->metadata.resource_version, "12");

  auto missing = client_.Get({.resource = "services", .namespace_ = "default", .name = "missing"});
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(IsNotFound(missing.status()));
  EXPECT_EQ(missing.status().message(), "services \"missing\" not found");
}

TEST_F(RestClientTest, WatchDeliversEventsAndForcesWatchParameter) {
  watch_events_ = {
      R"({"type":"ADDED","object":{"kind":"Service","metadata":{"name":"a","resourceVersion":"5"}}})",
      R"({"type":"BOOKMARK","object":{"kind":"Service","metadata":{"resourceVersion":"9"}}})",
      R"({"type":"DELETED","object":{"kind":"Service","metadata":{"name":"a","resourceVersion":"10"}}})",
  };
  CancelToken cancel;
  std::vector<std::string> types;
  Status s = client_.Watch(
      {.resource = "services"}, {.resource_version = "4", .allow_watch_bookmarks = true},
      [&](const api::codec::RawWatchEvent& e) {
        types.push_back(e.type);
        return true;
      },
      cancel);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_THAT(types, ElementsAre("ADDED", "BOOKMARK", "DELETED"));
  EXPECT_EQ(server_.requests()[0].target,
            "/api/v1/services?allowWatchBookmarks=true&resourceVersion=4&watch=true");
}

TEST_F(RestClientTest, WatchErrorEventEndsWithItsStatus) {
  watch_events_ = {
      R"({"type":"ADDED","object":{"kind":"Service","metadata":{"name":"a"}}})",
      R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},)j"
      R"j("status":"Failure","message":"too old resource version: 4 (10)","reason":"Expired",)j"
      R"j("code":410}})j",
      R"({"type":"ADDED","object":{"kind":"Service","metadata":{"name":"never"}}})",
  };
  CancelToken cancel;
  int events = 0;
  Status s = client_.Watch(
      {.resource = "services"}, {.resource_version = "4"},
      [&](const api::codec::RawWatchEvent&) {
        ++events;
        return true;
      },
      cancel);
  EXPECT_TRUE(IsResourceExpired(s)) << s.ToString();
  EXPECT_EQ(s.message(), "too old resource version: 4 (10)");
  EXPECT_EQ(events, 1);
}

TEST_F(RestClientTest, RefusedWatchMapsError) {
  CancelToken cancel;
  Status s = client_.Watch(
      {.resource = "secrets", .namespace_ = "kube-system"}, {},
      [](const api::codec::RawWatchEvent&) { return true; }, cancel);
  EXPECT_TRUE(IsForbidden(s)) << s.ToString();
  EXPECT_EQ(s.message(), "secrets is forbidden: User \"bob\" cannot watch resource \"secrets\"");
}

TEST(RestClientRetryTest, WaitsOutRetryAfterThenSucceeds) {
  std::atomic<int> calls{0};
  TlsTestServer server([&](const TestRequest&) {
    TestResponse r;
    if (++calls <= 2) {
      r.status = 429;
      r.headers = {{"Retry-After", "2"}};
      r.body = StatusBody(429, "TooManyRequests", "slow down");
    } else {
      r.body = "{}";
    }
    return r;
  });
  FakeClock clock;
  RestClient client(RestClientTest::MakeTransport(server), {.clock = &clock});
  auto result = std::async(std::launch::async, [&] { return client.Get({.resource = "pods"}); });
  for (int i = 0; i < 2; ++i) {
    clock.BlockUntilWaiters(1);
    EXPECT_EQ(calls.load(), i + 1);
    clock.Advance(std::chrono::seconds(2));
    // The retry has been sent once the server sees the next call.
    while (calls.load() < i + 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  auto r = result.get();
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(calls.load(), 3);
}

TEST(RestClientRetryTest, GivesUpAfterMaxRetriesWithRetryAfterInError) {
  std::atomic<int> calls{0};
  TlsTestServer server([&](const TestRequest&) {
    ++calls;
    TestResponse r;
    r.status = 503;
    r.headers = {{"Retry-After", "1"}};
    return r;
  });
  RestClient client(RestClientTest::MakeTransport(server), {.max_retries = 0});
  auto r = client.Get({.resource = "pods"});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsServiceUnavailable(r.status()));
  EXPECT_EQ(RetryAfterSeconds(r.status()), 1);
  EXPECT_EQ(calls.load(), 1);
}

TEST(RestClientRetryTest, ConflictIsNotRetried) {
  std::atomic<int> calls{0};
  TlsTestServer server([&](const TestRequest&) {
    ++calls;
    TestResponse r;
    r.status = 409;
    r.body = StatusBody(409, "Conflict", "the object has been modified");
    return r;
  });
  RestClient client(RestClientTest::MakeTransport(server));
  EXPECT_TRUE(IsConflict(client.Update({.resource = "pods", .name = "p"}, "{}").status()));
  EXPECT_EQ(calls.load(), 1);
}

}  // namespace
}  // namespace svcplane::client::transport
