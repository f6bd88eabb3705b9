#pragma once

#include <memory>

#include "base/clock.h"
#include "base/result.h"
#include "client/token_bucket.h"
#include "client/transport/credentials.h"
#include "client/transport/http.h"
#include "client/transport/rest_config.h"

namespace svcplane::client::transport {

// HTTP/1.1 over TLS (or plain http:// for tests and loopback) to one API server, built on
// Boost.Beast + OpenSSL (kept inside the .cc). Features, as client-go's transport:
//  - keep-alive pool of idle connections; a request that fails on a reused connection before
//    any response byte is retried once on a new one (the server may have closed it meanwhile);
//  - TLS verification against the config's CA (or the system store), SNI, host name or IP
//    check against tls_server_name or the URL host; client certificates;
//  - bearer token / token file / exec credentials; on 401 the source is told and the request is
//    retried once if it can produce new credentials;
//  - client-side QPS/burst token bucket shared by every request (including opening watches);
//  - an error before the request could be sent (lookup, connect, TLS handshake) is NotSent;
//  - per-request timeout for unary calls; streams have none and end by cancel or server close.
// Safe from any thread; each call uses its own connection.
struct HttpsTransportOptions {
  const Clock* clock = nullptr;  // null means RealClock; drives the QPS limiter and tokens
  int max_idle_per_host = 32;
  // The client-side limit, when several transports share one (the servers of a failover
  // client); null means one of this transport's own, from config.qps and config.burst.
  std::shared_ptr<TokenBucket> limiter;
};

// The client-side QPS/burst limit `config` asks for: client-go's defaults (5 qps, burst 10)
// when qps is 0, none (null) when qps is negative.
std::shared_ptr<TokenBucket> NewRateLimiter(const RestConfig& config, const Clock& clock);

class HttpsTransport final : public HttpTransport {
 public:
  using Options = HttpsTransportOptions;
  static Result<std::unique_ptr<HttpsTransport>> Create(const RestConfig& config,
                                                        Options options = {});
  ~HttpsTransport() override;

  Result<HttpResponse> Do(const HttpRequest& request) override;
  Result<HttpResponse> Stream(const HttpRequest& request, const LineHandler& on_line,
                              CancelToken& cancel) override;
  Result<HttpResponse> StreamBytes(const HttpRequest& request, const BytesHandler& on_bytes,
                                   CancelToken& cancel) override;

  // TCP connections opened so far (keep-alive reuse keeps this low).
  int ConnectionsOpened() const;

  struct Impl;

 private:
  explicit HttpsTransport(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace svcplane::client::transport
