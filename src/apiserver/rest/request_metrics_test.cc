#include "apiserver/rest/request_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

namespace svcplane::apiserver::rest {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

http::Request MakeRequest(std::string method, std::string path,
                          std::vector<std::pair<std::string, std::string>> query = {}) {
  http::Request req;
  req.method = std::move(method);
  req.path = std::move(path);
  req.query = std::move(query);
  return req;
}

RequestInfo Info(const http::Request& req) {
  auto info = ParseResourcePath(req.path);
  EXPECT_TRUE(info.ok()) << req.path;
  return *info;
}

TEST(RequestMetricsTest, VerbAndScopeAreReportedAsUpstream) {
  struct Case {
    http::Request req;
    std::string_view verb, scope;
  } cases[] = {
      {MakeRequest("GET", "/api/v1/namespaces/a/pods/p"), "GET", "resource"},
      {MakeRequest("GET", "/api/v1/namespaces/a/pods"), "LIST", "namespace"},
      {MakeRequest("GET", "/api/v1/pods"), "LIST", "cluster"},
      {MakeRequest("GET", "/api/v1/pods", {{"watch", "true"}}), "WATCH", "cluster"},
      {MakeRequest("GET", "/api/v1/pods", {{"watch", "false"}}), "LIST", "cluster"},
      {MakeRequest("GET", "/api/v1/namespaces/a/pods/p", {{"watch", "1"}}), "WATCH", "resource"},
      {MakeRequest("POST", "/api/v1/namespaces/a/pods"), "POST", "namespace"},
      {MakeRequest("PUT", "/api/v1/nodes/n/status"), "PUT", "resource"},
      {MakeRequest("DELETE", "/api/v1/namespaces/a/pods"), "DELETE", "namespace"},
      {MakeRequest("PATCH", "/api/v1/namespaces/a/pods/p"), "PATCH", "resource"},
      {MakeRequest("BREW", "/api/v1/namespaces/a/pods/p"), "other", "resource"},
      {MakeRequest("OPTIONS", "/api/v1/pods"), "other", "cluster"},
  };
  for (const auto& c : cases) {
    const RequestInfo info = Info(c.req);
    EXPECT_EQ(ReportedVerb(c.req, info), c.verb) << c.req.method << " " << c.req.path;
    EXPECT_EQ(RequestScope(info), c.scope) << c.req.method << " " << c.req.path;
  }
  http::Request apply = MakeRequest("PATCH", "/api/v1/namespaces/a/pods/p");
  apply.headers.emplace_back("content-type", "application/apply-patch+yaml");
  EXPECT_EQ(ReportedVerb(apply, Info(apply)), "APPLY");
}

TEST(RequestMetricsTest, RequestsLandInTheirSeriesUnderUpstreamNames) {
  MetricsRegistry registry;
  RequestMetrics metrics(&registry);
  http::Request create = MakeRequest("POST", "/api/v1/namespaces/a/pods");
  metrics.Record(create, Info(create), 201, 3ms);
  metrics.Record(create, Info(create), 201, 30ms);
  metrics.Record(create, Info(create), 409, 1ms);
  http::Request status =
      MakeRequest("PUT", "/api/v1/namespaces/a/pods/p/status", {{"dryRun", "All"}});
  metrics.Record(status, Info(status), 200, 700us);
  http::Request watch =
      MakeRequest("GET", "/apis/discovery.k8s.io/v1/endpointslices", {{"watch", "true"}});
  metrics.Record(watch, Info(watch), 200, 5min);

  const std::string text = registry.RenderPrometheus();
  const std::string create_labels =
      R"(component="apiserver",dry_run="",group="",resource="pods",scope="namespace",)"
      R"(subresource="",verb="POST",version="v1")";
  EXPECT_THAT(text, HasSubstr("apiserver_request_total{code=\"201\"," + create_labels + "} 2"));
  EXPECT_THAT(text, HasSubstr("apiserver_request_total{code=\"409\"," + create_labels + "} 1"));
  // All three creates are timed, whatever their code: 1 ms and 3 ms fall at or below 5 ms.
  EXPECT_THAT(text, HasSubstr("apiserver_request_duration_seconds_bucket{" + create_labels +
                              ",le=\"0.005\"} 2"));
  EXPECT_THAT(text, HasSubstr("apiserver_request_duration_seconds_bucket{" + create_labels +
                              ",le=\"0.05\"} 3"));
  EXPECT_THAT(text, HasSubstr("apiserver_request_duration_seconds_count{" + create_labels + "} 3"));
  EXPECT_THAT(text, HasSubstr(R"(apiserver_request_total{code="200",component="apiserver",)"
                              R"(dry_run="All",group="",resource="pods",scope="resource",)"
                              R"(subresource="status",verb="PUT",version="v1"} 1)"));
  // A watch is counted, but its stream's length is no request latency.
  EXPECT_THAT(text, HasSubstr(R"(resource="endpointslices",scope="cluster",subresource="",)"
                              R"(verb="WATCH",version="v1"} 1)"));
  EXPECT_THAT(text, Not(HasSubstr(R"(apiserver_request_duration_seconds_count{component=)"
                                  R"("apiserver",dry_run="",group="discovery.k8s.io")")));
}

}  // namespace
}  // namespace svcplane::apiserver::rest
