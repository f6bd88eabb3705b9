#include "client/transport/credentials.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/transport/kubeconfig.h"
#include "client/transport/testing/tls_test_server.h"

namespace svcplane::client::transport {
namespace {

using ::testing::HasSubstr;
using testing::MakeTempDir;
using testing::WriteFile;

constexpr char kV1[] = "client.authentication.k8s.io/v1";
constexpr char kV1beta1[] = "client.authentication.k8s.io/v1beta1";

TEST(ParseExecCredentialTest, TokenAndExpiryV1) {
  auto s = ParseExecCredential(
      R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
      R"("spec":{"interactive":false},)"
      R"("status":{"token":"abc","expirationTimestamp":"2030-01-02T03:04:05Z"}})",
      kV1);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->token, "abc");
  ASSERT_TRUE(s->expiration.has_value());
  EXPECT_EQ(std::chrono::system_clock::to_time_t(*s->expiration), 1893553445);
}

TEST(ParseExecCredentialTest, ClientCertV1beta1) {
  auto s = ParseExecCredential(
      R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1",)"
      R"("status":{"clientCertificateData":"CERT","clientKeyData":"KEY"}})",
      kV1beta1);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->client_certificate_data, "CERT");
  EXPECT_EQ(s->client_key_data, "KEY");
  EXPECT_FALSE(s->expiration.has_value());
}

TEST(ParseExecCredentialTest, Rejections) {
  EXPECT_THAT(ParseExecCredential("not json", kV1).status().message(),
              HasSubstr("decoding stdout"));
  EXPECT_THAT(ParseExecCredential(
                  R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1",)"
                  R"("status":{"token":"x"}})",
                  kV1)
                  .status()
                  .message(),
              HasSubstr("wanted \"client.authentication.k8s.io/v1\""));
  EXPECT_THAT(
      ParseExecCredential(
          R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1"})", kV1)
          .status()
          .message(),
      HasSubstr("didn't return a status"));
  EXPECT_THAT(ParseExecCredential(
                  R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
                  R"("status":{"clientCertificateData":"C"}})",
                  kV1)
                  .status()
                  .message(),
              HasSubstr("must both be set"));
}

TEST(ParseRfc3339Test, OffsetsAndFractions) {
  auto a = ParseRfc3339("2030-01-02T03:04:05.123Z");
  auto b = ParseRfc3339("2030-01-02T05:04:05+02:00");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_FALSE(ParseRfc3339("yesterday").ok());
}

class ExecPluginTest : public ::testing::Test {
 protected:
  // A plugin that records its environment and args, counts its runs and prints `output`.
  ExecConfig Plugin(const std::string& output, int exit_code = 0) {
    WriteFile(dir_ + "/out.json", output);
    WriteFile(dir_ + "/plugin.sh",
              "#!/bin/sh\n"
              "echo run >> " +
                  dir_ +
                  "/runs\n"
                  "printf '%s' \"$KUBERNETES_EXEC_INFO\" > " +
                  dir_ +
                  "/exec_info\n"
                  "printf '%s %s' \"$FOO\" \"$*\" > " +
                  dir_ +
                  "/env_args\n"
                  "echo 'plugin says hi' >&2\n"
                  "cat " +
                  dir_ +
                  "/out.json\n"
                  "exit " +
                  std::to_string(exit_code) + "\n",
              0755);
    ExecConfig exec;
    exec.command = dir_ + "/plugin.sh";
    exec.args = {"get-token", "--x"};
    exec.env = {{"FOO", "bar"}};
    exec.api_version = kV1;
    return exec;
  }
  int Runs() {
    auto r = ReadFileToString(dir_ + "/runs");
    return r.ok() ? static_cast<int>(std::count(r->begin(), r->end(), '\n')) : 0;
  }
  static std::string Credential(const std::string& token, const std::string& expiry = "") {
    std::string status = R"("token":")" + token + "\"";
    if (!expiry.empty()) status += R"(,"expirationTimestamp":")" + expiry + "\"";
    return R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{)" +
           status + "}}";
  }
  const std::string dir_ = MakeTempDir();
};

