#pragma once

#include <map>
#include <memory>
#include <string>

#include "apiserver/discovery/discovery.h"
#include "apiserver/http/handler.h"
#include "apiserver/openapi/openapi.h"
#include "apiserver/rest/request_metrics.h"
#include "apiserver/rest/resource_handler.h"

namespace svcplane::apiserver::rest {

// The server's request handler: discovery (/version, /api, /apis...), OpenAPI v3, and every
// served resource path. Health endpoints are answered by the HTTP layer itself.
class Router {
 public:
  Router(const discovery::Documents* discovery, const openapi::Documents* openapi)
      : discovery_(discovery), openapi_(openapi) {}

  // `resource` as in the resource table ("pods"), with its group ("" for core).
  void Add(std::string_view group, std::string_view resource, std::unique_ptr<Endpoint> endpoint);

  // Resource requests are counted and timed here from now on (not owned; outlives the router).
  void SetMetrics(RequestMetrics* metrics) { metrics_ = metrics; }

  http::Reply Handle(const http::Request& req);

 private:
  http::Reply Discovery(const http::Request& req, bool* handled);

  const discovery::Documents* discovery_;
  const openapi::Documents* openapi_;
  std::map<std::string, std::unique_ptr<Endpoint>> endpoints_;  // "group/resource"
  RequestMetrics* metrics_ = nullptr;
};

// Whether the handler of `req` may run on an I/O thread as a fiber
// (http::ServerOptions::run_on_io_thread): single-object reads and writes, and creates, whose
// only long wait is the store commit, which suspends. Lists, watches and deletecollection
// stream or loop over many objects; Services and Events take allocator and TTL locks around
// their writes; Namespaces start finalization. Those stay on the worker pool.
bool RunsOnIoThread(const http::Request& req);

// Upstream's long-running requests (BasicLongRunningRequestCheck with verbs watch, proxy and
// subresources attach, exec, proxy, log, portforward): a watch (`?watch=` other than
// false/0, or a /watch/ path) or one of those subresources. They have no request timeout and
// are not counted by the max-in-flight limits (http::ServerOptions::is_long_running).
bool IsLongRunning(const http::Request& req);

}  // namespace svcplane::apiserver::rest
