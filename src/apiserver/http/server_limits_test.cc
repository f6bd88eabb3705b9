// The hardening limits of the HTTPS server (spec §6): TLS versions and ciphers, header size and
// read-header timeout, the request timeout (504), max-in-flight (429), upgrade requests.

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "apiserver/http/auth.h"
#include "apiserver/http/server.h"
#include "apiserver/http/testing/subprocess.h"
#include "apiserver/http/testing/tls_client.h"
#include "apiserver/pki/pki.h"
#include "base/suspend.h"

namespace svcplane::apiserver::http {
namespace {

using namespace std::chrono_literals;
using testing::ClientOptions;
using testing::RunCommand;
using testing::TlsClient;

constexpr char kJaneToken[] = "jane-token-0123456789";

class ServerLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("svcplane-http-limits-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    pki::PkiOptions popts;
    popts.dir = dir_.string();
    auto p = pki::LoadOrCreatePki(popts);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    pki_ = *p;
    std::ofstream(dir_ / "ca.crt") << pki_.ca_cert_pem;
  }

  void TearDown() override {
    Unblock();
    if (server_) server_->Shutdown(5s);
    server_.reset();
    std::filesystem::remove_all(dir_);
  }

  Reply Handle(const Request& req) {
    if (req.path == "/block") {
      entered_++;
      std::unique_lock lock(mu_);
      cv_.notify_all();
      cv_.wait_for(lock, 20s, [&] { return unblocked_; });
      return Response{200, "text/plain", "unblocked", {}};
    }
    if (req.path == "/suspend") {
      Suspender* s = CurrentSuspender();
      if (s == nullptr) return Response{500, "text/plain", "no suspender", {}};
      {
        std::lock_guard lock(mu_);
        resumer_ = s->Resumer();
        cv_.notify_all();
      }
      s->Suspend();
      return Response{200, "text/plain", "resumed", {}};
    }
    return Response{200, "text/plain", "hello " + req.identity.user, {}};
  }

  void StartServer(ServerOptions opts = {}) {
    opts.port = 0;
    opts.cert_pem = pki_.serving_cert_pem;
    opts.key_pem = pki_.serving_key_pem;
    opts.client_ca_pem = pki_.ca_cert_pem;
    opts.authenticator =
        Union({BearerTokenAuthenticator(pki_.admin_token, SuperAdminIdentity()),
               BearerTokenAuthenticator(kJaneToken, Identity{"jane", {"system:authenticated"}})});
    auto s = Server::Start(std::move(opts), [this](const Request& r) { return Handle(r); });
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(*s);
  }

  ClientOptions Client(std::string token = "") const {
    ClientOptions o;
    o.port = server_->port();
    o.ca_pem = pki_.ca_cert_pem;
    o.token = token.empty() ? pki_.admin_token : token;
    return o;
  }
  std::unique_ptr<TlsClient> Connect(std::string token = "") {
    auto c = TlsClient::Connect(Client(std::move(token)));
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(*c) : nullptr;
  }

  bool WaitEntered(int n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, 10s, [&] { return entered_.load() >= n; });
  }
  std::function<void()> WaitResumer() {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, 10s, [&] { return resumer_ != nullptr; });
    return resumer_;
  }
  void Unblock() {
    std::lock_guard lock(mu_);
    unblocked_ = true;
    cv_.notify_all();
  }

  // `openssl s_client` against the server with `args`; true when the handshake succeeded.
  bool Handshake(std::vector<std::string> args) {
    std::vector<std::string> argv = {
        "bash", "-c",
        fmt::format("openssl s_client -connect 127.0.0.1:{} "
                    "-CAfile {} {} </dev/null 2>&1",
                    server_->port(), (dir_ / "ca.crt").string(), fmt::join(args, " "))};
    auto [code, out] = RunCommand(argv);
    last_output_ = out;
    return code == 0 && out.find("Cipher is (NONE)") == std::string::npos &&
           out.find("Verify return code: 0") != std::string::npos;
  }

  std::filesystem::path dir_;
  pki::Pki pki_;
  std::unique_ptr<Server> server_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool unblocked_ = false;
  std::atomic<int> entered_{0};
  std::function<void()> resumer_;
  std::string last_output_;
};

