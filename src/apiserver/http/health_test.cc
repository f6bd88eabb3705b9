#include "apiserver/http/health.h"

#include <gtest/gtest.h>

#include "apiserver/http/status_response.h"

namespace svcplane::apiserver::http {
namespace {

TEST(HealthTest, PassingChecksSayOk) {
  Response r = HealthResponse("livez", {{"ping", true}}, false);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
  EXPECT_EQ(r.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(HealthResponse("livez", {{"ping", true}}, true).body,
            "[+]ping ok\nlivez check passed\n");
}

TEST(HealthTest, FailingCheckIs500WithReasonWithheld) {
  Response r = HealthResponse("readyz", {{"ping", true}, {"shutdown", false}}, false);
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "[+]ping ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n");
}

TEST(StatusResponseTest, MatchesKubernetesShapeAndEscapes) {
  EXPECT_EQ(StatusJson(404, "NotFound", "services \"web\" not found"),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"services \"web\" not found","reason":"NotFound","code":404})");
  Response r = StatusResponse(GoneError("too old resource version: 1 (2)"));
  EXPECT_EQ(r.status, 410);
  EXPECT_NE(r.body.find(R"("reason":"Expired")"), std::string::npos);
  EXPECT_EQ(StatusJson(400, "BadRequest", "<a\nb\x01>"),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"\u003ca\nb\u0001\u003e","reason":"BadRequest","code":400})");
}

}  // namespace
}  // namespace svcplane::apiserver::http
