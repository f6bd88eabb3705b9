#include "apiserver/audit/auditor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <mutex>

#include "api/codec/protobuf.h"
#include "api/core/v1/pod.h"
#include "apiserver/http/status_response.h"

namespace svcplane::apiserver::audit {
namespace {

namespace json = boost::json;

class MemorySink final : public Sink {
 public:
  void Write(std::string line, bool may_wait) override {
    std::lock_guard lock(mu);
    lines.push_back(std::move(line));
    waits.push_back(may_wait);
  }
  std::vector<json::object> Events() {
    std::lock_guard lock(mu);
    std::vector<json::object> out;
    for (const auto& l : lines) out.push_back(json::parse(l).as_object());
    return out;
  }
  std::mutex mu;
  std::vector<std::string> lines;
  std::vector<bool> waits;
};

Policy MustParse(std::string_view text) {
  auto p = ParsePolicy(text);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return *p;
}

constexpr std::string_view kMetadataForAll = R"(apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
)";

constexpr std::string_view kRequestForPods = R"(apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/healthz*"]
- level: Request
  resources: [{group: "", resources: ["pods"]}]
- level: RequestResponse
  resources: [{group: "", resources: ["services"]}]
- level: Metadata
)";

http::Request Req(std::string method, std::string target, std::string body = "") {
  http::Request r;
  r.method = std::move(method);
  r.target = target;
  auto q = target.find('?');
  r.path = target.substr(0, q);
  if (q != std::string::npos) {
    r.raw_query = target.substr(q + 1);
    auto eq = r.raw_query.find('=');
    r.query.emplace_back(r.raw_query.substr(0, eq),
                         eq == std::string::npos ? "" : r.raw_query.substr(eq + 1));
  }
  r.body = std::move(body);
  r.remote_address = "127.0.0.1:40000";
  r.identity = http::Identity{"admin", {"system:masters", "system:authenticated"}};
  r.headers = {{"User-Agent", "kubectl/v1.33.1"}, {"Content-Type", "application/json"}};
  r.received_at = std::chrono::system_clock::now();
  return r;
}

struct Fixture {
  explicit Fixture(std::string_view policy)
      : sink(std::make_shared<MemorySink>()), auditor(MustParse(policy), sink) {}
  http::Reply Run(const http::Request& req, http::Handler inner) {
    return auditor.Wrap(std::move(inner))(req);
  }
  std::shared_ptr<MemorySink> sink;
  Auditor auditor;
};

http::Handler Answer(int code, std::string body) {
  return [code, body](const http::Request&) -> http::Reply {
    http::Response r;
    r.status = code;
    r.body = body;
    return r;
  };
}

TEST(AuditorTest, ListAtMetadataLogsOneResponseCompleteLine) {
  Fixture f(kMetadataForAll);
  f.Run(Req("GET", "/api/v1/namespaces/demo/pods?limit=500"), Answer(200, R"({"kind":"PodList"})"));
  auto events = f.sink->Events();
  ASSERT_EQ(events.size(), 1u);
  const json::object& e = events[0];
  EXPECT_EQ(e.at("kind"), "Event");
  EXPECT_EQ(e.at("apiVersion"), "audit.k8s.io/v1");
  EXPECT_EQ(e.at("level"), "Metadata");
  EXPECT_EQ(e.at("stage"), "ResponseComplete");
  EXPECT_EQ(e.at("requestURI"), "/api/v1/namespaces/demo/pods?limit=500");
  EXPECT_EQ(e.at("verb"), "list");
  EXPECT_EQ(json::serialize(e.at("user")),
            R"({"username":"admin","groups":["system:masters","system:authenticated"]})");
  EXPECT_EQ(json::serialize(e.at("sourceIPs")), R"(["127.0.0.1"])");
  EXPECT_EQ(e.at("userAgent"), "kubectl/v1.33.1");
  EXPECT_EQ(json::serialize(e.at("objectRef")),
            R"({"resource":"pods","namespace":"demo","apiVersion":"v1"})");
  EXPECT_EQ(json::serialize(e.at("responseStatus")), R"({"metadata":{},"code":200})");
  EXPECT_EQ(e.at("auditID").as_string().size(), 36u);  // a UUID
  EXPECT_FALSE(e.contains("requestObject"));
  EXPECT_FALSE(e.contains("responseObject"));
  EXPECT_FALSE(e.contains("annotations"));
  EXPECT_TRUE(f.sink->waits[0]);  // written from the request's thread: blocking applies
}

