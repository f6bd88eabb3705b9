#include "apiserver/pki/cluster_secrets.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "apiserver/pki/certificate.h"
#include "apiserver/pki/pki.h"

namespace svcplane::apiserver::pki {
namespace {

ClusterSecrets Sample() { return {"-----CA CERT-----\n", "-----CA KEY-----\n", "t0ken"}; }

TEST(ClusterSecretsTest, SealedSecretsOpenWithTheSameToken) {
  auto sealed = Seal(Sample(), "join-token-1");
  ASSERT_TRUE(sealed.ok()) << sealed.status().message();
  EXPECT_EQ(sealed->find("CA KEY"), std::string::npos) << "the plaintext leaked";
  auto opened = Unseal(*sealed, "join-token-1");
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  EXPECT_EQ(*opened, Sample());
}

TEST(ClusterSecretsTest, AnotherTokenIsForbidden) {
  auto sealed = Seal(Sample(), "join-token-1");
  ASSERT_TRUE(sealed.ok());
  auto opened = Unseal(*sealed, "join-token-2");
  EXPECT_EQ(opened.status().code(), Code::kForbidden);
}

TEST(ClusterSecretsTest, AlteredCiphertextIsForbidden) {
  std::string sealed = *Seal(Sample(), "tok");
  auto pos = sealed.find("\"sealed\":\"") + 10;
  sealed[pos] = sealed[pos] == '0' ? '1' : '0';
  EXPECT_EQ(Unseal(sealed, "tok").status().code(), Code::kForbidden);
}

TEST(ClusterSecretsTest, NotADocumentIsInvalid) {
  EXPECT_EQ(Unseal("{}", "tok").status().code(), Code::kInvalid);
  EXPECT_EQ(Unseal("garbage", "tok").status().code(), Code::kInvalid);
  EXPECT_EQ(Unseal(R"({"format":"svcplane-sealed-secrets/v1","salt":"zz"})", "tok").status().code(),
            Code::kInvalid);
}

TEST(ClusterSecretsTest, BootstrapKeyDependsOnTheTokenAndStaysOutOfRegistry) {
  EXPECT_EQ(BootstrapKey("a"), BootstrapKey("a"));
  EXPECT_NE(BootstrapKey("a"), BootstrapKey("b"));
  // SHA-256("a") starts ca978112ca1bbdca.
  EXPECT_EQ(BootstrapKey("a"), "/svcplane/bootstrap/ca978112ca1bbdca");
}

class ClusterPkiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("svcplane-cluster-pki-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::string Dir(const char* name) { return (root_ / name).string(); }
  std::filesystem::path root_;
};

TEST_F(ClusterPkiTest, ServersOfOneClusterShareTheCaAndTokenButNotServingCerts) {
  auto secrets = LocalOrNewClusterSecrets(Dir("a"));
  ASSERT_TRUE(secrets.ok()) << secrets.status().message();
  auto a = LoadOrCreatePki({.dir = Dir("a"), .listen_host = "127.0.0.2", .cluster = &*secrets});
  auto b = LoadOrCreatePki({.dir = Dir("b"), .listen_host = "127.0.0.3", .cluster = &*secrets});
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(a->ca_cert_pem, secrets->ca_cert_pem);
  EXPECT_EQ(b->ca_cert_pem, secrets->ca_cert_pem);
  EXPECT_EQ(a->admin_token, secrets->admin_token);
  EXPECT_EQ(b->admin_token, secrets->admin_token);
  EXPECT_NE(a->serving_cert_pem, b->serving_cert_pem);
  EXPECT_TRUE(VerifyCertificate(b->serving_cert_pem, a->ca_cert_pem).ok());
  // A server that ran before keeps what its folder holds.
  auto again = LocalOrNewClusterSecrets(Dir("a"));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *secrets);
}

TEST_F(ClusterPkiTest, AFolderWithAnotherCaRefusesToJoin) {
  ASSERT_TRUE(LoadOrCreatePki({.dir = Dir("alone")}).ok());
  auto other = LocalOrNewClusterSecrets(Dir("fresh"));
  ASSERT_TRUE(other.ok());
  auto joined = LoadOrCreatePki({.dir = Dir("alone"), .cluster = &*other});
  EXPECT_EQ(joined.status().code(), Code::kConflict);
  EXPECT_NE(joined.status().message().find("another CA"), std::string::npos);
}

}  // namespace
}  // namespace svcplane::apiserver::pki
