#pragma once

// kube-apiserver's --tls-min-version and --tls-cipher-suites, turned into what OpenSSL takes.

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace svcplane::base::tls {

enum class TlsVersion { kTls12, kTls13 };

// "VersionTLS12" or "VersionTLS13". Invalid otherwise; "VersionTLS10"/"VersionTLS11" (which
// upstream still accepts) are refused with a message saying why.
Result<TlsVersion> ParseTlsMinVersion(std::string_view flag_value);

// Go's default for TLS 1.2 (crypto/tls, 1.22+): ECDHE key exchange with an AEAD only
// (AES-GCM, ChaCha20-Poly1305); no RSA key exchange, CBC, 3DES or RC4. OpenSSL's names,
// in the server's order of preference.
inline constexpr std::string_view kDefaultTls12CipherList =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

// The OpenSSL cipher list (for SSL_CTX_set_cipher_list) for IANA suite names as
// --tls-cipher-suites takes them ("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", ...), in the order
// given. Empty input: kDefaultTls12CipherList. TLS 1.3 suite names are accepted and add nothing
// (as in Go, TLS 1.3 suites are not configurable). Invalid for a name that is not a TLS
// suite Go knows, and when no TLS 1.2 suite is left.
Result<std::string> OpenSslCipherList(const std::vector<std::string>& iana_names);

}  // namespace svcplane::base::tls
