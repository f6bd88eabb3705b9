#include "apiserver/pki/certificate.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <memory>

#include <fmt/format.h>

#include "base/tls/x509.h"

namespace svcplane::apiserver::pki {

namespace tls = base::tls;

namespace {

std::vector<std::string> NameEntries(X509_NAME* name, int nid) {
  std::vector<std::string> out;
  for (int i = X509_NAME_get_index_by_NID(name, nid, -1); i >= 0;
       i = X509_NAME_get_index_by_NID(name, nid, i)) {
    ASN1_STRING* s = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i));
    unsigned char* utf8 = nullptr;
    int len = ASN1_STRING_to_UTF8(&utf8, s);
    if (len >= 0) out.emplace_back(reinterpret_cast<char*>(utf8), static_cast<size_t>(len));
    OPENSSL_free(utf8);
  }
  return out;
}

std::string IpToString(const ASN1_OCTET_STRING* ip) {
  char buf[INET6_ADDRSTRLEN] = {};
  int len = ASN1_STRING_length(ip);
  const unsigned char* data = ASN1_STRING_get0_data(ip);
  if (len == 4) inet_ntop(AF_INET, data, buf, sizeof(buf));
  if (len == 16) inet_ntop(AF_INET6, data, buf, sizeof(buf));
  return buf;
}

void ReadSans(X509* cert, CertificateInfo* info) {
  auto* names =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (names == nullptr) return;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* gn = sk_GENERAL_NAME_value(names, i);
    if (gn->type == GEN_DNS) {
      const ASN1_IA5STRING* s = gn->d.dNSName;
      info->dns_sans.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                                  static_cast<size_t>(ASN1_STRING_length(s)));
    } else if (gn->type == GEN_IPADD) {
      info->ip_sans.push_back(IpToString(gn->d.iPAddress));
    }
  }
  GENERAL_NAMES_free(names);
}

struct StoreFree {
  void operator()(X509_STORE* p) const { X509_STORE_free(p); }
};
struct StoreCtxFree {
  void operator()(X509_STORE_CTX* p) const { X509_STORE_CTX_free(p); }
};

}  // namespace

Result<CertificateInfo> ParseCertificate(std::string_view cert_pem) {
  auto cert = tls::CertFromPem(cert_pem);
  if (!cert.ok()) return cert.status();
  X509* x = cert->get();
  CertificateInfo info;
  X509_NAME* subject = X509_get_subject_name(x);
  auto cns = NameEntries(subject, NID_commonName);
  if (!cns.empty()) info.common_name = cns.front();
  info.organizations = NameEntries(subject, NID_organizationName);
  ReadSans(x, &info);
  std::tm tm = {};
  if (ASN1_TIME_to_tm(X509_get0_notAfter(x), &tm) == 1) {
    info.not_after = std::chrono::system_clock::from_time_t(timegm(&tm));
  }
  info.is_ca = X509_check_ca(x) != 0;
  ERR_clear_error();
  return info;
}

Status VerifyCertificate(std::string_view cert_pem, std::string_view ca_pem) {
  auto cert = tls::CertFromPem(cert_pem);
  if (!cert.ok()) return cert.status();
  auto ca = tls::CertFromPem(ca_pem);
  if (!ca.ok()) return ca.status();
  std::unique_ptr<X509_STORE, StoreFree> store(X509_STORE_new());
  std::unique_ptr<X509_STORE_CTX, StoreCtxFree> ctx(X509_STORE_CTX_new());
  if (!store || !ctx || X509_STORE_add_cert(store.get(), ca->get()) != 1 ||
      X509_STORE_CTX_init(ctx.get(), store.get(), cert->get(), nullptr) != 1) {
    return InternalError("certificate store: " + tls::TakeOpenSslError());
  }
  if (X509_verify_cert(ctx.get()) != 1) {
    int err = X509_STORE_CTX_get_error(ctx.get());
    ERR_clear_error();
    return Status(Code::kUnauthorized, fmt::format("certificate does not verify: {}",
                                                   X509_verify_cert_error_string(err)));
  }
  return Status::Ok();
}

}  // namespace svcplane::apiserver::pki
