#include "base/tls/x509.h"

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include <fmt/format.h>

namespace svcplane::base::tls {
namespace {

Status SslError(std::string_view what) {
  return InternalError(fmt::format("{}: {}", what, TakeOpenSslError()));
}

std::string BioToString(BIO* bio) {
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(len));
}

BioPtr MemBio(std::string_view pem) {
  return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

Status AddExtension(X509* cert, X509V3_CTX* ctx, int nid, const std::string& value) {
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, ctx, nid, value.c_str());
  if (ext == nullptr) return SslError(fmt::format("extension {}={}", OBJ_nid2sn(nid), value));
  int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  if (ok != 1) return SslError("X509_add_ext");
  return Status::Ok();
}

Status SetRandomSerial(X509* cert) {
  // 128 random bits, positive and non-zero as RFC 5280 (and Go's parser) require.
  unsigned char buf[16];
  if (RAND_bytes(buf, sizeof(buf)) != 1) return SslError("RAND_bytes");
  buf[0] = static_cast<unsigned char>((buf[0] & 0x7f) | 0x01);
  BIGNUM* bn = BN_bin2bn(buf, sizeof(buf), nullptr);
  if (bn == nullptr) return SslError("BN_bin2bn");
  ASN1_INTEGER* serial = BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert));
  BN_free(bn);
  if (serial == nullptr) return SslError("BN_to_ASN1_INTEGER");
  return Status::Ok();
}

Status SetSubject(X509* cert, const CertTemplate& tmpl) {
  X509_NAME* name = X509_get_subject_name(cert);
  for (const auto& org : tmpl.organizations) {
    if (X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(org.c_str()), -1, -1,
                                   0) != 1) {
      return SslError("subject O");
    }
  }
  if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(tmpl.common_name.c_str()),
                                 -1, -1, 0) != 1) {
    return SslError("subject CN");
  }
  return Status::Ok();
}

std::string SanValue(const CertTemplate& tmpl) {
  std::string out;
  for (const auto& d : tmpl.dns_sans) out += (out.empty() ? "" : ",") + ("DNS:" + d);
  for (const auto& ip : tmpl.ip_sans) out += (out.empty() ? "" : ",") + ("IP:" + ip);
  return out;
}

Status AddExtensions(X509* cert, X509* issuer, const CertTemplate& tmpl) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer != nullptr ? issuer : cert, cert, nullptr, nullptr, 0);
  // Go's verifier insists on these: CA:TRUE plus keyCertSign on the CA, the right extended key
  // usage on leaves, and names only in SANs (it ignores the CN).
  if (tmpl.kind == CertKind::kCa) {
    SVC_RETURN_IF_ERROR(AddExtension(cert, &ctx, NID_basic_constraints, "critical,CA:TRUE"));
    SVC_RETURN_IF_ERROR(
        AddExtension(cert, &ctx, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature"));
    SVC_RETURN_IF_ERROR(AddExtension(cert, &ctx, NID_subject_key_identifier, "hash"));
    return Status::Ok();
  }
  SVC_RETURN_IF_ERROR(AddExtension(cert, &ctx, NID_basic_constraints, "critical,CA:FALSE"));
  SVC_RETURN_IF_ERROR(
      AddExtension(cert, &ctx, NID_key_usage, "critical,digitalSignature,keyEncipherment"));
  SVC_RETURN_IF_ERROR(AddExtension(cert, &ctx, NID_ext_key_usage,
                                   tmpl.kind == CertKind::kServer ? "serverAuth" : "clientAuth"));
  SVC_RETURN_IF_ERROR(AddExtension(cert, &ctx, NID_authority_key_identifier, "keyid:always"));
  std::string sans = SanValue(tmpl);
  if (!sans.empty()) {
    SVC_RETURN_IF_ERROR(AddExtension(cert, &ctx, NID_subject_alt_name, sans));
  }
  return Status::Ok();
}

}  // namespace

std::string TakeOpenSslError() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

Result<EvpPkeyPtr> GenerateEcP256Key() {
  EvpPkeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return SslError("generate P-256 key");
  return key;
}

Result<std::string> KeyToPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio ||
      PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return SslError("encode private key");
  }
  return BioToString(bio.get());
}

Result<EvpPkeyPtr> KeyFromPem(std::string_view pem) {
  BioPtr bio = MemBio(pem);
  EvpPkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) return SslError("parse private key");
  return key;
}

Result<std::string> CertToPem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) return SslError("encode certificate");
  return BioToString(bio.get());
}

Result<X509Ptr> CertFromPem(std::string_view pem) {
  BioPtr bio = MemBio(pem);
  X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) return SslError("parse certificate");
  return cert;
}

Result<X509Ptr> IssueCertificate(const CertTemplate& tmpl, EVP_PKEY* subject_key, X509* issuer,
                                 EVP_PKEY* issuer_key) {
  X509Ptr cert(X509_new());
  if (!cert) return SslError("X509_new");
  if (X509_set_version(cert.get(), X509_VERSION_3) != 1) return SslError("X509_set_version");
  SVC_RETURN_IF_ERROR(SetRandomSerial(cert.get()));
  // Backdated an hour so that clients with a slightly slow clock accept a fresh certificate.
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(tmpl.valid_days) * 86400L);
  if (X509_set_pubkey(cert.get(), subject_key) != 1) return SslError("X509_set_pubkey");
  SVC_RETURN_IF_ERROR(SetSubject(cert.get(), tmpl));
  X509_NAME* issuer_name = X509_get_subject_name(issuer != nullptr ? issuer : cert.get());
  if (X509_set_issuer_name(cert.get(), issuer_name) != 1) return SslError("X509_set_issuer_name");
  SVC_RETURN_IF_ERROR(AddExtensions(cert.get(), issuer, tmpl));
  if (X509_sign(cert.get(), issuer_key, EVP_sha256()) <= 0) return SslError("X509_sign");
  return cert;
}

Result<KeyPair> IssueKeyPair(const CertTemplate& tmpl, X509* issuer, EVP_PKEY* issuer_key) {
  auto key = GenerateEcP256Key();
  if (!key.ok()) return key.status();
  EVP_PKEY* signer = issuer_key != nullptr ? issuer_key : key->get();
  auto cert = IssueCertificate(tmpl, key->get(), issuer, signer);
  if (!cert.ok()) return cert.status();
  auto cert_pem = CertToPem(cert->get());
  if (!cert_pem.ok()) return cert_pem.status();
  auto key_pem = KeyToPem(key->get());
  if (!key_pem.ok()) return key_pem.status();
  return KeyPair{*cert_pem, *key_pem};
}

bool KeyMatchesCert(EVP_PKEY* key, X509* cert) {
  bool ok = X509_check_private_key(cert, key) == 1;
  ERR_clear_error();
  return ok;
}

}  // namespace svcplane::base::tls
