#include "client/transport/failover_policy.h"

#include <gtest/gtest.h>

namespace svcplane::client::transport {
namespace {

Result<HttpResponse> Http(int status) {
  HttpResponse r;
  r.status = status;
  return r;
}

const Status kRefused = NotSent(UnavailableError("dial tcp 127.0.0.1:1: Connection refused"));
const Status kReset = UnavailableError("read from 127.0.0.1:6443: Connection reset by peer");
const Status kSilent = Status(Code::kTimeout, "read from 127.0.0.1:6443: timeout");

struct Case {
  const char* name;
  const char* method;
  Result<HttpResponse> result;
  bool delivered;
  bool rotate;
  bool retry;
};

TEST(FailoverPolicyTest, WhichOutcomesRotateAndWhichAreSentAgain) {
  const Case cases[] = {
      // The server answered as a working server does: stay.
      {"200", "GET", Http(200), false, false, false},
      {"201 create", "POST", Http(201), false, false, false},
      {"404", "GET", Http(404), false, false, false},
      {"409 conflict", "PUT", Http(409), false, false, false},
      {"410 gone (the caller relists)", "GET", Http(410), false, false, false},
      {"401", "GET", Http(401), false, false, false},
      {"403", "DELETE", Http(403), false, false, false},
      // Overloaded or broken server: leave it; a read goes to the next one at once.
      {"429 read", "GET", Http(429), false, true, true},
      {"500 read", "GET", Http(500), false, true, true},
      {"503 read", "GET", Http(503), false, true, true},
      {"504 read", "GET", Http(504), false, true, true},
      // A mutation that reached the server may have committed: leave, but do not resend.
      {"429 create", "POST", Http(429), false, true, false},
      {"500 update", "PUT", Http(500), false, true, false},
      {"503 patch", "PATCH", Http(503), false, true, false},
      {"502 delete", "DELETE", Http(502), false, true, false},
      // Never reached the server: anything may be sent to the next one.
      {"refused read", "GET", kRefused, false, true, true},
      {"refused create", "POST", kRefused, false, true, true},
      {"refused delete", "DELETE", kRefused, false, true, true},
      // Sent, then the connection broke or went silent.
      {"reset read", "GET", kReset, false, true, true},
      {"reset create", "POST", kReset, false, true, false},
      {"timeout read", "GET", kSilent, false, true, true},
      {"timeout update", "PUT", kSilent, false, true, false},
      // A watch that already delivered events resumes in its caller, from its resourceVersion.
      {"watch broke after events", "GET", kReset, true, true, false},
      // Errors that no other server would fix.
      {"bad config", "GET", Result<HttpResponse>(InvalidError("bad CA")), false, false, false},
      {"exec plugin", "GET", Result<HttpResponse>(Status(Code::kUnauthorized, "exec")), false,
       false, false},
      {"no StreamBytes", "GET", Result<HttpResponse>(Status(Code::kMethodNotAllowed, "no")), false,
       false, false},
  };
  for (const Case& c : cases) {
    const FailoverVerdict v = JudgeAttempt(c.method, c.result, c.delivered);
    EXPECT_EQ(v.rotate, c.rotate) << c.name;
    EXPECT_EQ(v.retry, c.retry) << c.name;
    EXPECT_EQ(v.rotate, !v.reason.empty()) << c.name;
  }
}

TEST(FailoverPolicyTest, ReasonNamesTheStatusOrTheTransportError) {
  EXPECT_EQ(JudgeAttempt("GET", Http(503), false).reason, "HTTP 503");
  EXPECT_EQ(JudgeAttempt("GET", kRefused, false).reason,
            "dial tcp 127.0.0.1:1: Connection refused");
}

TEST(FailoverPolicyTest, NotSentIsACauseThatSurvivesCopies) {
  Status s = NotSent(UnavailableError("tls handshake"));
  EXPECT_TRUE(IsNotSent(s));
  EXPECT_EQ(s.code(), Code::kUnavailable);
  EXPECT_EQ(s.message(), "tls handshake");
  EXPECT_FALSE(IsNotSent(UnavailableError("tls handshake")));
  Result<HttpResponse> r(s);
  EXPECT_TRUE(IsNotSent(r.status()));
}

TEST(FailoverPolicyTest, OnlyReadsAreIdempotent) {
  for (const char* m : {"GET", "HEAD", "OPTIONS"}) EXPECT_TRUE(IsIdempotent(m)) << m;
  for (const char* m : {"POST", "PUT", "PATCH", "DELETE"}) EXPECT_FALSE(IsIdempotent(m)) << m;
}

}  // namespace
}  // namespace svcplane::client::transport
