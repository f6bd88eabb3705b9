#include "apiserver/http/internal/client_cert.h"

#include <gtest/gtest.h>
#include <openssl/x509_vfy.h>

#include "base/tls/x509.h"

namespace svcplane::apiserver::http::internal {
namespace {

using base::tls::CertFromPem;
using base::tls::CertKind;
using base::tls::CertTemplate;
using base::tls::IssueKeyPair;
using base::tls::KeyFromPem;
using base::tls::KeyPair;
using base::tls::X509Ptr;

struct Issuer {
  KeyPair pair;
  X509Ptr cert;
  base::tls::EvpPkeyPtr key;
};

Issuer MakeIssuer(const CertTemplate& tmpl, Issuer* parent = nullptr) {
  auto pair = IssueKeyPair(tmpl, parent ? parent->cert.get() : nullptr,
                           parent ? parent->key.get() : nullptr);
  EXPECT_TRUE(pair.ok());
  Issuer out{*pair, std::move(*CertFromPem(pair->cert_pem)), std::move(*KeyFromPem(pair->key_pem))};
  return out;
}

class ClientCertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ca_ = MakeIssuer({.kind = CertKind::kCa, .common_name = "test-ca"});
    other_ca_ = MakeIssuer({.kind = CertKind::kCa, .common_name = "second-ca"});
    store_ = X509_STORE_new();
    X509_STORE_add_cert(store_, ca_.cert.get());
    X509_STORE_add_cert(store_, other_ca_.cert.get());
  }
  void TearDown() override { X509_STORE_free(store_); }

  PeerCertificate Examine(const CertTemplate& tmpl, Issuer& issuer,
                          STACK_OF(X509) * chain = nullptr) {
    Issuer leaf = MakeIssuer(tmpl, &issuer);
    return ExamineClientCertificate(store_, leaf.cert.get(), chain);
  }

  Issuer ca_, other_ca_;
  X509_STORE* store_ = nullptr;
};

TEST_F(ClientCertTest, ClientCertificateOfATrustedCaVerifies) {
  PeerCertificate p = Examine(
      {.kind = CertKind::kClient, .common_name = "jane", .organizations = {"dev", "ops"}}, ca_);
  EXPECT_TRUE(p.verified) << p.verify_error;
  EXPECT_EQ(p.common_name, "jane");
  EXPECT_EQ(p.organizations, (std::vector<std::string>{"dev", "ops"}));
  EXPECT_EQ(p.sha256_hex.size(), 64u);
  EXPECT_FALSE(p.serial.empty());
  EXPECT_FALSE(p.authority_key_id.empty());
}

TEST_F(ClientCertTest, EveryCaOfTheBundleIsTrusted) {
  EXPECT_TRUE(Examine({.kind = CertKind::kClient, .common_name = "x"}, other_ca_).verified);
}

TEST_F(ClientCertTest, RogueCaIsRefused) {
  Issuer rogue = MakeIssuer({.kind = CertKind::kCa, .common_name = "test-ca"});
  PeerCertificate p = Examine({.kind = CertKind::kClient, .common_name = "jane"}, rogue);
  EXPECT_FALSE(p.verified);
  EXPECT_FALSE(p.verify_error.empty());
  EXPECT_EQ(p.common_name, "jane");  // still described, for the log line
}

TEST_F(ClientCertTest, ExpiredIsRefused) {
  PeerCertificate p =
      Examine({.kind = CertKind::kClient, .common_name = "jane", .valid_days = -1}, ca_);
  EXPECT_FALSE(p.verified);
  EXPECT_EQ(p.verify_error, "certificate has expired");
}

TEST_F(ClientCertTest, ServerOnlyExtKeyUsageIsRefused) {
  PeerCertificate p = Examine({.kind = CertKind::kServer, .common_name = "jane"}, ca_);
  EXPECT_FALSE(p.verified);
  EXPECT_EQ(p.verify_error, "unsuitable certificate purpose");
}

TEST_F(ClientCertTest, IntermediatesSentByTheClientAreUsed) {
  Issuer intermediate = MakeIssuer({.kind = CertKind::kCa, .common_name = "intermediate"}, &ca_);
  Issuer leaf = MakeIssuer({.kind = CertKind::kClient, .common_name = "jane"}, &intermediate);
  EXPECT_FALSE(ExamineClientCertificate(store_, leaf.cert.get(), nullptr).verified);
  STACK_OF(X509)* chain = sk_X509_new_null();
  sk_X509_push(chain, intermediate.cert.get());
  PeerCertificate p = ExamineClientCertificate(store_, leaf.cert.get(), chain);
  sk_X509_free(chain);
  EXPECT_TRUE(p.verified) << p.verify_error;
}

}  // namespace
}  // namespace svcplane::apiserver::http::internal