TEST(AuditorTest, StagesTimestampsAndAuditIdHeader) {
  Fixture f(R"(apiVersion: audit.k8s.io/v1
kind: Policy
rules: [{level: Metadata}]
)");
  http::Request req = Req("GET", "/api");
  req.headers.emplace_back("Audit-ID", "abc");
  f.Run(req, Answer(200, "{}"));
  auto events = f.sink->Events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].at("stage"), "RequestReceived");
  EXPECT_FALSE(events[0].contains("responseStatus"));
  EXPECT_EQ(events[1].at("stage"), "ResponseComplete");
  EXPECT_EQ(events[0].at("auditID"), "abc");
  EXPECT_EQ(events[1].at("auditID"), "abc");
  EXPECT_EQ(events[0].at("verb"), "get");  // non-resource: the method, lowercase
  EXPECT_FALSE(events[0].contains("objectRef"));
  EXPECT_EQ(events[0].at("requestReceivedTimestamp"), events[1].at("requestReceivedTimestamp"));
  EXPECT_EQ(events[1].at("stageTimestamp").as_string().size(), 27u);
}

TEST(AuditorTest, CreateLogsObjectNameFromTheBody) {
  Fixture f(kMetadataForAll);
  f.Run(Req("POST", "/api/v1/namespaces/demo/pods",
            R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p9","namespace":"demo"}})"),
        Answer(201, "{}"));
  auto events = f.sink->Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].at("verb"), "create");
  EXPECT_EQ(json::serialize(events[0].at("objectRef")),
            R"({"resource":"pods","namespace":"demo","name":"p9","apiVersion":"v1"})");
  EXPECT_EQ(json::serialize(events[0].at("responseStatus")), R"({"metadata":{},"code":201})");
  EXPECT_FALSE(events[0].contains("requestObject"));  // Metadata level
}

TEST(AuditorTest, RequestLevelLogsRequestObjectOnCreateNotOnGet) {
  Fixture f(kRequestForPods);
  f.Run(Req("POST", "/api/v1/namespaces/demo/pods",
            "{\"kind\":\"Pod\",\n \"metadata\": {\"name\":\"p1\"}}"),
        Answer(201, R"({"kind":"Pod"})"));
  f.Run(Req("GET", "/api/v1/namespaces/demo/pods/p1"), Answer(200, R"({"kind":"Pod"})"));
  f.Run(Req("GET", "/healthz"), Answer(200, "ok"));  // None
  auto events = f.sink->Events();
  ASSERT_EQ(events.size(), 4u);  // RequestReceived + ResponseComplete each
  EXPECT_EQ(events[1].at("level"), "Request");
  EXPECT_EQ(json::serialize(events[1].at("requestObject")),
            R"({"kind":"Pod","metadata":{"name":"p1"}})");
  EXPECT_FALSE(events[0].contains("requestObject"));  // RequestReceived: not decoded yet
  EXPECT_FALSE(events[1].contains("responseObject"));
  EXPECT_FALSE(events[3].contains("requestObject"));
  EXPECT_EQ(events[3].at("verb"), "get");
}

TEST(AuditorTest, ProtobufBodyIsLoggedAsJson) {
  Fixture f(kRequestForPods);
  api::core::v1::Pod pod;
  pod.metadata.name = "pb";
  pod.metadata.namespace_ = "demo";
  std::string body = api::codec::EncodeProtobuf(pod, "v1", "Pod");
  http::Request req = Req("POST", "/api/v1/namespaces/demo/pods", body);
  req.headers = {{"Content-Type", "application/vnd.kubernetes.protobuf"}};
  f.Run(req, Answer(201, "{}"));
  auto events = f.sink->Events();
  ASSERT_EQ(events.size(), 2u);
  const json::object& ro = events[1].at("requestObject").as_object();
  EXPECT_EQ(ro.at("kind"), "Pod");
  EXPECT_EQ(ro.at("apiVersion"), "v1");
  EXPECT_EQ(ro.at("metadata").at("name"), "pb");
  EXPECT_EQ(events[1].at("objectRef").at("name"), "pb");
}

