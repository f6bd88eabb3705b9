#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace svcplane::base::tls::testing {

struct TlsExchangeResult {
  std::string response;      // every byte the server sent until it closed
  std::string peer_subject;  // the served certificate's subject, one line ("/CN=x@1")
};

// Connects to 127.0.0.1:`port`, runs a TLS handshake, sends `request` and reads until the server
// closes. With a non-empty `ca_pem` the server's chain must verify against it and carry the IP
// SAN 127.0.0.1 (Unauthorized otherwise); with an empty one nothing is verified, as `curl -k`.
Result<TlsExchangeResult> TlsExchange(uint16_t port, std::string_view request,
                                      std::string_view ca_pem = "");

}  // namespace svcplane::base::tls::testing
