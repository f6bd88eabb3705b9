#include "apiserver/http/request_timeout.h"

#include <gtest/gtest.h>

namespace svcplane::apiserver::http {
namespace {

using namespace std::chrono_literals;

Request WithTimeout(std::string value) {
  Request r;
  r.query.emplace_back("timeout", std::move(value));
  return r;
}

TEST(RequestTimeoutTest, DefaultWithoutParameter) {
  EXPECT_EQ(*RequestTimeout(Request{}, 60s), 60s);
  EXPECT_EQ(*RequestTimeout(WithTimeout(""), 60s), 60s);
}

TEST(RequestTimeoutTest, ParameterOnlyShortensIt) {
  EXPECT_EQ(*RequestTimeout(WithTimeout("5s"), 60s), 5s);
  EXPECT_EQ(*RequestTimeout(WithTimeout("1m30s"), 60s), 60s);
  EXPECT_EQ(*RequestTimeout(WithTimeout("0"), 60s), 60s);
  EXPECT_EQ(*RequestTimeout(WithTimeout("0s"), 60s), 60s);
  EXPECT_EQ(*RequestTimeout(WithTimeout("-3s"), 60s), 60s);
  EXPECT_EQ(*RequestTimeout(WithTimeout("250ms"), 60s), 250ms);
  EXPECT_EQ(*RequestTimeout(WithTimeout("10us"), 60s), 1ms);  // rounded up, never "none"
}

TEST(RequestTimeoutTest, MalformedParameterIsBadRequestWithGosMessage) {
  auto bad = RequestTimeout(WithTimeout("abc"), 60s);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kBadRequest);
  EXPECT_EQ(bad.status().message(),
            "invalid timeout specified in the request URL - time: invalid duration \"abc\"");
  EXPECT_EQ(RequestTimeout(WithTimeout("10"), 60s).status().message(),
            "invalid timeout specified in the request URL - time: missing unit in duration "
            "\"10\"");
  EXPECT_EQ(RequestTimeout(WithTimeout("3d"), 60s).status().message(),
            "invalid timeout specified in the request URL - time: unknown unit \"d\" in "
            "duration \"3d\"");
}

TEST(RequestTimeoutTest, TimeoutResponseIsUpstreamsStatus) {
  Response r = RequestTimeoutResponse();
  EXPECT_EQ(r.status, 504);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                    R"("message":"Timeout: request did not complete within the allotted timeout",)"
                    R"("reason":"Timeout","details":{},"code":504})");
}

}  // namespace
}  // namespace svcplane::apiserver::http
