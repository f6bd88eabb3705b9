#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"

namespace svcplane::apiserver::http::testing {

struct ClientResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  bool keep_alive = false;

  std::string Header(const std::string& name) const;  // case-insensitive; "" when absent
};

struct ClientOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  std::string ca_pem;           // the server certificate must verify against it
  std::string token;            // sent as "Authorization: Bearer" when not empty
  std::string client_cert_pem;  // optional TLS client certificate
  std::string client_key_pem;
  std::chrono::milliseconds timeout{10'000};  // per read or write
};

// A blocking HTTPS/1.1 client on Beast for tests and benchmarks: one connection, reused for
// every request (keep-alive). Not thread-safe; give each thread its own.
class TlsClient {
 public:
  static Result<std::unique_ptr<TlsClient>> Connect(const ClientOptions& options);
  ~TlsClient();

  Result<ClientResponse> Get(const std::string& target);
  Result<ClientResponse> Do(const std::string& method, const std::string& target,
                            std::string body = "",
                            std::vector<std::pair<std::string, std::string>> headers = {});

  // Streaming: send a GET, read the head, then read the chunked body piece by piece.
  Result<ClientResponse> StartStream(const std::string& target);
  // Reads until the body received so far contains `needle` (returns the whole body so far) or
  // the stream ends (returns what came, with ok status) or times out (error).
  Result<std::string> ReadStreamUntil(const std::string& needle);
  bool StreamEnded() const;

  // The TLS cipher suite the server chose (OpenSSL's name, e.g. "TLS_AES_128_GCM_SHA256").
  std::string Cipher() const;

  // Drops the TCP connection without a TLS close_notify, as a crashing client would.
  void Abort();

 private:
  struct Impl;
  explicit TlsClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace svcplane::apiserver::http::testing
