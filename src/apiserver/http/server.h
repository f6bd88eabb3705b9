#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/http/handler.h"
#include "apiserver/http/health.h"
#include "base/result.h"
#include "base/tls/cipher_suites.h"

namespace svcplane::apiserver::http {

namespace internal {
class ServerImpl;
}

struct ServerOptions {
  std::string host = "127.0.0.1";  // an IP ("0.0.0.0" or "::" for all) or a name to resolve
  uint16_t port = 0;               // 0: the kernel picks; read it back with Server::port()
  int io_threads = 2;              // run TLS, parsing and stream writes
  int worker_threads = 4;          // run handlers (see Handler)

  std::string cert_pem;  // serving certificate (chain), PEM
  std::string key_pem;   // its private key, PEM
  // When set (one or more PEM CAs), clients are asked for a certificate. The handshake accepts
  // any, or none; each connection's is verified against these CAs once, at the handshake, and
  // the result handed to the authenticator (Request::peer_certificate).
  std::string client_ca_pem;
  // Oldest TLS version accepted (--tls-min-version); SSLv3, TLS 1.0 and 1.1 never are.
  base::tls::TlsVersion tls_min_version = base::tls::TlsVersion::kTls12;
  // TLS 1.2 suites by IANA name (--tls-cipher-suites); empty: ECDHE with AEAD only
  // (base/tls/cipher_suites.h). The server's order of preference wins.
  std::vector<std::string> tls_cipher_suites;

  // Required: every request must be accepted by it (kAuthenticated), or gets 401 and no data.
  // Health endpoints are the exception when the authenticator has no opinion (no credential)
  // and health_requires_auth is false.
  Authenticator authenticator;
  // /livez, /readyz, /healthz answer without credentials by default, as upstream's
  // system:public-info-viewer allows the anonymous user; true (upstream's --anonymous-auth=false)
  // puts them behind the authenticator too.
  bool health_requires_auth = false;
  // The 401 sent when authentication refuses a request (e.g. a protobuf Status for a client
  // that prefers it); unset: the JSON Status with message and reason "Unauthorized".
  std::function<Response(const Request&)> unauthorized_response;
  // Called on the I/O thread with each request the authenticator refused and its 401, for the
  // audit log's failed-authentication event. Must not block.
  std::function<void(const Request&, const Response&)> on_unauthenticated;
  // More named checks for /livez and /readyz (endpoint "livez" or "readyz"), e.g. the store's.
  // Called on an I/O thread for every probe: must answer at once, from cached state.
  std::function<std::vector<HealthCheck>(std::string_view endpoint)> health_checks;

  size_t body_limit = 3 * 1024 * 1024;  // larger bodies get 413
  // Larger request heads get 431 (Go's MaxHeaderBytes, 1 MiB). One header field is also
  // limited to 65533 bytes (what Beast can hold): a longer one gets 431 too.
  size_t header_limit = 1024 * 1024;
  // A keep-alive connection waiting for its next request head is closed after this.
  std::chrono::milliseconds idle_timeout{90'000};
  // Once a request head has begun (at once on a new connection, else when its first bytes
  // arrive) it must be complete within this, or the connection is closed (Go's
  // ReadHeaderTimeout, against slowloris). On a keep-alive connection the start is noticed
  // within a quarter of this, so the limit holds to within 1.25x there.
  std::chrono::milliseconds read_header_timeout{32'000};
  // A non-long-running request not answered within this (or its shorter `?timeout=`) gets 504
  // (--request-timeout; request_timeout.h). 0: none.
  std::chrono::milliseconds request_timeout{60'000};
  // --max-requests-inflight, --max-mutating-requests-inflight (inflight_limiter.h); 0: none.
  int max_requests_inflight = 400;
  int max_mutating_requests_inflight = 200;
  // Watches and the like: no request timeout, no `?timeout=` parsing, not counted in flight.
  // Unset: none is.
  std::function<bool(const Request&)> is_long_running;
  // Reading a request body, writing a response or one stream chunk must finish within this;
  // a stream client that stops reading is cut off after it.
  std::chrono::milliseconds io_timeout{60'000};

  // Requests for which this answers true skip the worker pool: their handler runs on the
  // connection's I/O thread as a fiber that suspends where it would wait for a store commit
  // (base/suspend.h), saving the hand-offs to a worker and back. Only for handlers that do not
  // block otherwise (no network calls, no long waits) and hold no lock across a commit.
  std::function<bool(const Request&)> run_on_io_thread;

  // A sourced body of more than one piece has its next piece built on the worker pool while
  // the I/O thread sends the current one (internal/piece_ahead.h); false: all on the I/O thread.
  bool build_pieces_ahead = true;
};

// An HTTPS (HTTP/1.1, keep-alive) server. TLS is always on. Requests are parsed and
// authenticated on the I/O threads and handled on the worker pool; responses and stream chunks
// are written back on the I/O threads, so a slow handler never stalls I/O and a stream costs no
// thread.
class Server {
 public:
  // Binds, listens and starts serving before it returns. Errors: bad TLS material (Invalid),
  // address in use or not bindable (Unavailable).
  static Result<std::unique_ptr<Server>> Start(ServerOptions options, Handler handler);

  ~Server();  // Shutdown(5s) if not done yet

  uint16_t port() const;

  // /readyz answers 500 until SetReady(true) and again once Shutdown begins.
  void SetReady(bool ready);
  // From now on /readyz fails its "shutdown" check while requests are still served, so that
  // load balancers stop sending new ones before Shutdown closes the listener.
  void BeginShutdown();

  // Stops accepting, lets in-flight requests finish (their responses say Connection: close),
  // closes idle keep-alive connections, ends every stream cleanly (terminating chunk, OnEnd with
  // kShutdown), then waits up to `deadline` for connections to finish and cuts off the rest.
  // Blocks until the I/O threads and the worker pool have stopped. Idempotent; call it from any
  // thread except the server's own.
  void Shutdown(std::chrono::milliseconds deadline = std::chrono::seconds(5));

  // Connections accepted so far (keep-alive tests count them).
  uint64_t AcceptedConnectionsForTest() const;

 private:
  explicit Server(std::unique_ptr<internal::ServerImpl> impl);
  std::unique_ptr<internal::ServerImpl> impl_;
};

}  // namespace svcplane::apiserver::http
