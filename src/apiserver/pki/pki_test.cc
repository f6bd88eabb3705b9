#include "apiserver/pki/pki.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "apiserver/pki/certificate.h"

namespace svcplane::apiserver::pki {
namespace {

class PkiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("svcplane-pki-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  PkiOptions Options() {
    PkiOptions o;
    o.dir = dir_.string();
    o.listen_host = "10.1.2.3";
    o.extra_sans = {"api.example.test", "::1"};
    return o;
  }

  static bool Contains(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  }

  std::filesystem::path dir_;
};

TEST_F(PkiTest, FirstStartCreatesEverythingThatVerifies) {
  auto pki = LoadOrCreatePki(Options());
  ASSERT_TRUE(pki.ok()) << pki.status().ToString();
  EXPECT_TRUE(pki->created_ca);
  EXPECT_EQ(pki->admin_token.size(), 64u);
  EXPECT_EQ(pki->admin_token.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(pki->super_admin_token.size(), 64u);
  EXPECT_NE(pki->super_admin_token, pki->admin_token);

  auto ca = ParseCertificate(pki->ca_cert_pem);
  ASSERT_TRUE(ca.ok());
  EXPECT_TRUE(ca->is_ca);

  ASSERT_TRUE(VerifyCertificate(pki->serving_cert_pem, pki->ca_cert_pem).ok());
  auto srv = ParseCertificate(pki->serving_cert_pem);
  ASSERT_TRUE(srv.ok());
  EXPECT_FALSE(srv->is_ca);
  for (const char* dns : {"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
                          "kubernetes.default.svc.cluster.local", "api.example.test"}) {
    EXPECT_TRUE(Contains(srv->dns_sans, dns)) << dns;
  }
  for (const char* ip : {"127.0.0.1", "10.1.2.3", "::1"}) {
    EXPECT_TRUE(Contains(srv->ip_sans, ip)) << ip;
  }

  ASSERT_TRUE(VerifyCertificate(pki->admin_cert_pem, pki->ca_cert_pem).ok());
  auto admin = ParseCertificate(pki->admin_cert_pem);
  ASSERT_TRUE(admin.ok());
  EXPECT_EQ(admin->common_name, "kubernetes-admin");
  EXPECT_EQ(admin->organizations, std::vector<std::string>{"svcplane:cluster-admins"});
}

TEST_F(PkiTest, SecretsAreOwnerOnly) {
  ASSERT_TRUE(LoadOrCreatePki(Options()).ok());
  for (const char* f :
       {"ca.key", "apiserver.key", "admin.key", "admin.token", "super-admin.token"}) {
    struct stat sb;
    ASSERT_EQ(::stat((dir_ / "pki" / f).c_str(), &sb), 0) << f;
    EXPECT_EQ(sb.st_mode & 0777, 0600u) << f;
  }
}

TEST_F(PkiTest, SecondStartLoadsTheSameMaterial) {
  auto first = LoadOrCreatePki(Options());
  ASSERT_TRUE(first.ok());
  auto second = LoadOrCreatePki(Options());
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_FALSE(second->created_ca);
  EXPECT_EQ(second->ca_cert_pem, first->ca_cert_pem);
  EXPECT_EQ(second->ca_key_pem, first->ca_key_pem);
  EXPECT_EQ(second->serving_cert_pem, first->serving_cert_pem);
  EXPECT_EQ(second->admin_token, first->admin_token);
  EXPECT_EQ(second->super_admin_token, first->super_admin_token);
  EXPECT_EQ(second->admin_cert_pem, first->admin_cert_pem);
}

TEST_F(PkiTest, NewListenHostReissuesServingCertFromTheSameCa) {
  auto first = LoadOrCreatePki(Options());
  ASSERT_TRUE(first.ok());
  PkiOptions moved = Options();
  moved.listen_host = "192.168.7.7";
  auto second = LoadOrCreatePki(moved);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->ca_cert_pem, first->ca_cert_pem);
  EXPECT_NE(second->serving_cert_pem, first->serving_cert_pem);
  EXPECT_TRUE(VerifyCertificate(second->serving_cert_pem, first->ca_cert_pem).ok());
  auto srv = ParseCertificate(second->serving_cert_pem);
  ASSERT_TRUE(srv.ok());
  EXPECT_TRUE(Contains(srv->ip_sans, "192.168.7.7"));
}

TEST_F(PkiTest, CertificateFromAnotherCaDoesNotVerify) {
  auto a = LoadOrCreatePki(Options());
  ASSERT_TRUE(a.ok());
  std::filesystem::remove_all(dir_);
  auto b = LoadOrCreatePki(Options());
  ASSERT_TRUE(b.ok());
  Status st = VerifyCertificate(a->serving_cert_pem, b->ca_cert_pem);
  EXPECT_EQ(st.code(), Code::kUnauthorized) << st.ToString();
}

TEST_F(PkiTest, CaCertWithoutKeyIsAnError) {
  ASSERT_TRUE(LoadOrCreatePki(Options()).ok());
  std::filesystem::remove(dir_ / "pki" / "ca.key");
  auto again = LoadOrCreatePki(Options());
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("ca.crt"), std::string::npos);
}

}  // namespace
}  // namespace svcplane::apiserver::pki
