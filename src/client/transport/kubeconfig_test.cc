#include "client/transport/kubeconfig.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/transport/testing/tls_test_server.h"

namespace svcplane::client::transport {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::MakeTempDir;
using testing::WriteFile;

class KubeconfigTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& yaml) {
    const std::string path = dir_ + "/config";
    WriteFile(path, yaml);
    return path;
  }
  const std::string dir_ = MakeTempDir();
};

constexpr char kTwoContexts[] = R"(
apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority-data: Y2EtcGVt
    tls-server-name: kubernetes
- name: prod-cluster
  cluster:
    server: https://prod.example:443
    insecure-skip-tls-verify: true
contexts:
- name: dev
  context:
    cluster: dev-cluster
    user: dev-user
    namespace: team-a
- name: prod
  context:
    cluster: prod-cluster
    user: prod-user
users:
- name: dev-user
  user:
    token: dev-token
- name: prod-user
  user:
    tokenFile: token.txt
)";

TEST_F(KubeconfigTest, TokenUserFromCurrentContext) {
  WriteFile(dir_ + "/token.txt", "file-token\n");
  auto c = LoadKubeconfig(Write(kTwoContexts));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->host, "https://127.0.0.1:6443");
  EXPECT_EQ(c->ca_pem, "ca-pem");
  EXPECT_EQ(c->tls_server_name, "kubernetes");
  EXPECT_FALSE(c->insecure_skip_tls_verify);
  EXPECT_EQ(c->bearer_token, "dev-token");
  EXPECT_EQ(c->namespace_, "team-a");
}

TEST_F(KubeconfigTest, ContextOverrideSelectsOtherClusterAndUser) {
  WriteFile(dir_ + "/token.txt", "file-token\n");
  auto c = LoadKubeconfig(Write(kTwoContexts), "prod");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->host, "https://prod.example:443");
  EXPECT_TRUE(c->insecure_skip_tls_verify);
  EXPECT_EQ(c->bearer_token_file, dir_ + "/token.txt");  // relative to the kubeconfig
  EXPECT_EQ(c->namespace_, "");
}

TEST_F(KubeconfigTest, ClientCertificateFromFilesAndData) {
  const auto& certs = testing::TestCerts::Get();
  auto c = LoadKubeconfig(Write(R"(
current-context: c
clusters:
- name: k
  cluster: {server: "https://10.0.0.1", certificate-authority: )" +
                                certs.ca_file + R"(}
contexts:
- name: c
  context: {cluster: k, user: u}
users:
- name: u
  user:
    client-certificate: )" + certs.client_cert_file +
                                R"(
    client-key-data: )" + Base64Encode(certs.client_key_pem) +
                                "\n"));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->ca_pem, certs.ca_pem);
  EXPECT_EQ(c->client_cert_pem, certs.client_cert_pem);
  EXPECT_EQ(c->client_key_pem, certs.client_key_pem);
}

TEST_F(KubeconfigTest, ExecPluginConfig) {
  auto c = LoadKubeconfig(Write(R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://10.0.0.1"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ./bin/plugin
      args: ["get-token", "--cluster=x"]
      env: [{name: FOO, value: bar}]
      provideClusterInfo: true
      installHint: install it
)"));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_TRUE(c->exec.has_value());
  EXPECT_EQ(c->exec->command, dir_ + "/./bin/plugin");
  EXPECT_EQ(c->exec->args, (std::vector<std::string>{"get-token", "--cluster=x"}));
  ASSERT_EQ(c->exec->env.size(), 1u);
  EXPECT_EQ(c->exec->env[0].first, "FOO");
  EXPECT_EQ(c->exec->api_version, "client.authentication.k8s.io/v1beta1");
  EXPECT_TRUE(c->exec->provide_cluster_info);
}

TEST_F(KubeconfigTest, ExecCommandWithoutSlashIsLookedUpOnPath) {
  auto c = LoadKubeconfig(Write(R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://10.0.0.1"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: gke-gcloud-auth-plugin}}}]
)"));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->exec->command, "gke-gcloud-auth-plugin");
}

struct BrokenCase {
  std::string yaml;
  std::string context;
  std::string message;  // after "kubeconfig <path>: "
  friend void PrintTo(const BrokenCase& c, std::ostream* os) { *os << c.message; }
};

class BrokenKubeconfigTest : public KubeconfigTest,
                             public ::testing::WithParamInterface<BrokenCase> {};

TEST_P(BrokenKubeconfigTest, ErrorNamesFileAndField) {
  const std::string path = Write(GetParam().yaml);
  auto c = LoadKubeconfig(path, GetParam().context);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kInvalid);
  EXPECT_EQ(c.status().message(), "kubeconfig " + path + ": " + GetParam().message);
}

constexpr char kHead[] = R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://10.0.0.1"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)";

INSTANTIATE_TEST_SUITE_P(
    Cases, BrokenKubeconfigTest,
    ::testing::Values(
        BrokenCase{std::string(kHead) + "users: [{name: u, user: {client-certificate: /nope, "
                                        "client-key: /nope}}]",
                   "", "users[0].user.client-certificate: open /nope: No such file or directory"},
        BrokenCase{std::string(kHead) + "users: [{name: x}, {name: u, user: {client-key-data: "
                                        "'%%%'}}]",
                   "",
                   "users[1].user.client-key-data: illegal base64 data: unexpected "
                   "character '%'"},
        BrokenCase{std::string(kHead) + "users: [{name: u, user: {tokenFile: /no/token}}]", "",
                   "users[0].user.tokenFile: open /no/token: No such file or directory"},
        BrokenCase{std::string(kHead) + "users: [{name: u, user: {exec: {command: x, "
                                        "apiVersion: client.authentication.k8s.io/v1alpha1}}}]",
                   "",
                   "users[0].user.exec.apiVersion: \"client.authentication.k8s.io/v1alpha1\" is "
                   "not supported (want client.authentication.k8s.io/v1 or v1beta1)"},
        BrokenCase{std::string(kHead) + "users: [{name: u, user: {exec: {apiVersion: "
                                        "client.authentication.k8s.io/v1}}}]",
                   "", "users[0].user.exec.command: required"},
        BrokenCase{std::string(kHead) + "users: [{name: u, user: {auth-provider: {name: gcp}}}]",
                   "",
                   "users[0].user.auth-provider: auth-provider plugins are not supported; use an "
                   "exec credential plugin"},
        BrokenCase{std::string(kHead) + "users: [{name: v}]", "", "users: user \"u\" not found"},
        BrokenCase{std::string(kHead) + "users: [{name: u}]", "other",
                   "contexts: context \"other\" not found"},
        BrokenCase{R"(
clusters: [{name: k, cluster: {server: "https://10.0.0.1"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)",
                   "", "current-context: not set and no context given (use --context)"},
        BrokenCase{R"(
current-context: c
clusters: [{name: k, cluster: {certificate-authority: /x}}]
contexts: [{name: c, context: {cluster: k}}]
)",
                   "", "clusters[0].cluster.server: required"},
        BrokenCase{R"(
current-context: c
clusters: [{name: k, cluster: {server: "10.0.0.1:6443"}}]
contexts: [{name: c, context: {cluster: k}}]
)",
                   "", "clusters[0].cluster.server: \"10.0.0.1:6443\" is not an http(s) URL"},
        BrokenCase{R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://x", insecure-skip-tls-verify: maybe}}]
contexts: [{name: c, context: {cluster: k}}]
)",
                   "",
                   "clusters[0].cluster.insecure-skip-tls-verify: must be true or false, got "
                   "\"maybe\""},
        BrokenCase{R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://x", certificate-authority: /no/ca.crt}}]
contexts: [{name: c, context: {cluster: k}}]
)",
                   "",
                   "clusters[0].cluster.certificate-authority: open /no/ca.crt: No such file or "
                   "directory"},
        BrokenCase{"clusters: [", "",
                   "invalid YAML: yaml-cpp: error at line 1, column 1: end "
                   "of sequence flow not found"}));