TEST_F(ServerLimitsTest, TlsBelow12AndCbcOrRsaKexSuitesAreRefused) {
  StartServer();
  EXPECT_FALSE(Handshake({"-tls1_1"})) << last_output_;
  EXPECT_FALSE(Handshake({"-tls1"})) << last_output_;
  EXPECT_FALSE(Handshake({"-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA"})) << last_output_;
  EXPECT_FALSE(Handshake({"-tls1_2", "-cipher", "AES128-SHA"})) << last_output_;
  EXPECT_FALSE(Handshake({"-tls1_2", "-cipher", "AES128-GCM-SHA256"})) << last_output_;
  EXPECT_TRUE(Handshake({"-tls1_2"})) << last_output_;
  EXPECT_NE(last_output_.find("ECDHE-ECDSA-AES128-GCM-SHA256"), std::string::npos) << last_output_;
  EXPECT_TRUE(Handshake({"-tls1_3"})) << last_output_;
}

TEST_F(ServerLimitsTest, ServerOrderWinsForTls12) {
  StartServer();
  ASSERT_TRUE(Handshake(
      {"-tls1_2", "-cipher", "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-ECDSA-AES128-GCM-SHA256"}))
      << last_output_;
  EXPECT_NE(last_output_.find("Cipher is ECDHE-ECDSA-AES128-GCM-SHA256"), std::string::npos)
      << last_output_;
}

TEST_F(ServerLimitsTest, MinVersionTls13RefusesTls12) {
  ServerOptions opts;
  opts.tls_min_version = base::tls::TlsVersion::kTls13;
  StartServer(opts);
  EXPECT_FALSE(Handshake({"-tls1_2"})) << last_output_;
  EXPECT_TRUE(Handshake({"-tls1_3"})) << last_output_;
}

TEST_F(ServerLimitsTest, ConfiguredCipherSuitesAreTheOnlyOnes) {
  ServerOptions opts;
  opts.tls_cipher_suites = {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"};
  StartServer(opts);
  EXPECT_FALSE(Handshake({"-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"})) << last_output_;
  EXPECT_TRUE(Handshake({"-tls1_2"})) << last_output_;
  EXPECT_NE(last_output_.find("ECDHE-ECDSA-CHACHA20-POLY1305"), std::string::npos) << last_output_;
}

TEST_F(ServerLimitsTest, UnknownCipherSuiteFailsStart) {
  ServerOptions opts;
  opts.port = 0;
  opts.cert_pem = pki_.serving_cert_pem;
  opts.key_pem = pki_.serving_key_pem;
  opts.authenticator = [](const Request&) { return AuthResult::NoOpinion(); };
  opts.tls_cipher_suites = {"TLS_FANCY_WITH_NOTHING"};
  auto s = Server::Start(std::move(opts), [](const Request&) { return Response{}; });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "--tls-cipher-suites: unknown cipher suite \"TLS_FANCY_WITH_NOTHING\"");
}

TEST_F(ServerLimitsTest, RenegotiationIsRefused) {
  StartServer();
  // "R" asks s_client to renegotiate; the server refuses, and the connection does not carry on
  // with a second handshake.
  auto [code, out] = RunCommand(
      {"bash", "-c",
       fmt::format("(sleep 1; echo R; sleep 2) | timeout 10 openssl s_client -tls1_2 -connect "
                   "127.0.0.1:{} -CAfile {} 2>&1",
                   server_->port(), (dir_ / "ca.crt").string())});
  EXPECT_NE(out.find("RENEGOTIATING"), std::string::npos) << out;
  EXPECT_NE(out.find("no renegotiation"), std::string::npos) << out;
}

TEST_F(ServerLimitsTest, HeaderBlockOver1MiBGets431) {
  StartServer();
  auto client = Connect();
  std::vector<std::pair<std::string, std::string>> headers;
  for (int i = 0; i < 20; ++i) {
    headers.emplace_back("X-Big-" + std::to_string(i), std::string(60 * 1024, 'h'));
  }
  auto res = client->Do("GET", "/hello", "", headers);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->status, 431);
  EXPECT_NE(res->body.find("Request header fields too large: limit is 1048576"), std::string::npos)
      << res->body;
  // Under the limit in total, a header block of 900 KiB is fine.
  headers.resize(15);
  auto ok = Connect()->Do("GET", "/hello", "", headers);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->status, 200);
}

