#pragma once

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <optional>

#include "apiserver/http/handler.h"

namespace svcplane::apiserver::http::internal {

// Verifies `leaf` against the CAs in `roots`, with `intermediates` (may be null) as untrusted
// helpers, at the current time, for the TLS client purpose (ExtKeyUsage clientAuth when the
// extension is present), and describes it. Never fails: the outcome is in `verified` and
// `verify_error`.
PeerCertificate ExamineClientCertificate(X509_STORE* roots, X509* leaf,
                                         STACK_OF(X509) * intermediates);

// The client certificate of a finished handshake, examined against the context's CA store;
// nullopt when the client sent none. The handshake itself accepts any certificate (the
// server's verify callback returns 1) so that the x509 authenticator can answer 401 instead of
// a TLS alert.
std::optional<PeerCertificate> ExaminePeer(SSL* ssl);

}  // namespace svcplane::apiserver::http::internal
