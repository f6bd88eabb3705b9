#include <gtest/gtest.h>

#include "apiserver/rest/router.h"

namespace svcplane::apiserver::rest {
namespace {

http::Request Get(std::string path, std::vector<std::pair<std::string, std::string>> query = {}) {
  http::Request r;
  r.method = "GET";
  r.path = std::move(path);
  r.query = std::move(query);
  return r;
}

TEST(IsLongRunningTest, WatchesAreLongRunning) {
  EXPECT_TRUE(IsLongRunning(Get("/api/v1/pods", {{"watch", "1"}})));
  EXPECT_TRUE(IsLongRunning(Get("/api/v1/namespaces/demo/pods", {{"watch", "true"}})));
  EXPECT_TRUE(IsLongRunning(Get("/api/v1/watch/pods")));
  EXPECT_TRUE(IsLongRunning(Get("/api/v1/watch/namespaces/demo/pods/p1")));
  EXPECT_TRUE(IsLongRunning(Get("/apis/discovery.k8s.io/v1/watch/endpointslices")));
  EXPECT_TRUE(IsLongRunning(Get("/api/v1/pods", {{"watch", ""}})));  // "?watch"
}

TEST(IsLongRunningTest, StreamingSubresourcesAreLongRunning) {
  for (const char* sub : {"exec", "attach", "portforward", "proxy", "log"}) {
    EXPECT_TRUE(IsLongRunning(Get(std::string("/api/v1/namespaces/demo/pods/p1/") + sub))) << sub;
  }
}

TEST(IsLongRunningTest, OtherRequestsAreNot) {
  EXPECT_FALSE(IsLongRunning(Get("/api/v1/pods")));
  EXPECT_FALSE(IsLongRunning(Get("/api/v1/pods", {{"watch", "false"}})));
  EXPECT_FALSE(IsLongRunning(Get("/api/v1/pods", {{"watch", "0"}})));
  EXPECT_FALSE(IsLongRunning(Get("/api/v1/namespaces/demo/pods/log")));  // a Pod named "log"
  EXPECT_FALSE(IsLongRunning(Get("/api/v1/namespaces/demo/pods/p1/status")));
  EXPECT_FALSE(IsLongRunning(Get("/watch/pods")));
  EXPECT_FALSE(IsLongRunning(Get("/apis/watch")));
  EXPECT_FALSE(IsLongRunning(Get("/metrics")));
  EXPECT_FALSE(IsLongRunning(Get("/")));
}

}  // namespace
}  // namespace svcplane::apiserver::rest
