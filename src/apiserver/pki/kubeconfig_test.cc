#include "apiserver/pki/kubeconfig.h"

#include <openssl/evp.h>
#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "apiserver/pki/pki.h"

namespace svcplane::apiserver::pki {
namespace {

std::string Unbase64(const std::string& in) {
  std::string out(in.size(), '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(in.data()),
                          static_cast<int>(in.size()));
  EXPECT_GE(n, 0);
  out.resize(static_cast<size_t>(n));
  // EVP_DecodeBlock counts padding as zero bytes.
  size_t pad = 0;
  if (!in.empty() && in.back() == '=') pad++;
  if (in.size() > 1 && in[in.size() - 2] == '=') pad++;
  out.resize(out.size() - pad);
  return out;
}

TEST(KubeconfigTest, ParsesBackWithYamlCpp) {
  auto dir = std::filesystem::temp_directory_path() /
             ("svcplane-kubeconfig-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  PkiOptions opts;
  opts.dir = dir.string();
  auto pki = LoadOrCreatePki(opts);
  ASSERT_TRUE(pki.ok()) << pki.status().ToString();
  std::string path = (dir / "kubeconfig").string();
  ASSERT_TRUE(
      WriteKubeconfig(path, "https://127.0.0.1:6443", pki->ca_cert_pem, pki->admin_token).ok());

  struct stat sb;
  ASSERT_EQ(::stat(path.c_str(), &sb), 0);
  EXPECT_EQ(sb.st_mode & 0777, 0600u);

  YAML::Node cfg = YAML::LoadFile(path);
  EXPECT_EQ(cfg["apiVersion"].as<std::string>(), "v1");
  EXPECT_EQ(cfg["kind"].as<std::string>(), "Config");
  EXPECT_EQ(cfg["current-context"].as<std::string>(), "svcplane");
  const YAML::Node cluster = cfg["clusters"][0];
  EXPECT_EQ(cluster["name"].as<std::string>(), "svcplane");
  EXPECT_EQ(cluster["cluster"]["server"].as<std::string>(), "https://127.0.0.1:6443");
  EXPECT_EQ(Unbase64(cluster["cluster"]["certificate-authority-data"].as<std::string>()),
            pki->ca_cert_pem);
  const YAML::Node user = cfg["users"][0];
  EXPECT_EQ(user["name"].as<std::string>(), "admin");
  EXPECT_EQ(user["user"]["token"].as<std::string>(), pki->admin_token);
  const YAML::Node ctx = cfg["contexts"][0];
  EXPECT_EQ(ctx["context"]["cluster"].as<std::string>(), "svcplane");
  EXPECT_EQ(ctx["context"]["user"].as<std::string>(), "admin");
  std::filesystem::remove_all(dir);
}

TEST(KubeconfigTest, ClientCertificateAndOddCharactersSurvive) {
  KubeconfigParams p;
  p.server_url = "https://[::1]:6443";
  p.ca_pem = "-----BEGIN CERTIFICATE-----\nabc\n-----END CERTIFICATE-----\n";
  p.client_cert_pem = "cert\n";
  p.client_key_pem = "key\n";
  p.user_name = "we\"ird: name";
  YAML::Node cfg = YAML::Load(RenderKubeconfig(p));
  EXPECT_EQ(cfg["clusters"][0]["cluster"]["server"].as<std::string>(), "https://[::1]:6443");
  EXPECT_EQ(cfg["users"][0]["name"].as<std::string>(), "we\"ird: name");
  EXPECT_FALSE(cfg["users"][0]["user"]["token"]);
  EXPECT_EQ(Unbase64(cfg["users"][0]["user"]["client-certificate-data"].as<std::string>()),
            "cert\n");
  EXPECT_EQ(Unbase64(cfg["users"][0]["user"]["client-key-data"].as<std::string>()), "key\n");
}

// Scalars are JSON-quoted (base/json_string.h); YAML reads \uXXXX escapes back to the bytes.
TEST(KubeconfigTest, EscapedScalarsReadBackExactly) {
  KubeconfigParams p;
  p.server_url = "https://127.0.0.1:6443/?a=1&b=<2>";
  p.token = "t\\ok\ten\x01";
  p.context_name = "line\nbreak \u2028 \u00e9";
  YAML::Node cfg = YAML::Load(RenderKubeconfig(p));
  EXPECT_EQ(cfg["clusters"][0]["cluster"]["server"].as<std::string>(), p.server_url);
  EXPECT_EQ(cfg["users"][0]["user"]["token"].as<std::string>(), p.token);
  EXPECT_EQ(cfg["current-context"].as<std::string>(), p.context_name);
  EXPECT_EQ(cfg["contexts"][0]["name"].as<std::string>(), p.context_name);
}

TEST(KubeconfigTest, ServerUrlIsConnectable) {
  EXPECT_EQ(ServerUrl("127.0.0.1", 6443), "https://127.0.0.1:6443");
  EXPECT_EQ(ServerUrl("0.0.0.0", 6443), "https://127.0.0.1:6443");
  EXPECT_EQ(ServerUrl("::", 1), "https://127.0.0.1:1");
  EXPECT_EQ(ServerUrl("::1", 6443), "https://[::1]:6443");
  EXPECT_EQ(ServerUrl("api.example.test", 443), "https://api.example.test:443");
}

}  // namespace
}  // namespace svcplane::apiserver::pki
