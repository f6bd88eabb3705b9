#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/status.h"

namespace svcplane::apiserver::pki {

// What the rest of svcplane needs to know about a certificate, without OpenSSL types.
struct CertificateInfo {
  std::string common_name;
  std::vector<std::string> organizations;
  std::vector<std::string> dns_sans;
  std::vector<std::string> ip_sans;  // textual: "127.0.0.1", "::1"
  std::chrono::system_clock::time_point not_after;
  bool is_ca = false;
};

Result<CertificateInfo> ParseCertificate(std::string_view cert_pem);

// Ok when `cert_pem` chains to `ca_pem` and is valid now; Unauthorized otherwise (the message
// says why, as OpenSSL words it).
Status VerifyCertificate(std::string_view cert_pem, std::string_view ca_pem);

}  // namespace svcplane::apiserver::pki
