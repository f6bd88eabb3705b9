#include "apiserver/audit/event.h"

#include <ctime>
#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace svcplane::apiserver::audit {
namespace {

using std::chrono::microseconds;

Timestamp At(int64_t unix_micros) { return Timestamp(microseconds(unix_micros)); }

// 2025-06-01T10:00:00Z
constexpr int64_t kJune1 = 1748772000LL * 1'000'000;

TEST(EventTest, MicroTimeHasSixDigits) {
  EXPECT_EQ(FormatMicroTime(At(kJune1 + 123456)), "2025-06-01T10:00:00.123456Z");
  EXPECT_EQ(FormatMicroTime(At(kJune1)), "2025-06-01T10:00:00.000000Z");
  EXPECT_EQ(FormatMicroTime(At(kJune1 + 100)), "2025-06-01T10:00:00.000100Z");
}

// The digits are computed without gmtime_r: the same text as gmtime_r's date for any instant,
// leap days and centuries, and before 1970, included.
TEST(EventTest, MicroTimeMatchesGmtime) {
  auto reference = [](int64_t micros) {
    int64_t secs = micros / 1'000'000, frac = micros % 1'000'000;
    if (frac < 0) {
      frac += 1'000'000;
      --secs;
    }
    std::time_t tt = static_cast<std::time_t>(secs);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", tm.tm_year + 1900,
                       tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
  };
  EXPECT_EQ(FormatMicroTime(At(951782400LL * 1'000'000)), "2000-02-29T00:00:00.000000Z");
  EXPECT_EQ(FormatMicroTime(At(-1)), "1969-12-31T23:59:59.999999Z");
  EXPECT_EQ(FormatMicroTime(At(0)), "1970-01-01T00:00:00.000000Z");
  std::mt19937_64 rng(42);
  // What a system_clock time_point (int64 nanoseconds) holds: 1677 to 2262.
  std::uniform_int_distribution<int64_t> any(-9'200'000'000'000'000LL, 9'200'000'000'000'000LL);
  for (int i = 0; i < 200'000; ++i) {
    const int64_t t = any(rng);
    ASSERT_EQ(FormatMicroTime(At(t)), reference(t)) << t;
  }
  std::string out = "x";
  AppendMicroTime(At(kJune1 + 7), &out);
  EXPECT_EQ(out, "x2025-06-01T10:00:00.000007Z");
}

// EncodeEventAt writes the event as it stands at a stage: only the stage and its time differ
// from the stored event, and what does not exist yet at the stage is left out.
TEST(EventTest, EncodeAtAStageLeavesOutWhatItCannotHold) {
  Event e;
  e.level = Level::kRequestResponse;
  e.audit_id = "a1";
  e.stage = Stage::kPanic;  // not read
  e.request_uri = "/api/v1/namespaces/demo/pods";
  e.verb = "create";
  e.user = http::Identity{"jane", {"dev"}, "", {}};
  e.object_ref = ObjectRef{.resource = "pods", .ns = "demo", .name = "p", .api_version = "v1"};
  e.response_status = ResponseStatus{.code = 201};
  e.request_object_json = R"({"kind":"Pod"})";
  e.response_object_json = R"({"kind":"Pod","metadata":{"uid":"u"}})";
  e.request_received = At(kJune1);
  e.annotations["authorization.k8s.io/decision"] = "allow";
  for (Stage stage : {Stage::kRequestReceived, Stage::kResponseStarted, Stage::kResponseComplete,
                      Stage::kPanic}) {
    Event want = e;
    want.stage = stage;
    want.stage_timestamp = At(kJune1 + 5);
    if (stage == Stage::kRequestReceived) {
      want.response_status.reset();
      want.request_object_json.clear();
      want.response_object_json.clear();
    }
    if (stage == Stage::kResponseStarted) want.response_object_json.clear();
    std::string expected, got = "prefix";
    EncodeEvent(want, &expected);
    EncodeEventAt(e, stage, At(kJune1 + 5), &got);
    EXPECT_EQ(got, "prefix" + expected) << StageName(stage);
  }
  // EncodeEvent itself leaves nothing out.
  std::string all;
  Event received = e;
  received.stage = Stage::kRequestReceived;
  EncodeEvent(received, &all);
  EXPECT_NE(all.find("responseObject"), std::string::npos);
}

// Spec §5.1's example, field by field, in upstream's order.
TEST(EventTest, EncodesTheSpecExample) {
  Event e;
  e.level = Level::kMetadata;
  e.audit_id = "5f0c";
  e.stage = Stage::kResponseComplete;
  e.request_uri = "/api/v1/namespaces/demo/pods?limit=500";
  e.verb = "list";
  e.user = http::Identity{"jane", {"dev", "system:authenticated"}, "u-jane", {}};
  e.source_ips = {"127.0.0.1"};
  e.user_agent = "kubectl/v1.33.1 (linux/amd64) kubernetes/8adc0f0";
  e.object_ref = ObjectRef{.resource = "pods", .ns = "demo", .api_version = "v1"};
  e.response_status = ResponseStatus{.code = 200};
  e.request_received = At(kJune1 + 123456);
  e.stage_timestamp = At(kJune1 + 125001);
  e.annotations["authorization.k8s.io/decision"] = "allow";
  e.annotations["authorization.k8s.io/reason"] =
      "RBAC: allowed by RoleBinding \"jane-view/demo\" of ClusterRole \"view\" to User \"jane\"";
  std::string out;
  EncodeEvent(e, &out);
  EXPECT_EQ(
      out,
      R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"5f0c","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/demo/pods?limit=500","verb":"list","user":{"username":"jane","uid":"u-jane","groups":["dev","system:authenticated"]},"sourceIPs":["127.0.0.1"],"userAgent":"kubectl/v1.33.1 (linux/amd64) kubernetes/8adc0f0","objectRef":{"resource":"pods","namespace":"demo","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2025-06-01T10:00:00.123456Z","stageTimestamp":"2025-06-01T10:00:00.125001Z","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":"RBAC: allowed by RoleBinding \"jane-view/demo\" of ClusterRole \"view\" to User \"jane\""}})");
}