TEST_F(KubeconfigTest, MissingFile) {
  auto c = LoadKubeconfig(dir_ + "/absent");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "kubeconfig " + dir_ + "/absent: open " + dir_ + "/absent: No such file or directory");
}

TEST(InClusterConfigTest, ReadsServiceAccountFiles) {
  const std::string dir = MakeTempDir();
  WriteFile(dir + "/token", "sa-token\n");
  WriteFile(dir + "/ca.crt", "ca");
  WriteFile(dir + "/namespace", "kube-system");
  InClusterPaths paths{dir + "/token", dir + "/ca.crt", dir + "/namespace", "10.96.0.1", "443"};
  auto c = InClusterConfig(paths);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->host, "https://10.96.0.1:443");
  EXPECT_EQ(c->bearer_token, "sa-token");
  EXPECT_EQ(c->bearer_token_file, dir + "/token");
  EXPECT_EQ(c->ca_pem, "ca");
  EXPECT_EQ(c->namespace_, "kube-system");

  paths.host = "fd00::1";
  EXPECT_EQ(InClusterConfig(paths)->host, "https://[fd00::1]:443");
}

TEST(InClusterConfigTest, OutsideAPodIsUnavailable) {
  unsetenv("KUBERNETES_SERVICE_HOST");
  auto c = InClusterConfig();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kUnavailable);
}

TEST(OverrideServersTest, RepeatedAndCommaSeparatedServersReplaceTheHostInOrder) {
  RestConfig c;
  c.host = "https://kubeconfig:6443";
  c.bearer_token = "t";
  ASSERT_TRUE(
      OverrideServers({"https://a:6443, https://b:6443", "https://c:6443/prefix"}, &c).ok());
  EXPECT_EQ(c.host, "https://a:6443");
  EXPECT_THAT(c.fallback_hosts, ElementsAre("https://b:6443", "https://c:6443/prefix"));
  EXPECT_EQ(c.bearer_token, "t");  // credentials and CA stay the kubeconfig's

  ASSERT_TRUE(OverrideServers({"https://only:6443"}, &c).ok());
  EXPECT_EQ(c.host, "https://only:6443");
  EXPECT_TRUE(c.fallback_hosts.empty());

  ASSERT_TRUE(OverrideServers({}, &c).ok());
  EXPECT_EQ(c.host, "https://only:6443");
}

TEST(OverrideServersTest, RefusesEntriesThatAreNotServerUrls) {
  for (std::string bad : {"", "https://a:1,", "a:6443", "ftp://a", "https://"}) {
    RestConfig c;
    Status st = OverrideServers({bad}, &c);
    EXPECT_EQ(st.code(), Code::kInvalid) << bad;
    EXPECT_THAT(st.message(), HasSubstr("--server")) << bad;
  }
}

TEST(Base64Test, RoundTrip) {
  for (std::string s : {"", "a", "ab", "abc", "abcd", "hello world\n"}) {
    EXPECT_EQ(*Base64Decode(Base64Encode(s)), s);
  }
  EXPECT_EQ(Base64Encode("ca-pem"), "Y2EtcGVt");
}

}  // namespace
}  // namespace svcplane::client::transport
