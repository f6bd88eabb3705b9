#pragma once

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

// Thin RAII and error adapters over OpenSSL for key and certificate issuing, shared by the API
// server's PKI (apiserver/pki) and the self-signed serving certificates of components that must
// not depend on the API server (base/tls/self_signed.h). Only .cc files include this; their
// public headers speak PEM strings.
namespace svcplane::base::tls {

struct EvpPkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct X509Free {
  void operator()(X509* p) const { X509_free(p); }
};
struct BioFree {
  void operator()(BIO* p) const { BIO_free(p); }
};
using EvpPkeyPtr = std::unique_ptr<EVP_PKEY, EvpPkeyFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using BioPtr = std::unique_ptr<BIO, BioFree>;

// Drains OpenSSL's thread-local error queue into one line.
std::string TakeOpenSslError();

Result<EvpPkeyPtr> GenerateEcP256Key();
Result<std::string> KeyToPem(EVP_PKEY* key);
Result<EvpPkeyPtr> KeyFromPem(std::string_view pem);
Result<std::string> CertToPem(X509* cert);
Result<X509Ptr> CertFromPem(std::string_view pem);

enum class CertKind { kCa, kServer, kClient };

struct CertTemplate {
  CertKind kind = CertKind::kServer;
  std::string common_name;
  std::vector<std::string> organizations;
  std::vector<std::string> dns_sans;
  std::vector<std::string> ip_sans;
  int valid_days = 365;
};

// Issues a certificate for `subject_key`, signed by `issuer_key`. A null `issuer` means
// self-signed (the CA).
Result<X509Ptr> IssueCertificate(const CertTemplate& tmpl, EVP_PKEY* subject_key, X509* issuer,
                                 EVP_PKEY* issuer_key);

// A certificate and its private key, PEM-encoded.
struct KeyPair {
  std::string cert_pem, key_pem;
};

// A fresh P-256 key and a certificate for it, as PEM. A null `issuer` means self-signed: the
// certificate is signed with its own new key (a CA).
Result<KeyPair> IssueKeyPair(const CertTemplate& tmpl, X509* issuer, EVP_PKEY* issuer_key);

// True when `key` is the private half of `cert`'s public key.
bool KeyMatchesCert(EVP_PKEY* key, X509* cert);

}  // namespace svcplane::base::tls