// Spec §5.2's examples: the failed authentication, and a forbidden create with an empty reason.
TEST(EventTest, EncodesFailuresAsTheSpecExamples) {
  Event e;
  e.level = Level::kMetadata;
  e.audit_id = "7d1";
  e.stage = Stage::kResponseStarted;
  e.request_uri = "/api/v1/namespaces/demo/pods?limit=500";
  e.verb = "list";
  e.source_ips = {"127.0.0.1"};
  e.user_agent = "kubectl/v1.33.1 (linux/amd64) kubernetes/8adc0f0";
  e.object_ref = ObjectRef{.resource = "pods", .ns = "demo", .api_version = "v1"};
  e.response_status = ResponseStatus{
      .status = "Failure", .message = "Unauthorized", .reason = "Unauthorized", .code = 401};
  e.request_received = At(kJune1 + 1'000'100);
  e.stage_timestamp = At(kJune1 + 1'000'350);
  std::string out;
  EncodeEvent(e, &out);
  EXPECT_EQ(
      out,
      R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"7d1","stage":"ResponseStarted","requestURI":"/api/v1/namespaces/demo/pods?limit=500","verb":"list","user":{},"sourceIPs":["127.0.0.1"],"userAgent":"kubectl/v1.33.1 (linux/amd64) kubernetes/8adc0f0","objectRef":{"resource":"pods","namespace":"demo","apiVersion":"v1"},"responseStatus":{"metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401},"requestReceivedTimestamp":"2025-06-01T10:00:01.000100Z","stageTimestamp":"2025-06-01T10:00:01.000350Z"})");

  Event f;
  f.level = Level::kMetadata;
  f.audit_id = "9a2";
  f.stage = Stage::kResponseComplete;
  f.request_uri = "/api/v1/namespaces/demo/pods";
  f.verb = "create";
  f.user = http::Identity{"jane", {"dev", "system:authenticated"}, "u-jane", {}};
  f.source_ips = {"127.0.0.1"};
  f.user_agent = "curl/8.5.0";
  f.object_ref = ObjectRef{.resource = "pods", .ns = "demo", .api_version = "v1"};
  f.response_status = ResponseStatus{
      .status = "Failure",
      .message =
          "pods is forbidden: User \"jane\" cannot create resource \"pods\" in API group "
          "\"\" in the namespace \"demo\"",
      .reason = "Forbidden",
      .details_json = R"({"kind":"pods"})",
      .code = 403};
  f.request_received = At(kJune1 + 2'000'100);
  f.stage_timestamp = At(kJune1 + 2'000'290);
  f.annotations["authorization.k8s.io/decision"] = "forbid";
  f.annotations["authorization.k8s.io/reason"] = "";
  out.clear();
  EncodeEvent(f, &out);
  EXPECT_EQ(
      out,
      R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"9a2","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/demo/pods","verb":"create","user":{"username":"jane","uid":"u-jane","groups":["dev","system:authenticated"]},"sourceIPs":["127.0.0.1"],"userAgent":"curl/8.5.0","objectRef":{"resource":"pods","namespace":"demo","apiVersion":"v1"},"responseStatus":{"metadata":{},"status":"Failure","message":"pods is forbidden: User \"jane\" cannot create resource \"pods\" in API group \"\" in the namespace \"demo\"","reason":"Forbidden","details":{"kind":"pods"},"code":403},"requestReceivedTimestamp":"2025-06-01T10:00:02.000100Z","stageTimestamp":"2025-06-01T10:00:02.000290Z","annotations":{"authorization.k8s.io/decision":"forbid","authorization.k8s.io/reason":""}})");
}

