#pragma once

#include <string>
#include <vector>

#include "apiserver/http/handler.h"

namespace svcplane::apiserver::http {

// Accepts `Authorization: Bearer <token>` when the token equals `token`, compared in constant
// time (SHA-256 of both sides, then CRYPTO_memcmp, so neither content nor length leaks through
// timing). Yields `identity`.
Authenticator BearerTokenAuthenticator(std::string token, Identity identity);

// Accepts a request whose TLS client certificate verified against the server's client CA
// (ServerOptions::client_ca_pem); user = CN, groups = O entries plus system:authenticated.
Authenticator ClientCertAuthenticator();

// The first authenticator that accepts wins.
Authenticator FirstOf(std::vector<Authenticator> authenticators);

// The admin identity both admin credentials map to.
Identity AdminIdentity();

}  // namespace svcplane::apiserver::http