TEST(AuditorTest, PatchBodyIsLoggedAsSentAndObjectRefKeepsTheUrlName) {
  Fixture f(kRequestForPods);
  http::Request req = Req("PATCH", "/api/v1/namespaces/demo/pods/p1",
                          R"([{"op":"add","path":"/metadata/labels/a","value":"b"}])");
  req.headers = {{"Content-Type", "application/json-patch+json"}};
  f.Run(req, Answer(200, "{}"));
  auto events = f.sink->Events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].at("verb"), "patch");
  EXPECT_EQ(json::serialize(events[1].at("requestObject")),
            R"([{"op":"add","path":"/metadata/labels/a","value":"b"}])");
  EXPECT_EQ(events[1].at("objectRef").at("name"), "p1");
}

TEST(AuditorTest, StatusResponsesFillResponseStatus) {
  Fixture f(kMetadataForAll);
  http::Response notfound = http::StatusResponse(404, "NotFound", "pods \"x\" not found");
  f.Run(Req("GET", "/api/v1/namespaces/demo/pods/x"),
        [&](const http::Request&) -> http::Reply { return notfound; });
  auto events = f.sink->Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(
      json::serialize(events[0].at("responseStatus")),
      R"({"metadata":{},"status":"Failure","message":"pods \"x\" not found","reason":"NotFound","code":404})");
}

TEST(AuditorTest, RequestResponseLogsTheResponseObjectAlsoForSourcedBodies) {
  Fixture f(kRequestForPods);
  f.Run(Req("GET", "/api/v1/namespaces/demo/services/s"),
        Answer(200, R"({"kind":"Service","metadata":{"name":"s"}})"));
  auto reply = f.Run(Req("GET", "/api/v1/services"), [](const http::Request&) -> http::Reply {
    http::Response r;
    auto pieces = std::make_shared<std::vector<std::string>>(
        std::vector<std::string>{R"({"kind":"ServiceList",)", R"("items":[]})"});
    r.body_source = [pieces, i = size_t{0}](std::string* out) mutable {
      out->append((*pieces)[i++]);
      return i < pieces->size();
    };
    return r;
  });
  EXPECT_EQ(f.sink->Events().size(), 3u);  // the list's ResponseComplete waits for its body
  http::DrainBody(std::get<http::Response>(reply));
  auto events = f.sink->Events();
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(json::serialize(events[1].at("responseObject")),
            R"({"kind":"Service","metadata":{"name":"s"}})");
  EXPECT_EQ(events[3].at("stage"), "ResponseComplete");
  EXPECT_EQ(json::serialize(events[3].at("responseObject")),
            R"({"kind":"ServiceList","items":[]})");
  EXPECT_FALSE(f.sink->waits[3]);  // written while the body is sent: only queued
}

// Whatever the policy asks, a Secret's body is never logged: its requests are audited at
// Metadata level (and say so). Other kinds keep the policy's level.
TEST(AuditorTest, SecretsAreLoggedAtMetadataLevelAtMost) {
  constexpr std::string_view kEverything = R"(apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: RequestResponse
)";
  Fixture f(kEverything);
  const std::string secret =
      R"({"kind":"Secret","apiVersion":"v1","metadata":{"name":"db"},"data":{"pw":"aHVudGVyMg=="},)"
      R"("stringData":{"token":"hunter3"}})";
  f.Run(Req("POST", "/api/v1/namespaces/demo/secrets", secret), Answer(201, secret));
  f.Run(Req("GET", "/api/v1/namespaces/demo/secrets/db"), Answer(200, secret));
  f.Run(Req("PATCH", "/api/v1/namespaces/demo/secrets/db", R"({"stringData":{"a":"hunter4"}})"),
        Answer(200, secret));
  const std::string cm = R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c"}})";
  f.Run(Req("POST", "/api/v1/namespaces/demo/configmaps", cm), Answer(201, cm));
  auto events = f.sink->Events();
  ASSERT_EQ(events.size(), 4u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(events[i].at("level"), "Metadata") << i;
    EXPECT_FALSE(events[i].contains("requestObject")) << i;
    EXPECT_FALSE(events[i].contains("responseObject")) << i;
  }
  EXPECT_EQ(events[0].at("objectRef").at("name"), "db");  // the name is still recorded
  EXPECT_EQ(events[3].at("level"), "RequestResponse");
  EXPECT_TRUE(events[3].contains("requestObject"));
  EXPECT_TRUE(events[3].contains("responseObject"));
  std::lock_guard lock(f.sink->mu);
  for (const auto& line : f.sink->lines) {
    for (auto value : {"aHVudGVyMg==", "hunter3", "hunter4"}) {
      EXPECT_EQ(line.find(value), std::string::npos) << line;
    }
  }
}