// Beast's fields hold at most 65533 bytes per value and throw beyond; that must be a 431, not
// an exception escaping the I/O thread.
TEST_F(ServerLimitsTest, SingleHeaderFieldTooLongToHoldGets431AndTheServerLives) {
  StartServer();
  // Through curl: Beast's own client cannot even hold such a field to send it.
  auto [code, out] =
      RunCommand({"curl", "-sS", "--max-time", "20", "--cacert", (dir_ / "ca.crt").string(), "-H",
                  "Authorization: Bearer " + std::string(80 * 1024, 't'), "-w", "\n%{http_code}",
                  fmt::format("https://127.0.0.1:{}/hello", server_->port())});
  ASSERT_EQ(code, 0) << out;
  EXPECT_TRUE(out.ends_with("\n431")) << out;
  auto after = Connect()->Get("/hello");
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->body, "hello kubernetes-super-admin");
}

TEST_F(ServerLimitsTest, FirstRequestHeadMustArriveWithinTheReadHeaderTimeout) {
  ServerOptions opts;
  opts.read_header_timeout = 400ms;
  StartServer(opts);
  // A slowloris: a head begun and never finished.
  const std::string script = fmt::format(
      "timeout 10 openssl s_client -quiet -connect 127.0.0.1:{} 2>/dev/null "
      "< <(printf 'GET /hello HTTP/1.1\\r\\nHost: x\\r\\n'; sleep 1; printf 'X-A: b\\r\\n'; "
      "sleep 6)",
      server_->port());
  const auto start = std::chrono::steady_clock::now();
  auto [code, out] = RunCommand({"bash", "-c", script});
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_NE(code, 124) << "the server kept the slow connection open";
  EXPECT_GE(took, 400ms);
  EXPECT_LT(took, 4s);
  EXPECT_EQ(out.find("200 OK"), std::string::npos) << out;
}

TEST_F(ServerLimitsTest, KeepAliveConnectionMayIdleLongerThanTheReadHeaderTimeout) {
  ServerOptions opts;
  opts.read_header_timeout = 300ms;
  StartServer(opts);
  auto client = Connect();
  ASSERT_TRUE(client->Get("/hello").ok());
  std::this_thread::sleep_for(800ms);
  auto again = client->Get("/hello");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->status, 200);
}

constexpr char kTimeoutBody[] =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
    R"("message":"Timeout: request did not complete within the allotted timeout",)"
    R"("reason":"Timeout","details":{},"code":504})";

TEST_F(ServerLimitsTest, HandlerOverTheRequestTimeoutGets504AndTheConnectionCloses) {
  ServerOptions opts;
  opts.request_timeout = 300ms;
  StartServer(opts);
  auto client = Connect();
  const auto start = std::chrono::steady_clock::now();
  auto res = client->Get("/block");
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->status, 504);
  EXPECT_EQ(res->body, kTimeoutBody);
  EXPECT_FALSE(res->keep_alive);
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 3s);
  Unblock();  // the late reply is dropped; the server carries on
  auto after = Connect()->Get("/hello");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->status, 200);
}

TEST_F(ServerLimitsTest, TimeoutParameterShortensTheRequestTimeout) {
  StartServer();  // 60 s default
  const auto start = std::chrono::steady_clock::now();
  auto res = Connect()->Get("/block?timeout=300ms");
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->status, 504);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  // Longer than the default: the default stays (the handler answers in time).
  Unblock();
  auto longer = Connect()->Get("/block?timeout=10h");
  ASSERT_TRUE(longer.ok());
  EXPECT_EQ(longer->status, 200);
}

TEST_F(ServerLimitsTest, MalformedTimeoutParameterGets400BeforeAuthentication) {
  StartServer();
  for (std::string token : {std::string(), std::string("wrong-token")}) {
    auto res = Connect(token)->Get("/hello?timeout=abc");
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    EXPECT_EQ(res->status, 400);
    EXPECT_EQ(res->body,
              R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
              R"("message":"invalid timeout specified in the request URL - time: invalid )"
              R"(duration \"abc\"","reason":"BadRequest","code":400})"
              "\n");
  }
}

