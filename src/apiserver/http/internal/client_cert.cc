#include "apiserver/http/internal/client_cert.h"

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/x509v3.h>

#include <memory>
#include <string>
#include <vector>

namespace svcplane::apiserver::http::internal {
namespace {

std::vector<std::string> NameEntries(X509_NAME* name, int nid) {
  std::vector<std::string> out;
  for (int i = X509_NAME_get_index_by_NID(name, nid, -1); i >= 0;
       i = X509_NAME_get_index_by_NID(name, nid, i)) {
    unsigned char* utf8 = nullptr;
    int len = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i)));
    if (len >= 0) out.emplace_back(reinterpret_cast<char*>(utf8), static_cast<size_t>(len));
    OPENSSL_free(utf8);
  }
  return out;
}

// "AA:BB:.." as Go's %X-with-colons rendering of key ids in the failure log line.
std::string ColonHex(const ASN1_OCTET_STRING* s) {
  if (s == nullptr) return "";
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  const unsigned char* d = ASN1_STRING_get0_data(s);
  for (int i = 0; i < ASN1_STRING_length(s); ++i) {
    if (i) out.push_back(':');
    out.push_back(kHex[d[i] >> 4]);
    out.push_back(kHex[d[i] & 0xf]);
  }
  return out;
}

std::string DecimalSerial(X509* cert) {
  BIGNUM* bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert), nullptr);
  if (bn == nullptr) return "";
  char* dec = BN_bn2dec(bn);
  std::string out = dec ? dec : "";
  OPENSSL_free(dec);
  BN_free(bn);
  return out;
}

std::string Sha256Hex(X509* cert) {
  unsigned char* der = nullptr;
  int len = i2d_X509(cert, &der);
  if (len <= 0) return "";
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  bool ok = EVP_Digest(der, static_cast<size_t>(len), md, &md_len, EVP_sha256(), nullptr) == 1;
  OPENSSL_free(der);
  if (!ok) return "";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < md_len; ++i) {
    out.push_back(kHex[md[i] >> 4]);
    out.push_back(kHex[md[i] & 0xf]);
  }
  return out;
}

}  // namespace

PeerCertificate ExamineClientCertificate(X509_STORE* roots, X509* leaf,
                                         STACK_OF(X509) * intermediates) {
  PeerCertificate peer;
  X509_NAME* subject = X509_get_subject_name(leaf);
  auto cns = NameEntries(subject, NID_commonName);
  if (!cns.empty()) peer.common_name = cns.front();
  peer.organizations = NameEntries(subject, NID_organizationName);
  peer.uids = NameEntries(subject, NID_userId);
  peer.sha256_hex = Sha256Hex(leaf);
  peer.serial = DecimalSerial(leaf);
  peer.subject_key_id = ColonHex(X509_get0_subject_key_id(leaf));
  peer.authority_key_id = ColonHex(X509_get0_authority_key_id(leaf));

  std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> ctx(X509_STORE_CTX_new(),
                                                                      &X509_STORE_CTX_free);
  if (!ctx || roots == nullptr || X509_STORE_CTX_init(ctx.get(), roots, leaf, intermediates) != 1) {
    peer.verify_error = "no client CA configured";
    ERR_clear_error();
    return peer;
  }
  X509_STORE_CTX_set_purpose(ctx.get(), X509_PURPOSE_SSL_CLIENT);
  if (X509_verify_cert(ctx.get()) == 1) {
    peer.verified = true;
  } else {
    peer.verify_error = X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx.get()));
  }
  ERR_clear_error();
  return peer;
}

std::optional<PeerCertificate> ExaminePeer(SSL* ssl) {
  X509* leaf = SSL_get0_peer_certificate(ssl);
  if (leaf == nullptr) return std::nullopt;
  // Server side, the peer chain holds the certificates the client sent after its leaf.
  STACK_OF(X509)* chain = SSL_get_peer_cert_chain(ssl);
  return ExamineClientCertificate(SSL_CTX_get_cert_store(SSL_get_SSL_CTX(ssl)), leaf, chain);
}

}  // namespace svcplane::apiserver::http::internal