TEST(AuditorTest, LaterStagesAnnotateTheContext) {
  Fixture f(kMetadataForAll);
  f.Run(Req("GET", "/api/v1/namespaces/demo/pods"), [](const http::Request& req) -> http::Reply {
    EXPECT_NE(ContextOf(req), nullptr);
    SetAuthorizationDecision(req, true, "");
    SetImpersonatedUser(req, http::Identity{"bob", {"dev", "system:authenticated"}, "u9"});
    AddAnnotation(req, "authorization.k8s.io/decision", "forbid");  // the first value stays
    return http::Response{};
  });
  auto events = f.sink->Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(json::serialize(events[0].at("annotations")),
            R"({"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""})");
  EXPECT_EQ(json::serialize(events[0].at("impersonatedUser")),
            R"({"username":"bob","uid":"u9","groups":["dev","system:authenticated"]})");
  EXPECT_EQ(events[0].at("user").at("username"), "admin");
}

TEST(AuditorTest, LevelNoneAttachesNothing) {
  Fixture f(kRequestForPods);
  f.Run(Req("GET", "/healthz"), [](const http::Request& req) -> http::Reply {
    EXPECT_EQ(ContextOf(req), nullptr);
    SetAuthorizationDecision(req, true, "x");  // a no-op
    return http::Response{};
  });
  EXPECT_TRUE(f.sink->lines.empty());
}

TEST(AuditorTest, FailedAuthenticationIsOneResponseStartedEventWithoutUser) {
  Fixture f(kMetadataForAll);
  http::Request req = Req("GET", "/api/v1/namespaces/demo/pods?limit=500");
  req.identity = {};
  f.auditor.LogFailedAuthentication(req, http::StatusResponse(401, "Unauthorized", "Unauthorized"));
  auto events = f.sink->Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].at("stage"), "ResponseStarted");
  EXPECT_EQ(json::serialize(events[0].at("user")), "{}");
  EXPECT_EQ(
      json::serialize(events[0].at("responseStatus")),
      R"({"metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})");
  EXPECT_FALSE(f.sink->waits[0]);  // on the I/O thread: never waits
}

TEST(AuditorTest, AHandlerThatThrowsLogsPanic) {
  Fixture f(kMetadataForAll);
  EXPECT_THROW(f.Run(Req("GET", "/api/v1/pods"),
                     [](const http::Request&) -> http::Reply { throw std::runtime_error("boom"); }),
               std::runtime_error);
  auto events = f.sink->Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].at("stage"), "Panic");
  EXPECT_EQ(
      json::serialize(events[0].at("responseStatus")),
      R"({"metadata":{},"status":"Failure","message":"APIServer panic'd: boom","reason":"InternalError","code":500})");
}

TEST(AuditorTest, NoPolicyOrNoPathMeansNoAuditor) {
  AuditOptions o;
  o.log.path = "/tmp/never-written.log";
  auto a = NewAuditor(o);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, nullptr);
  o.log.path.clear();
  o.policy_file = "/nonexistent";
  a = NewAuditor(o);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, nullptr);
}

}  // namespace
}  // namespace svcplane::apiserver::audit
