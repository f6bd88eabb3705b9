#include "base/tls/self_signed.h"

#include <arpa/inet.h>

#include <fmt/format.h>

#include "base/tls/x509.h"

namespace svcplane::base::tls {
namespace {

bool IsIpLiteral(const std::string& s) {
  unsigned char buf[16];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

}  // namespace

Result<SelfSignedCert> GenerateSelfSignedCertKey(std::string_view host,
                                                 const std::vector<std::string>& alternate_ips,
                                                 const std::vector<std::string>& alternate_dns,
                                                 std::chrono::system_clock::time_point now) {
  const int64_t stamp =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  CertTemplate ca_tmpl;
  ca_tmpl.kind = CertKind::kCa;
  ca_tmpl.common_name = fmt::format("{}-ca@{}", host, stamp);
  auto ca = IssueKeyPair(ca_tmpl, nullptr, nullptr);
  if (!ca.ok()) return ca.status();

  CertTemplate tmpl;
  tmpl.kind = CertKind::kServer;
  tmpl.common_name = fmt::format("{}@{}", host, stamp);
  std::string h(host);
  (IsIpLiteral(h) ? tmpl.ip_sans : tmpl.dns_sans).push_back(h);
  tmpl.ip_sans.insert(tmpl.ip_sans.end(), alternate_ips.begin(), alternate_ips.end());
  tmpl.dns_sans.insert(tmpl.dns_sans.end(), alternate_dns.begin(), alternate_dns.end());
  auto ca_cert = CertFromPem(ca->cert_pem);
  if (!ca_cert.ok()) return ca_cert.status();
  auto ca_key = KeyFromPem(ca->key_pem);
  if (!ca_key.ok()) return ca_key.status();
  auto leaf = IssueKeyPair(tmpl, ca_cert->get(), ca_key->get());
  if (!leaf.ok()) return leaf.status();
  return SelfSignedCert{leaf->cert_pem + ca->cert_pem, leaf->key_pem, ca->cert_pem};
}

}  // namespace svcplane::base::tls
