#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "base/result.h"
#include "base/tls/server.h"
#include "controllers/manager/controller_manager.h"

namespace svcplane::controllers::manager {

// A minimal HTTPS (or plain HTTP) /1.1 listener for /livez, /readyz, /healthz and /metrics (the
// manager's --bind-address/--secure-port, and the deprecated --port). One request per connection
// (Connection: close), served one at a time on one thread, each read and write (and the TLS
// handshake's) bounded by a 2 s timeout: enough for probes and Prometheus scrapes, not a general
// web server. Plain sockets and base/tls, because Beast stays in apiserver/http and
// client/transport, and the API server's listener answers health itself.
class HealthServer {
 public:
  using Handler = std::function<HttpReply(std::string_view method, std::string_view target)>;

  // Binds `host` (an IPv4 or IPv6 literal) and `port` (0: the kernel picks; see port()). With
  // `tls`, every connection is TLS (a failed handshake just closes it); without, plain HTTP.
  // Invalid for a host that is not an IP literal; Unavailable when the address cannot be bound.
  static Result<std::unique_ptr<HealthServer>> Start(
      const std::string& host, uint16_t port, Handler handler,
      std::shared_ptr<const base::tls::ServerContext> tls = nullptr);
  ~HealthServer();  // Stop()

  uint16_t port() const { return port_; }
  // Stops accepting and joins the serving thread. Idempotent.
  void Stop();

 private:
  HealthServer(int listen_fd, int wake_read, int wake_write, uint16_t port, Handler handler,
               std::shared_ptr<const base::tls::ServerContext> tls);
  void Loop();
  void ServeOne(int fd);
  // The bytes to answer `head` (the request line and headers) with.
  std::string Answer(std::string_view head) const;

  const int listen_fd_;
  const int wake_read_;
  const int wake_write_;
  const uint16_t port_;
  const Handler handler_;
  const std::shared_ptr<const base::tls::ServerContext> tls_;  // null: plain HTTP
  std::thread thread_;
};

}  // namespace svcplane::controllers::manager