TEST(EventTest, ImpersonationObjectsAndFullObjectRefInOrder) {
  Event e;
  e.level = Level::kRequestResponse;
  e.audit_id = "a";
  e.stage = Stage::kResponseComplete;
  e.request_uri = "/x";
  e.verb = "update";
  e.user = http::Identity{"admin", {}, "", {{"k", {"v1", "v2"}}}};
  e.impersonated_user = http::Identity{"bob", {"dev"}, "u9", {}};
  e.object_ref = ObjectRef{"leases", "ns", "n1", "u", "coordination.k8s.io", "v1", "7", "status"};
  e.response_status = ResponseStatus{.code = 200};
  e.request_object_json = R"({"a":1})";
  e.response_object_json = R"({"b":2})";
  std::string out;
  EncodeEvent(e, &out);
  EXPECT_EQ(
      out,
      R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"a","stage":"ResponseComplete","requestURI":"/x","verb":"update","user":{"username":"admin","extra":{"k":["v1","v2"]}},"impersonatedUser":{"username":"bob","uid":"u9","groups":["dev"]},"objectRef":{"resource":"leases","namespace":"ns","name":"n1","uid":"u","apiGroup":"coordination.k8s.io","apiVersion":"v1","resourceVersion":"7","subresource":"status"},"responseStatus":{"metadata":{},"code":200},"requestObject":{"a":1},"responseObject":{"b":2},"requestReceivedTimestamp":"1970-01-01T00:00:00.000000Z","stageTimestamp":"1970-01-01T00:00:00.000000Z"})");
}

http::Request WithHeaders(std::string remote, http::Headers headers) {
  http::Request r;
  r.remote_address = std::move(remote);
  r.headers = std::move(headers);
  return r;
}

TEST(EventTest, SourceIps) {
  EXPECT_EQ(SourceIps(WithHeaders("127.0.0.1:5000", {})), std::vector<std::string>{"127.0.0.1"});
  // Forwarded chain, X-Real-Ip not repeated, peer appended unless it is the last entry.
  EXPECT_EQ(
      SourceIps(WithHeaders("127.0.0.1:5000", {{"X-Forwarded-For", "10.0.0.1, bogus,10.0.0.2"},
                                               {"X-Real-Ip", "10.0.0.2"}})),
      (std::vector<std::string>{"10.0.0.1", "10.0.0.2", "127.0.0.1"}));
  EXPECT_EQ(SourceIps(WithHeaders("127.0.0.1:5000", {{"X-Forwarded-For", "10.0.0.1,127.0.0.1"}})),
            (std::vector<std::string>{"10.0.0.1", "127.0.0.1"}));
  EXPECT_EQ(SourceIps(WithHeaders("::1:5000", {{"x-real-ip", "10.1.1.1"}})),
            (std::vector<std::string>{"10.1.1.1", "::1"}));
}

// Addresses already in canonical dotted decimal are taken as they are; anything else goes
// through inet_pton/inet_ntop, which reject leading zeros and out-of-range parts as Go does.
TEST(EventTest, SourceIpsKeepOnlyValidAddressesInCanonicalForm) {
  EXPECT_EQ(SourceIps(WithHeaders("10.0.0.9:1", {{"X-Forwarded-For",
                                                  "0.0.0.0,255.255.255.255,010.0.0.1,1.2.3.256,"
                                                  "1.2.3,1.2.3.4.5,1.2.3.04,1..2.3,::ffff:10.0.0.7,"
                                                  "2001:DB8::1, 9.9.9.9 "}})),
            (std::vector<std::string>{"0.0.0.0", "255.255.255.255", "10.0.0.7", "2001:db8::1",
                                      "9.9.9.9", "10.0.0.9"}));
  EXPECT_EQ(SourceIps(WithHeaders("[::ffff:127.0.0.1]:443", {})),
            std::vector<std::string>{"127.0.0.1"});
}

TEST(EventTest, UserAgentIsTruncatedAt1024Bytes) {
  EXPECT_EQ(TruncatedUserAgent(std::string(1024, 'a')), std::string(1024, 'a'));
  EXPECT_EQ(TruncatedUserAgent(std::string(1025, 'a')), std::string(1024, 'a') + "...TRUNCATED");
}

}  // namespace
}  // namespace svcplane::apiserver::audit
