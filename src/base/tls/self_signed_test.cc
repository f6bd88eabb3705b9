#include "base/tls/self_signed.h"

#include <openssl/x509v3.h>

#include <gtest/gtest.h>

#include "base/tls/x509.h"

namespace svcplane::base::tls {
namespace {

using std::chrono::system_clock;

std::string CommonName(X509_NAME* name) {
  char buf[256] = {};
  X509_NAME_get_text_by_NID(name, NID_commonName, buf, sizeof(buf));
  return buf;
}

std::vector<std::string> Sans(X509* cert) {
  std::vector<std::string> out;
  auto* names =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; names != nullptr && i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* gn = sk_GENERAL_NAME_value(names, i);
    if (gn->type == GEN_DNS) {
      out.push_back("DNS:" + std::string(reinterpret_cast<const char*>(
                                 ASN1_STRING_get0_data(gn->d.dNSName))));
    } else if (gn->type == GEN_IPADD && ASN1_STRING_length(gn->d.iPAddress) == 4) {
      const unsigned char* ip = ASN1_STRING_get0_data(gn->d.iPAddress);
      out.push_back("IP:" + std::to_string(ip[0]) + "." + std::to_string(ip[1]) + "." +
                    std::to_string(ip[2]) + "." + std::to_string(ip[3]));
    }
  }
  GENERAL_NAMES_free(names);
  return out;
}

TEST(SelfSignedTest, ServingCertificateChainsToItsOwnCaAsClientGoNamesThem) {
  const auto now = system_clock::time_point(std::chrono::seconds(1700000000));
  auto got = GenerateSelfSignedCertKey("localhost", {"127.0.0.1"}, {"kcm.test"}, now);
  ASSERT_TRUE(got.ok()) << got.status().ToString();

  auto leaf = CertFromPem(got->cert_pem);  // the first certificate of the chain
  auto ca = CertFromPem(got->ca_pem);
  auto key = KeyFromPem(got->key_pem);
  ASSERT_TRUE(leaf.ok() && ca.ok() && key.ok());
  EXPECT_EQ(CommonName(X509_get_subject_name(leaf->get())), "localhost@1700000000");
  EXPECT_EQ(CommonName(X509_get_issuer_name(leaf->get())), "localhost-ca@1700000000");
  EXPECT_EQ(CommonName(X509_get_subject_name(ca->get())), "localhost-ca@1700000000");
  EXPECT_EQ(Sans(leaf->get()),
            (std::vector<std::string>{"DNS:localhost", "DNS:kcm.test", "IP:127.0.0.1"}));
  EXPECT_TRUE(KeyMatchesCert(key->get(), leaf->get()));
  // The chain to serve is the leaf, then the CA.
  EXPECT_EQ(got->cert_pem.find(got->ca_pem), got->cert_pem.size() - got->ca_pem.size());
  // Signed by the CA's key, and the CA is a CA.
  EXPECT_EQ(X509_verify(leaf->get(), X509_get0_pubkey(ca->get())), 1);
  EXPECT_EQ(X509_check_ca(ca->get()), 1);
  EXPECT_EQ(X509_check_ca(leaf->get()), 0);
}

TEST(SelfSignedTest, AnIpHostBecomesAnIpSan) {
  auto got = GenerateSelfSignedCertKey("127.0.0.1", {}, {}, system_clock::now());
  ASSERT_TRUE(got.ok());
  auto leaf = CertFromPem(got->cert_pem);
  ASSERT_TRUE(leaf.ok());
  EXPECT_EQ(Sans(leaf->get()), std::vector<std::string>{"IP:127.0.0.1"});
}

TEST(SelfSignedTest, EveryCallMakesANewCa) {
  auto a = GenerateSelfSignedCertKey("localhost", {}, {}, system_clock::now());
  auto b = GenerateSelfSignedCertKey("localhost", {}, {}, system_clock::now());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->ca_pem, b->ca_pem);
  EXPECT_NE(a->key_pem, b->key_pem);
}

}  // namespace
}  // namespace svcplane::base::tls
