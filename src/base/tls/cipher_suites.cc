#include "base/tls/cipher_suites.h"

#include <fmt/format.h>

#include <utility>

namespace svcplane::base::tls {
namespace {

// Every TLS 1.2 suite crypto/tls knows (tls.CipherSuites() and tls.InsecureCipherSuites(), as
// k8s.io/component-base/cli/flag accepts them) and OpenSSL's name for it. Insecure ones map
// too, as upstream accepts them; OpenSSL 3 may then have none of them compiled in (RC4), which
// OpenSslCipherList's caller finds out when setting the list.
constexpr std::pair<std::string_view, std::string_view> kTls12Suites[] = {
    {"TLS_RSA_WITH_RC4_128_SHA", "RC4-SHA"},
    {"TLS_RSA_WITH_3DES_EDE_CBC_SHA", "DES-CBC3-SHA"},
    {"TLS_RSA_WITH_AES_128_CBC_SHA", "AES128-SHA"},
    {"TLS_RSA_WITH_AES_256_CBC_SHA", "AES256-SHA"},
    {"TLS_RSA_WITH_AES_128_CBC_SHA256", "AES128-SHA256"},
    {"TLS_RSA_WITH_AES_128_GCM_SHA256", "AES128-GCM-SHA256"},
    {"TLS_RSA_WITH_AES_256_GCM_SHA384", "AES256-GCM-SHA384"},
    {"TLS_ECDHE_ECDSA_WITH_RC4_128_SHA", "ECDHE-ECDSA-RC4-SHA"},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA-AES128-SHA"},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA-AES256-SHA"},
    {"TLS_ECDHE_RSA_WITH_RC4_128_SHA", "ECDHE-RSA-RC4-SHA"},
    {"TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", "ECDHE-RSA-DES-CBC3-SHA"},
    {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA-AES128-SHA"},
    {"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA-AES256-SHA"},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "ECDHE-ECDSA-AES128-SHA256"},
    {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", "ECDHE-RSA-AES128-SHA256"},
    {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA-AES128-GCM-SHA256"},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256"},
    {"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA-AES256-GCM-SHA384"},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA-AES256-GCM-SHA384"},
    {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA-CHACHA20-POLY1305"},
    {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA-CHACHA20-POLY1305"},
    // Go's older names for the two above.
    {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "ECDHE-RSA-CHACHA20-POLY1305"},
    {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "ECDHE-ECDSA-CHACHA20-POLY1305"},
};

constexpr std::string_view kTls13Suites[] = {
    "TLS_AES_128_GCM_SHA256",
    "TLS_AES_256_GCM_SHA384",
    "TLS_CHACHA20_POLY1305_SHA256",
};

}  // namespace

Result<TlsVersion> ParseTlsMinVersion(std::string_view v) {
  if (v == "VersionTLS12") return TlsVersion::kTls12;
  if (v == "VersionTLS13") return TlsVersion::kTls13;
  if (v == "VersionTLS10" || v == "VersionTLS11") {
    return InvalidError(fmt::format(
        "--tls-min-version {} is refused: TLS 1.0 and 1.1 are deprecated (RFC 8996); use "
        "VersionTLS12 or VersionTLS13",
        v));
  }
  return InvalidError(fmt::format(
      "--tls-min-version: unknown TLS version \"{}\"; allowed values: VersionTLS12, VersionTLS13",
      v));
}

Result<std::string> OpenSslCipherList(const std::vector<std::string>& iana_names) {
  if (iana_names.empty()) return std::string(kDefaultTls12CipherList);
  std::string out;
  for (const std::string& name : iana_names) {
    bool known = false;
    for (std::string_view tls13 : kTls13Suites) known = known || name == tls13;
    if (known) continue;
    for (const auto& [iana, openssl] : kTls12Suites) {
      if (name != iana) continue;
      known = true;
      if (!out.empty()) out += ':';
      out += openssl;
      break;
    }
    if (!known) {
      return InvalidError(fmt::format("--tls-cipher-suites: unknown cipher suite \"{}\"", name));
    }
  }
  if (out.empty()) {
    return InvalidError(
        "--tls-cipher-suites: no TLS 1.2 cipher suite given (TLS 1.3 suites are not "
        "configurable)");
  }
  return out;
}

}  // namespace svcplane::base::tls
