#pragma once

// kube-apiserver's request metrics, under upstream's names and labels, so that dashboards and
// SLO checks written for a real cluster read ours as they are (SIG scalability measures its API
// call latency SLOs on apiserver_request_duration_seconds):
//   apiserver_request_total{code,component,dry_run,group,resource,scope,subresource,verb,version}
//   apiserver_request_duration_seconds{component,dry_run,group,resource,scope,subresource,verb,
//                                      version}
// The duration runs from the handler's start (request read and authenticated) until its answer
// is ready; a streamed LIST body is timed to its start, not its end, and WATCH streams are only
// counted (upstream times them to their end, which no latency check uses). Buckets are
// upstream's plus 0.5, 1 and 2.5 ms, where this server's answers fall.

#include <chrono>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "apiserver/http/handler.h"
#include "apiserver/rest/request_info.h"
#include "base/metrics.h"

namespace svcplane::apiserver::rest {

// Upstream's reported verb (endpoints/metrics CleanVerb): the HTTP method, except LIST for a GET
// of a collection, WATCH for any watch, APPLY for a server-side apply PATCH, and "other" for a
// method the API does not serve (a client must not be able to add series at will).
std::string_view ReportedVerb(const http::Request& req, const RequestInfo& info);
// "resource" (one object), "namespace" (a collection in one namespace) or "cluster".
std::string_view RequestScope(const RequestInfo& info);

class RequestMetrics {
 public:
  explicit RequestMetrics(MetricsRegistry* registry) : registry_(registry) {}

  void Record(const http::Request& req, const RequestInfo& info, int code,
              std::chrono::steady_clock::duration elapsed);

 private:
  struct Series {
    Histogram* duration = nullptr;  // none for WATCH
    Counter* total = nullptr;
  };

  MetricsRegistry* registry_;
  // The registry finds a series by name and labels under its lock, building the labels costs a
  // dozen strings, and the registry never forgets a series: this remembers both series of a
  // request kind by its labels joined into one string, so a request costs one short lookup.
  std::mutex mu_;
  std::unordered_map<std::string, Series> series_;  // guarded by mu_
};

}  // namespace svcplane::apiserver::rest