TEST_F(ServerLimitsTest, LongRunningRequestsHaveNoTimeoutAndNoTimeoutParameter) {
  ServerOptions opts;
  opts.request_timeout = 200ms;
  opts.is_long_running = [](const Request& r) { return r.Query("watch").has_value(); };
  StartServer(opts);
  std::thread unblock([this] {
    std::this_thread::sleep_for(600ms);
    Unblock();
  });
  auto res = Connect()->Get("/block?watch=1&timeout=abc");
  unblock.join();
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, "unblocked");
}

TEST_F(ServerLimitsTest, SuspendedFiberOverTheRequestTimeoutGets504) {
  ServerOptions opts;
  opts.io_threads = 1;
  opts.request_timeout = 300ms;
  opts.run_on_io_thread = [](const Request& r) { return r.path == "/suspend"; };
  StartServer(opts);
  auto res = Connect()->Get("/suspend");
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->status, 504);
  auto resume = WaitResumer();
  ASSERT_TRUE(resume);
  resume();  // the fiber finishes; its reply is dropped
  auto after = Connect()->Get("/hello");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->body, "hello kubernetes-super-admin");
}

TEST_F(ServerLimitsTest, OverTheInFlightLimitGets429ButSystemMastersPass) {
  ServerOptions opts;
  opts.max_requests_inflight = 1;
  opts.max_mutating_requests_inflight = 1;
  StartServer(opts);
  std::thread first([this] { (void)Connect(kJaneToken)->Get("/block"); });
  ASSERT_TRUE(WaitEntered(1));

  auto jane = Connect(kJaneToken);
  auto refused = jane->Get("/hello");
  ASSERT_TRUE(refused.ok()) << refused.status().ToString();
  EXPECT_EQ(refused->status, 429);
  EXPECT_EQ(refused->body, "Too many requests, please try again later.\n");
  EXPECT_EQ(refused->Header("Retry-After"), "1");
  EXPECT_EQ(refused->Header("Content-Type"), "text/plain; charset=utf-8");
  EXPECT_EQ(refused->Header("X-Content-Type-Options"), "nosniff");
  EXPECT_TRUE(refused->keep_alive);  // no body to skip: the connection stays usable

  // Mutating requests are counted apart; system:masters are never refused.
  auto post = jane->Do("POST", "/hello", "{}");
  ASSERT_TRUE(post.ok());
  EXPECT_EQ(post->status, 200);
  auto admin = Connect()->Get("/hello");
  ASSERT_TRUE(admin.ok());
  EXPECT_EQ(admin->status, 200);
  // Health probes are not counted.
  auto live = jane->Get("/livez");
  ASSERT_TRUE(live.ok());
  EXPECT_EQ(live->status, 200);

  Unblock();
  first.join();
  auto again = jane->Get("/hello");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->status, 200);
}

TEST_F(ServerLimitsTest, LongRunningRequestsAreNotCountedInFlight) {
  ServerOptions opts;
  opts.max_requests_inflight = 1;
  opts.is_long_running = [](const Request& r) { return r.Query("watch").has_value(); };
  StartServer(opts);
  std::thread watch([this] { (void)Connect(kJaneToken)->Get("/block?watch=true"); });
  ASSERT_TRUE(WaitEntered(1));
  auto res = Connect(kJaneToken)->Get("/hello");
  Unblock();
  watch.join();
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->status, 200);
}

TEST_F(ServerLimitsTest, UpgradeRequestIsNeverSwitchedAndClosesTheConnection) {
  StartServer();
  for (std::string token : {std::string(), std::string("wrong-token")}) {
    auto client = Connect(token);
    auto res =
        client->Do("GET", "/hello", "", {{"Connection", "Upgrade"}, {"Upgrade", "SPDY/3.1"}});
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    EXPECT_NE(res->status, 101);
    EXPECT_FALSE(res->keep_alive);
    EXPECT_FALSE(client->Get("/hello").ok()) << "the connection was reused after an upgrade";
  }
}

}  // namespace
}  // namespace svcplane::apiserver::http