TEST_F(ExecPluginTest, PassesArgsEnvAndExecInfo) {
  ExecConfig exec = Plugin(Credential("tok"));
  exec.provide_cluster_info = true;
  RestConfig cluster;
  cluster.host = "https://10.0.0.1:6443";
  cluster.ca_data_base64 = "Y2E=";
  auto s = RunExecPlugin(exec, cluster);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->token, "tok");
  EXPECT_EQ(*ReadFileToString(dir_ + "/env_args"), "bar get-token --x");
  EXPECT_EQ(*ReadFileToString(dir_ + "/exec_info"),
            R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
            R"("spec":{"interactive":false,"cluster":{"server":"https://10.0.0.1:6443",)"
            R"("certificate-authority-data":"Y2E="}}})");
}

TEST_F(ExecPluginTest, FailureReportsExitStatusAndStderr) {
  auto s = RunExecPlugin(Plugin("", 3), RestConfig{});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kUnauthorized);
  EXPECT_THAT(s.status().message(), HasSubstr("exit status 3"));
  EXPECT_THAT(s.status().message(), HasSubstr("plugin says hi"));
}

TEST_F(ExecPluginTest, MissingCommandShowsInstallHint) {
  ExecConfig exec;
  exec.command = dir_ + "/absent";
  exec.api_version = kV1;
  exec.install_hint = "brew install thing";
  auto s = RunExecPlugin(exec, RestConfig{});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("brew install thing"));
}

TEST_F(ExecPluginTest, SourceCachesUntilExpiryAndRerunsAfterUnauthorized) {
  FakeClock clock;  // wall time starts late 2025
  RestConfig config;
  config.exec = Plugin(Credential("tok", "2030-01-01T00:00:00Z"));
  auto source = NewCredentialSource(config, clock);
  EXPECT_EQ(source->Get()->bearer_token, "tok");
  EXPECT_EQ(source->Get()->bearer_token, "tok");
  EXPECT_EQ(Runs(), 1);
  clock.Advance(std::chrono::hours(24 * 365 * 5));  // past the expiry
  EXPECT_EQ(source->Get()->bearer_token, "tok");
  EXPECT_EQ(Runs(), 2);
  EXPECT_TRUE(source->OnUnauthorized());
  EXPECT_EQ(source->Get()->bearer_token, "tok");
  EXPECT_EQ(Runs(), 3);
}

TEST(TokenFileSourceTest, RereadsAfterAMinute) {
  const std::string dir = MakeTempDir();
  WriteFile(dir + "/token", "one\n");
  FakeClock clock;
  RestConfig config;
  config.bearer_token_file = dir + "/token";
  auto source = NewCredentialSource(config, clock);
  EXPECT_EQ(source->Get()->bearer_token, "one");
  WriteFile(dir + "/token", "two");
  clock.Advance(std::chrono::seconds(59));
  EXPECT_EQ(source->Get()->bearer_token, "one");
  clock.Advance(std::chrono::seconds(1));
  EXPECT_EQ(source->Get()->bearer_token, "two");
  // A vanished file keeps the last good token.
  std::remove((dir + "/token").c_str());
  clock.Advance(std::chrono::minutes(2));
  EXPECT_EQ(source->Get()->bearer_token, "two");
}

TEST(StaticSourceTest, ReturnsConfiguredCredentials) {
  RestConfig config;
  config.bearer_token = "t";
  config.client_cert_pem = "c";
  config.client_key_pem = "k";
  auto source = NewCredentialSource(config, RealClock::Get());
  EXPECT_EQ(*source->Get(), (Credentials{"t", "c", "k"}));
  EXPECT_FALSE(source->OnUnauthorized());
}

}  // namespace
}  // namespace svcplane::client::transport
