#include "base/tls/cipher_suites.h"

#include <gtest/gtest.h>

namespace svcplane::base::tls {
namespace {

TEST(TlsMinVersionTest, AcceptsTls12And13) {
  EXPECT_EQ(*ParseTlsMinVersion("VersionTLS12"), TlsVersion::kTls12);
  EXPECT_EQ(*ParseTlsMinVersion("VersionTLS13"), TlsVersion::kTls13);
}

TEST(TlsMinVersionTest, RefusesTls10And11WithTheReason) {
  for (const char* v : {"VersionTLS10", "VersionTLS11"}) {
    auto r = ParseTlsMinVersion(v);
    ASSERT_FALSE(r.ok()) << v;
    EXPECT_EQ(r.status().code(), Code::kInvalid);
    EXPECT_NE(r.status().message().find("TLS 1.0 and 1.1 are deprecated"), std::string::npos);
  }
  auto bad = ParseTlsMinVersion("tls12");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "--tls-min-version: unknown TLS version \"tls12\"; allowed values: VersionTLS12, "
            "VersionTLS13");
}

TEST(CipherSuitesTest, DefaultIsEcdheWithAeadOnly) {
  EXPECT_EQ(*OpenSslCipherList({}), std::string(kDefaultTls12CipherList));
  for (std::string_view weak :
       {"CBC", "SHA:", "DES", "RC4", ":AES128-GCM", "ECDHE-RSA-AES128-SHA"}) {
    EXPECT_EQ(std::string(kDefaultTls12CipherList).find(weak), std::string::npos) << weak;
  }
}

TEST(CipherSuitesTest, MapsIanaNamesInOrderAndSkipsTls13) {
  auto r = OpenSslCipherList({"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256",
                              "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
                              "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(
      *r, "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305");
}

TEST(CipherSuitesTest, UnknownNameIsAnError) {
  auto r = OpenSslCipherList({"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA-AES128-SHA"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "--tls-cipher-suites: unknown cipher suite \"ECDHE-RSA-AES128-SHA\"");
  EXPECT_FALSE(OpenSslCipherList({"TLS_AES_256_GCM_SHA384"}).ok());  // nothing for TLS 1.2
}

}  // namespace
}  // namespace svcplane::base::tls
