#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "client/transport/http.h"
#include "client/transport/idle_watchdog.h"
#include "client/transport/rest_config.h"

namespace svcplane::client::transport {

// One API server of an HA deployment, as a FailoverTransport uses it.
struct FailoverServer {
  std::string url;                           // for logs
  std::shared_ptr<HttpTransport> transport;  // requests
  // Health pings for the idle watchdog: a cheap request bounded by a short timeout of its own
  // (and no rate limit), so that a hung server is told from a quiet one.
  std::shared_ptr<HttpTransport> ping;
};

struct FailoverOptions {
  const Clock* clock = nullptr;  // null means RealClock; drives the idle watchdog
  // client-go's HTTP/2 health check timings (ours are spec §4.6's, not client-go's 30 s/15 s).
  // read_idle is how long a stream may be silent before its server is pinged; the ping's
  // timeout is the ping transport's own (RestConfig.timeout = ping_timeout in NewHttpTransport).
  Duration read_idle = std::chrono::seconds(10);
  Duration ping_timeout = std::chrono::seconds(5);
  std::string ping_path = "/livez";  // any HTTP answer counts as alive
};

// An HttpTransport over several API servers that share one etcd, one CA and one set of
// credentials (svcplane's `--server A --server B`; spec etcd-backend-and-ha §4.6). It sticks
// to one server and moves on to the next, round robin, when an attempt fails in a way that
// blames the server; JudgeAttempt (failover_policy.h) says which ones and which requests are
// sent again at once. Each switch is logged with the failed server, the reason and the next.
//
// Streams (watches, streamed lists) on a server that goes silent are found by an IdleWatchdog
// and end with kUnavailable, as a reset connection does, so a reflector resumes from its last
// resourceVersion on the next server. Unary calls (Do) are bounded by the transports' request
// timeout instead.
//
// Each call tries every server at most once. Safe from any thread; concurrent failures on one
// server move the client on by one server, not one per caller.
class FailoverTransport final : public HttpTransport {
 public:
  FailoverTransport(std::vector<FailoverServer> servers, FailoverOptions options = {});
  ~FailoverTransport() override;

  Result<HttpResponse> Do(const HttpRequest& request) override;
  Result<HttpResponse> Stream(const HttpRequest& request, const LineHandler& on_line,
                              CancelToken& cancel) override;
  Result<HttpResponse> StreamBytes(const HttpRequest& request, const BytesHandler& on_bytes,
                                   CancelToken& cancel) override;

  // The server the next request goes to.
  const std::string& current_server() const;
  // Times the client moved to another server.
  int rotations() const { return rotations_.load(); }
  const IdleWatchdog& watchdog() const { return *watchdog_; }

 private:
  // One attempt on server `index`; sets *delivered once any body reached the caller.
  using Attempt = std::function<Result<HttpResponse>(size_t index, bool* delivered)>;
  Result<HttpResponse> Call(const HttpRequest& request, const Attempt& attempt);
  // Leaves server `from` (unless another caller already did); returns the server to use next.
  size_t Rotate(size_t from, const std::string& reason);

  // Constant after construction.
  const std::vector<FailoverServer> servers_;
  const FailoverOptions options_;

  std::atomic<size_t> current_{0};
  std::atomic<int> rotations_{0};
  std::unique_ptr<IdleWatchdog> watchdog_;  // last: its thread pings servers_
};

// The transport for `config`: an HttpsTransport to config.host alone when there are no
// fallback_hosts (exactly the one-server client), else a FailoverTransport over host and then
// fallback_hosts in order, with one client-side rate limit shared by all of them.
Result<std::shared_ptr<HttpTransport>> NewHttpTransport(const RestConfig& config,
                                                        FailoverOptions options = {});

}  // namespace svcplane::client::transport
