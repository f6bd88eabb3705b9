#pragma once

// Server-side TLS over plain blocking sockets, for the small HTTPS endpoints that do not go
// through apiserver/http (Beast): the controller manager's /livez /readyz /metrics. OpenSSL types
// stay in the .cc.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"

struct ssl_ctx_st;  // OpenSSL's SSL_CTX
struct ssl_st;      // OpenSSL's SSL

namespace svcplane::base::tls {

// A certificate chain and its key, TLS 1.2 or newer. Immutable after creation: share one between
// threads and connections.
class ServerContext {
 public:
  // `cert_pem`: the serving certificate, then any intermediates. Invalid when either does not
  // parse or the key is not the certificate's.
  static Result<std::shared_ptr<const ServerContext>> FromPem(std::string_view cert_pem,
                                                              std::string_view key_pem);
  // The same from files (kube's --tls-cert-file / --tls-private-key-file); Invalid also when a
  // file cannot be read.
  static Result<std::shared_ptr<const ServerContext>> FromFiles(const std::string& cert_file,
                                                                const std::string& key_file);
  ~ServerContext();
  ServerContext(const ServerContext&) = delete;
  ServerContext& operator=(const ServerContext&) = delete;

 private:
  friend class ServerConnection;
  explicit ServerContext(ssl_ctx_st* ctx) : ctx_(ctx) {}
  ssl_ctx_st* const ctx_;
};

// One server-side TLS session over a connected blocking socket. The caller owns `fd` and closes
// it after this object is gone; read and write deadlines are the socket's (SO_RCVTIMEO,
// SO_SNDTIMEO). One thread at a time.
class ServerConnection {
 public:
  // Runs the handshake. Unavailable when the peer fails it, leaves, or the socket times out.
  static Result<std::unique_ptr<ServerConnection>> Accept(const ServerContext& ctx, int fd);
  ~ServerConnection();  // sends close_notify (best effort)
  ServerConnection(const ServerConnection&) = delete;
  ServerConnection& operator=(const ServerConnection&) = delete;

  // Up to `size` bytes: at least one, 0 once the peer closed, or Unavailable.
  Result<size_t> Read(char* buf, size_t size);
  // Ok once all of `data` went out; Unavailable when the peer left or timed out.
  Status WriteAll(std::string_view data);

 private:
  explicit ServerConnection(ssl_st* ssl) : ssl_(ssl) {}
  ssl_st* const ssl_;
};

}  // namespace svcplane::base::tls
