#include "apiserver/http/server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "apiserver/http/auth.h"
#include "apiserver/http/status_response.h"
#include "apiserver/http/testing/subprocess.h"
#include "apiserver/http/testing/tls_client.h"
#include "apiserver/pki/kubeconfig.h"
#include "apiserver/pki/pki.h"
#include "base/suspend.h"
#include "base/tls/x509.h"

namespace svcplane::apiserver::http {
namespace {

using namespace std::chrono_literals;
using testing::ClientOptions;
using testing::RunCommand;
using testing::Subprocess;
using testing::TlsClient;

// How a router above this layer plugs in: a table of (method, path) -> Handler, 404/405 as
// Status bodies. The real REST router matches patterns; the contract with the server is the same.
class DemoRouter {
 public:
  void Handle(std::string method, std::string path, Handler h) {
    routes_[{std::move(method), std::move(path)}] = std::move(h);
  }
  Reply operator()(const Request& req) const {
    auto it = routes_.find({req.method, req.path});
    if (it != routes_.end()) return it->second(req);
    for (const auto& [key, h] : routes_) {
      if (key.second == req.path) {
        return StatusResponse(405, "MethodNotAllowed",
                              req.method + " is not supported on " + req.path);
      }
    }
    return StatusResponse(404, "NotFound", "the server could not find the requested resource");
  }

 private:
  std::map<std::pair<std::string, std::string>, Handler> routes_;
};

// The streams the /stream handler opened, so a test can write to them and see how they end.
class StreamHub {
 public:
  Reply Open(const Request& req) {
    StreamHead head;
    if (auto max = req.Query("max")) head.max_buffered_bytes = std::stoul(std::string(*max));
    auto w = StreamWriter::Create(head);
    std::lock_guard lock(mu_);
    size_t index = writers_.size();
    writers_.push_back(w);
    w->OnEnd([this, index](StreamEnd why) {
      std::lock_guard lock(mu_);
      ends_[index] = why;
      cv_.notify_all();
    });
    cv_.notify_all();
    return w;
  }
  std::shared_ptr<StreamWriter> Writer(size_t index) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, 10s, [&] { return writers_.size() > index; });
    return writers_.size() > index ? writers_[index] : nullptr;
  }
  std::optional<StreamEnd> End(size_t index) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, 10s, [&] { return ends_.count(index) > 0; });
    if (!ends_.count(index)) return std::nullopt;
    return ends_[index];
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::shared_ptr<StreamWriter>> writers_;
  std::map<size_t, StreamEnd> ends_;
};

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("svcplane-http-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    pki::PkiOptions popts;
    popts.dir = dir_.string();
    auto p = pki::LoadOrCreatePki(popts);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    pki_ = *p;
    WriteFile("ca.crt", pki_.ca_cert_pem);
    WriteFile("admin.crt", pki_.admin_cert_pem);
    WriteFile("admin.key", pki_.admin_key_pem);

    router_.Handle("GET", "/hello", [](const Request& req) {
      return Response{200, "text/plain", "hello " + req.identity.user, {}};
    });
    router_.Handle("POST", "/echo", [](const Request& req) {
      return Response{200, "application/octet-stream", req.body, {}};
    });
    router_.Handle("GET", "/stream", [this](const Request& req) { return hub_.Open(req); });
    router_.Handle("GET", "/slow", [](const Request&) {
      std::this_thread::sleep_for(400ms);
      return Response{200, "text/plain", "slow done", {}};
    });
    // What a handler sees of authentication: the Authorization header must be gone.
    router_.Handle("GET", "/seen", [](const Request& req) {
      std::string body = req.identity.user + " authorization=" +
                         std::string(req.Header("Authorization").value_or("<none>")) +
                         " audit=" + req.audit_id;
      return Response{200, "text/plain", body, {}};
    });
    router_.Handle("GET", "/block", [this](const Request&) {
      std::unique_lock lock(block_mu_);
      block_cv_.wait_for(lock, 10s, [&] { return unblocked_; });
      return Response{200, "text/plain", "unblocked", {}};
    });
    router_.Handle("GET", "/throw",
                   [](const Request&) -> Reply { throw std::runtime_error("boom"); });
    router_.Handle("GET", "/where", [](const Request&) {
      return Response{200, "text/plain", CurrentSuspender() ? "fiber" : "worker", {}};
    });
    // Suspends as a store commit would; the test resumes it through TakeResumer().
    router_.Handle("GET", "/suspend", [this](const Request& req) {
      Suspender* s = CurrentSuspender();
      if (s == nullptr) return Response{500, "text/plain", "no suspender", {}};
      auto resume = s->Resumer();
      if (req.Query("early")) {
        resume();  // completion before the suspension: Suspend() must still return
      } else {
        std::lock_guard lock(resume_mu_);
        resumers_.push_back(std::move(resume));
        resume_cv_.notify_all();
      }
      s->Suspend();
      return Response{200, "text/plain", "resumed " + std::string(req.Query("n").value_or("")), {}};
    });
  }

  // Waits for the next suspended /suspend request and returns its resumer.
  std::function<void()> TakeResumer() {
    std::unique_lock lock(resume_mu_);
    if (!resume_cv_.wait_for(lock, 10s, [&] { return !resumers_.empty(); })) return nullptr;
    auto r = std::move(resumers_.front());
    resumers_.erase(resumers_.begin());
    return r;
  }

  static ServerOptions FiberOptions() {
    ServerOptions opts;
    opts.io_threads = 1;
    opts.run_on_io_thread = [](const Request& r) { return r.path != "/block"; };
    return opts;
  }

  void TearDown() override {
    Unblock();
    if (server_) server_->Shutdown(5s);
    server_.reset();
    std::filesystem::remove_all(dir_);
  }

  void StartServer(ServerOptions opts = {}) {
    opts.port = 0;
    opts.cert_pem = pki_.serving_cert_pem;
    opts.key_pem = pki_.serving_key_pem;
    opts.client_ca_pem = pki_.ca_cert_pem;
    if (!opts.authenticator) {
      opts.authenticator = WithAuthenticatedGroup(Union(
          {X509Authenticator(), BearerTokenAuthenticator(pki_.admin_token, AdminIdentity())}));
    }
    auto s = Server::Start(std::move(opts), [this](const Request& r) { return router_(r); });
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(*s);
    ASSERT_NE(server_->port(), 0);
  }

  void WriteFile(const std::string& name, const std::string& data) {
    std::ofstream(dir_ / name, std::ios::binary) << data;
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::string Url(const std::string& target) const {
    return "https://127.0.0.1:" + std::to_string(server_->port()) + target;
  }
  std::vector<std::string> Curl(std::vector<std::string> extra, bool with_token = true) {
    std::vector<std::string> argv = {"curl", "-sS", "--max-time", "20", "--cacert", Path("ca.crt")};
    if (with_token) {
      argv.push_back("-H");
      argv.push_back("Authorization: Bearer " + pki_.admin_token);
    }
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  }
  ClientOptions Client() const {
    ClientOptions o;
    o.port = server_->port();
    o.ca_pem = pki_.ca_cert_pem;
    o.token = pki_.admin_token;
    return o;
  }
  void Unblock() {
    std::lock_guard lock(block_mu_);
    unblocked_ = true;
    block_cv_.notify_all();
  }

  std::filesystem::path dir_;
  pki::Pki pki_;
  DemoRouter router_;
  StreamHub hub_;
  std::unique_ptr<Server> server_;
  std::mutex block_mu_;
  std::condition_variable block_cv_;
  bool unblocked_ = false;
  std::mutex resume_mu_;
  std::condition_variable resume_cv_;
  std::vector<std::function<void()>> resumers_;  // guarded by resume_mu_
};

// With json.Encoder's trailing newline, as kube-apiserver writes it.
constexpr char kUnauthorized[] =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
    R"("message":"Unauthorized","reason":"Unauthorized","code":401})"
    "\n";

TEST_F(ServerTest, RequestWithoutCredentialGets401StatusAndNoData) {
  StartServer();
  auto [code, out] = RunCommand(Curl({"-w", "\n%{http_code}", Url("/hello")}, false));
  ASSERT_EQ(code, 0) << out;
  EXPECT_EQ(out, std::string(kUnauthorized) + "\n401");
}

TEST_F(ServerTest, UnauthenticatedUploadIsRefusedBeforeItsBodyIsRead) {
  std::atomic<int> calls{0};
  router_.Handle("POST", "/count", [&](const Request&) {
    calls++;
    return Response{};
  });
  StartServer();
  ClientOptions anonymous = Client();
  anonymous.token.clear();
  auto client = TlsClient::Connect(anonymous);
  ASSERT_TRUE(client.ok());
  auto res = (*client)->Do("POST", "/count", std::string(2 * 1024 * 1024, 'u'));
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->status, 401);
  EXPECT_EQ(res->body, kUnauthorized);
  EXPECT_FALSE(res->keep_alive);
  EXPECT_EQ(calls.load(), 0);

  // Without a body the connection stays usable.
  auto again = TlsClient::Connect(anonymous);
  ASSERT_TRUE(again.ok());
  auto first = (*again)->Get("/hello");
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->status, 401);
  EXPECT_TRUE(first->keep_alive);
  EXPECT_TRUE((*again)->Get("/livez").ok());
}

TEST_F(ServerTest, WrongTokenGets401) {
  StartServer();
  auto [code, out] = RunCommand({"curl", "-sS", "--cacert", Path("ca.crt"), "-H",
                                 "Authorization: Bearer " + std::string(64, 'a'), "-w",
                                 "\n%{http_code}", Url("/hello")});
  ASSERT_EQ(code, 0) << out;
  EXPECT_EQ(out, std::string(kUnauthorized) + "\n401");
}

TEST_F(ServerTest, BearerTokenGets200) {
  StartServer();
  auto [code, out] = RunCommand(Curl({"-w", "\n%{http_code}", Url("/hello")}));
  ASSERT_EQ(code, 0) << out;
  EXPECT_EQ(out, "hello kubernetes-admin\n200");
}

// Go's TLS stack, and so kube-apiserver, picks AES-128-GCM first on CPUs with AES instructions,
// whatever the client prefers; OpenSSL's default would take the client's AES-256 first and
// spend a fifth more cycles on every byte of a large LIST.
TEST_F(ServerTest, NegotiatesAes128GcmAsGoServersDo) {
  StartServer();
  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  auto r = (*client)->Get("/hello");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*client)->Cipher(), "TLS_AES_128_GCM_SHA256");
}

TEST_F(ServerTest, ClientCertificateSignedByTheCaGets200) {
  StartServer();
  auto [code, out] = RunCommand(Curl({"--cert", Path("admin.crt"), "--key", Path("admin.key"), "-w",
                                      "\n%{http_code}", Url("/hello")},
                                     false));
  ASSERT_EQ(code, 0) << out;
  EXPECT_EQ(out, "hello kubernetes-admin\n200");
}

TEST_F(ServerTest, AuditIdIsEchoedOrMintedOnEveryResponse) {
  StartServer();
  auto [code, out] = RunCommand(Curl({"-i", "-H", "Audit-ID: abc-123", Url("/seen")}));
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("Audit-ID: abc-123\r\n"), std::string::npos) << out;
  // The handler gets the ID, and not the bearer token that authenticated the request.
  EXPECT_NE(out.find("admin authorization=<none> audit=abc-123"), std::string::npos) << out;
  auto unauth = RunCommand(Curl({"-i", "-H", "Audit-ID: xyz", Url("/seen")}, false));
  EXPECT_NE(unauth.second.find("401"), std::string::npos) << unauth.second;
  EXPECT_NE(unauth.second.find("Audit-ID: xyz\r\n"), std::string::npos) << unauth.second;
  EXPECT_EQ(unauth.second.find("WWW-Authenticate"), std::string::npos) << unauth.second;
  auto minted = RunCommand(Curl({"-i", Url("/livez")}, false));
  auto at = minted.second.find("Audit-ID: ");
  ASSERT_NE(at, std::string::npos) << minted.second;
  EXPECT_EQ(minted.second.find("\r\n", at) - at, std::string("Audit-ID: ").size() + 36);
}

TEST_F(ServerTest, AnonymousGetsTheExtraSpaceWarningAndBadTokensGet401) {
  ServerOptions opts;
  opts.authenticator = WithAnonymous(WithAuthenticatedGroup(
      Union({X509Authenticator(), BearerTokenAuthenticator(pki_.admin_token, AdminIdentity())})));
  StartServer(opts);
  auto two = RunCommand(
      Curl({"-i", "-H", "Authorization: Bearer  " + pki_.admin_token, Url("/seen")}, false));
  EXPECT_NE(two.second.find("Warning: 299 - \"the provided Authorization header contains extra "
                            "space before the bearer token, and is ignored\"\r\n"),
            std::string::npos)
      << two.second;
  // Not consumed: the header stays for whatever comes next (it authenticated nobody).
  EXPECT_NE(two.second.find("system:anonymous authorization=Bearer  "), std::string::npos)
      << two.second;
  auto bad = RunCommand(
      Curl({"-w", "\n%{http_code}", "-H", "Authorization: Bearer nope", Url("/healthz")}, false));
  EXPECT_EQ(bad.second, std::string(kUnauthorized) + "\n401");
}

TEST_F(ServerTest, UntrustedClientCertificateCompletesTheHandshakeThenGets401) {
  auto rogue_ca = base::tls::IssueKeyPair(
      {.kind = base::tls::CertKind::kCa, .common_name = "rogue"}, nullptr, nullptr);
  ASSERT_TRUE(rogue_ca.ok());
  auto ca_cert = base::tls::CertFromPem(rogue_ca->cert_pem);
  auto ca_key = base::tls::KeyFromPem(rogue_ca->key_pem);
  auto leaf = base::tls::IssueKeyPair({.kind = base::tls::CertKind::kClient,
                                       .common_name = "admin",
                                       .organizations = {"system:masters"}},
                                      ca_cert->get(), ca_key->get());
  ASSERT_TRUE(leaf.ok());
  WriteFile("rogue.crt", leaf->cert_pem);
  WriteFile("rogue.key", leaf->key_pem);
  StartServer();
  auto [code, out] = RunCommand(Curl({"--cert", Path("rogue.crt"), "--key", Path("rogue.key"), "-w",
                                      "\n%{http_code}", Url("/hello")},
                                     false));
  ASSERT_EQ(code, 0) << out;  // TLS succeeded
  EXPECT_EQ(out, std::string(kUnauthorized) + "\n401");
  // A valid token next to the bad certificate wins.
  auto with_token = RunCommand(Curl({"--cert", Path("rogue.crt"), "--key", Path("rogue.key"), "-w",
                                     "\n%{http_code}", Url("/hello")}));
  EXPECT_EQ(with_token.second, "hello kubernetes-admin\n200");
}

TEST_F(ServerTest, UnknownPathGets404StatusFromTheRouter) {
  StartServer();
  auto [code, out] = RunCommand(Curl({"-w", "\n%{http_code}", Url("/nope?x=1")}));
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find(R"("reason":"NotFound")"), std::string::npos) << out;
  EXPECT_NE(out.find("\n404"), std::string::npos) << out;
}

TEST_F(ServerTest, HealthEndpointsAndReadiness) {
  StartServer();
  auto livez = RunCommand(Curl({"-w", "\n%{http_code}", Url("/livez")}, false));
  EXPECT_EQ(livez.second, "ok\n200");
  auto healthz = RunCommand(Curl({"-w", "\n%{http_code}", Url("/healthz")}, false));
  EXPECT_EQ(healthz.second, "ok\n200");
  auto not_ready = RunCommand(Curl({"-w", "\n%{http_code}", Url("/readyz")}, false));
  EXPECT_NE(not_ready.second.find("[-]poststarthook/svcplane-ready failed: reason withheld"),
            std::string::npos)
      << not_ready.second;
  EXPECT_NE(not_ready.second.find("readyz check failed\n\n500"), std::string::npos);
  server_->SetReady(true);
  auto ready = RunCommand(Curl({"-w", "\n%{http_code}", Url("/readyz")}, false));
  EXPECT_EQ(ready.second, "ok\n200");
  auto verbose = RunCommand(Curl({Url("/readyz?verbose")}, false));
  EXPECT_EQ(verbose.second,
            "[+]ping ok\n[+]poststarthook/svcplane-ready ok\n[+]shutdown ok\n"
            "readyz check passed\n");
}

TEST_F(ServerTest, ExtraChecksAndSingleCheckPaths) {
  ServerOptions opts;
  std::atomic<bool> store_ok{false};
  opts.health_checks = [&store_ok](std::string_view) {
    return std::vector<HealthCheck>{{"etcd", store_ok.load(), "etcd is down"}};
  };
  StartServer(opts);
  server_->SetReady(true);
  auto check = [this](const char* path) {
    return RunCommand(Curl({"-w", "\n%{http_code}", Url(path)}, false)).second;
  };
  EXPECT_EQ(check("/livez/etcd"), "internal server error: etcd is down\n\n500");
  EXPECT_EQ(check("/readyz/etcd"), "internal server error: etcd is down\n\n500");
  EXPECT_NE(check("/livez").find("[-]etcd failed: reason withheld"), std::string::npos);
  EXPECT_NE(check("/readyz").find("readyz check failed\n\n500"), std::string::npos);
  store_ok = true;
  EXPECT_EQ(check("/livez/etcd"), "ok\n200");
  EXPECT_EQ(check("/readyz"), "ok\n200");
  EXPECT_EQ(check("/readyz/ping"), "ok\n200");
  EXPECT_NE(check("/readyz/nothing").find("\n404"), std::string::npos);
}

TEST_F(ServerTest, BeginShutdownFailsReadinessButKeepsServing) {
  StartServer();
  server_->SetReady(true);
  server_->BeginShutdown();
  auto ready = RunCommand(Curl({"-w", "\n%{http_code}", Url("/readyz")}, false));
  EXPECT_NE(ready.second.find("[-]shutdown failed: reason withheld"), std::string::npos)
      << ready.second;
  EXPECT_NE(ready.second.find("\n500"), std::string::npos);
  EXPECT_EQ(RunCommand(Curl({"-w", "\n%{http_code}", Url("/livez")}, false)).second, "ok\n200");
  // Requests are still handled (the router's 404 Status, not a refused connection).
  auto [code, out] = RunCommand(Curl({"-w", "\n%{http_code}", Url("/nope")}));
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("\n404"), std::string::npos) << out;
}

TEST_F(ServerTest, HealthCanRequireAuthentication) {
  ServerOptions opts;
  opts.health_requires_auth = true;
  StartServer(opts);
  EXPECT_EQ(RunCommand(Curl({"-w", "\n%{http_code}", Url("/livez")}, false)).second,
            std::string(kUnauthorized) + "\n401");
  EXPECT_EQ(RunCommand(Curl({"-w", "\n%{http_code}", Url("/livez")})).second, "ok\n200");
}

TEST_F(ServerTest, BodyOver3MiBGets413AndAt3MiBIsAccepted) {
  StartServer();
  WriteFile("big", std::string(3 * 1024 * 1024 + 1, 'x'));
  WriteFile("limit", std::string(3 * 1024 * 1024, 'y'));
  auto [code, out] =
      RunCommand(Curl({"--data-binary", "@" + Path("big"), "-w", "\n%{http_code}", Url("/echo")}));
  ASSERT_EQ(code, 0) << out;
  EXPECT_EQ(out, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                 R"("message":"Request entity too large: limit is 3145728",)"
                 R"("reason":"RequestEntityTooLarge","code":413})"
                 "\n\n413");
  auto ok = RunCommand(Curl({"--data-binary", "@" + Path("limit"), "-o", "/dev/null", "-w",
                             "%{http_code} %{size_download}", Url("/echo")}));
  EXPECT_EQ(ok.second, "200 3145728");
}

TEST_F(ServerTest, ChunkedRequestBodyOverLimitGets413) {
  StartServer();
  WriteFile("big", std::string(3 * 1024 * 1024 + 100, 'x'));
  auto [code, out] =
      RunCommand(Curl({"-H", "Transfer-Encoding: chunked", "-H", "Expect:", "--data-binary",
                       "@" + Path("big"), "-w", "\n%{http_code}", Url("/echo")}));
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("\n413"), std::string::npos) << out;
}

TEST_F(ServerTest, BodyOverLimitWithoutExpectStillGets413) {
  StartServer();
  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok());
  // The client sends the whole body before reading; the server answers from the head and
  // drains while it closes, so the client reads the 413 instead of a reset.
  auto res = (*client)->Do("POST", "/echo", std::string(4 * 1024 * 1024, 'b'));
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->status, 413);
  EXPECT_FALSE(res->keep_alive);
}

TEST_F(ServerTest, OversizedHeaderGets431) {
  StartServer();
  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  std::vector<std::pair<std::string, std::string>> headers;
  for (int i = 0; i < 20; ++i) {
    headers.emplace_back("X-Big-" + std::to_string(i), std::string(60 * 1024, 'h'));
  }
  auto res = (*client)->Do("GET", "/hello", "", headers);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->status, 431);
  EXPECT_NE(res->body.find(R"("kind":"Status")"), std::string::npos);
}

TEST_F(ServerTest, KeepAliveReusesOneConnection) {
  StartServer();
  uint64_t before = server_->AcceptedConnectionsForTest();
  auto [code, out] = RunCommand(Curl({"-v", Url("/hello"), Url("/hello")}));
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("Re-using existing connection"), std::string::npos) << out;
  EXPECT_EQ(server_->AcceptedConnectionsForTest() - before, 1u);

  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok());
  for (int i = 0; i < 5; ++i) {
    auto res = (*client)->Get("/hello");
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    EXPECT_EQ(res->body, "hello kubernetes-admin");
    EXPECT_TRUE(res->keep_alive);
  }
  EXPECT_EQ(server_->AcceptedConnectionsForTest() - before, 2u);
}

TEST_F(ServerTest, StreamChunksReachTheClientIncrementally) {
  StartServer();
  Subprocess curl(Curl({"-N", "-i", Url("/stream")}));
  auto w = hub_.Writer(0);
  ASSERT_NE(w, nullptr);
  for (int i = 1; i <= 3; ++i) {
    std::string event = "{\"type\":\"ADDED\",\"n\":" + std::to_string(i) + "}\n";
    ASSERT_EQ(w->Write(event), WriteResult::kOk);
    // Seen before the next one is even written.
    EXPECT_NE(curl.ReadUntil(event, 10s).find(event), std::string::npos) << curl.output();
  }
  EXPECT_NE(curl.output().find("HTTP/1.1 200"), std::string::npos);
  EXPECT_NE(curl.output().find("Transfer-Encoding: chunked"), std::string::npos);
  w->Close();
  EXPECT_EQ(w->Write("late"), WriteResult::kEnded);
  EXPECT_EQ(curl.Wait(10s), 0) << curl.output();
  EXPECT_EQ(hub_.End(0), StreamEnd::kClosed);
}

TEST_F(ServerTest, BeastClientReadsStreamUntilTerminatingChunk) {
  StartServer();
  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok());
  // The head arrives before anything is written: watch clients wait for it with a timeout.
  auto head = (*client)->StartStream("/stream");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->Header("Content-Type"), "application/json");
  auto w = hub_.Writer(0);
  ASSERT_NE(w, nullptr);
  for (int i = 0; i < 100; ++i)
    ASSERT_EQ(w->Write("line " + std::to_string(i) + "\n"), WriteResult::kOk);
  w->Close();
  auto body = (*client)->ReadStreamUntil("never-present");
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  EXPECT_TRUE((*client)->StreamEnded());
  EXPECT_EQ(std::count(body->begin(), body->end(), '\n'), 100);
  EXPECT_NE(body->find("line 99\n"), std::string::npos);
}

TEST_F(ServerTest, ClientDisconnectEndsTheStream) {
  StartServer();
  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->StartStream("/stream").ok());
  auto w = hub_.Writer(0);
  ASSERT_NE(w, nullptr);
  ASSERT_EQ(w->Write("first\n"), WriteResult::kOk);
  ASSERT_TRUE((*client)->ReadStreamUntil("first\n").ok());
  (*client)->Abort();
  EXPECT_EQ(hub_.End(0), StreamEnd::kClientGone);
  EXPECT_TRUE(w->ended());
  EXPECT_EQ(w->Write("after\n"), WriteResult::kEnded);
}

TEST_F(ServerTest, SlowReaderOverflowsTheBoundedBuffer) {
  StartServer();
  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->StartStream("/stream?max=65536").ok());
  auto w = hub_.Writer(0);
  ASSERT_NE(w, nullptr);
  // The client never reads: once the socket buffers fill, Write reports overflow instead of
  // blocking or growing without bound.
  std::string piece(16 * 1024, 'z');
  WriteResult r = WriteResult::kOk;
  auto until = std::chrono::steady_clock::now() + 10s;
  while (r == WriteResult::kOk && std::chrono::steady_clock::now() < until) {
    r = w->Write(piece);
    if (r == WriteResult::kOk) std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(r, WriteResult::kOverflow);
  EXPECT_LE(w->buffered_bytes(), 65536u);
  w->Close();
}

TEST_F(ServerTest, GracefulShutdownFinishesInFlightRequestsAndEndsStreams) {
  StartServer();
  Subprocess curl(Curl({"-N", Url("/stream")}));
  auto w = hub_.Writer(0);
  ASSERT_NE(w, nullptr);
  ASSERT_EQ(w->Write("before-shutdown\n"), WriteResult::kOk);
  curl.ReadUntil("before-shutdown\n", 10s);

  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok());
  Result<testing::ClientResponse> slow = InternalError("not run");
  std::thread slow_thread([&] { slow = (*client)->Get("/slow"); });
  std::this_thread::sleep_for(100ms);  // let /slow reach its handler

  auto start = std::chrono::steady_clock::now();
  server_->Shutdown(5s);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  slow_thread.join();

  ASSERT_TRUE(slow.ok()) << slow.status().ToString();
  EXPECT_EQ(slow->status, 200);
  EXPECT_EQ(slow->body, "slow done");
  EXPECT_FALSE(slow->keep_alive);
  // curl exits 0 only if the chunked body ended with its terminating chunk.
  EXPECT_EQ(curl.Wait(10s), 0) << curl.output();
  EXPECT_EQ(curl.output(), "before-shutdown\n");
  EXPECT_EQ(hub_.End(0), StreamEnd::kShutdown);
  auto after = RunCommand(Curl({Url("/hello")}));
  EXPECT_NE(after.first, 0);
}

TEST_F(ServerTest, SlowHandlerDoesNotStallOtherRequests) {
  ServerOptions opts;
  opts.io_threads = 1;
  opts.worker_threads = 2;
  StartServer(opts);
  auto blocked = TlsClient::Connect(Client());
  ASSERT_TRUE(blocked.ok());
  Result<testing::ClientResponse> res = InternalError("not run");
  std::thread t([&] { res = (*blocked)->Get("/block"); });
  std::this_thread::sleep_for(100ms);
  auto other = TlsClient::Connect(Client());
  ASSERT_TRUE(other.ok());
  auto hello = (*other)->Get("/hello");
  ASSERT_TRUE(hello.ok());
  EXPECT_EQ(hello->body, "hello kubernetes-admin");
  Unblock();
  t.join();
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->body, "unblocked");
}

TEST_F(ServerTest, HandlerExceptionBecomes500Status) {
  StartServer();
  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok());
  auto res = (*client)->Get("/throw");
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->status, 500);
  EXPECT_EQ(res->body, StatusJson(500, "InternalError", "Internal error occurred: boom") + "\n");
  // The connection survives.
  auto again = (*client)->Get("/hello");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->status, 200);
}

TEST_F(ServerTest, RequestCarriesDecodedPathQueryAndHeaders) {
  Request seen;
  router_.Handle("GET", "/api/v1/name spaces", [&](const Request& req) {
    seen = req;
    return Response{};
  });
  StartServer();
  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok());
  auto res = (*client)->Do("GET", "/api/v1/name%20spaces?labelSelector=a%3Db&watch&x=1&x=2", "",
                           {{"X-Custom", "v"}});
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(seen.path, "/api/v1/name spaces");
  EXPECT_EQ(seen.raw_query, "labelSelector=a%3Db&watch&x=1&x=2");
  EXPECT_EQ(seen.Query("labelSelector"), "a=b");
  EXPECT_EQ(seen.Query("watch"), "");
  EXPECT_FALSE(seen.Query("missing").has_value());
  ASSERT_EQ(seen.query.size(), 4u);
  EXPECT_EQ(seen.query[3], (std::pair<std::string, std::string>{"x", "2"}));
  EXPECT_EQ(seen.Header("x-custom"), "v");
  EXPECT_EQ(seen.identity.user, "kubernetes-admin");
  EXPECT_EQ(seen.remote_address.rfind("127.0.0.1:", 0), 0u);
}

TEST_F(ServerTest, KubectlWithGeneratedKubeconfig) {
  StartServer();
  server_->SetReady(true);
  std::string kubeconfig = Path("kubeconfig");
  ASSERT_TRUE(pki::WriteKubeconfig(kubeconfig, Url(""), pki_.ca_cert_pem, pki_.admin_token).ok());
  auto [code, out] =
      RunCommand({"/usr/bin/kubectl", "--kubeconfig", kubeconfig, "get", "--raw", "/readyz"});
  EXPECT_EQ(code, 0) << out;
  EXPECT_EQ(out, "ok");
  auto hello =
      RunCommand({"/usr/bin/kubectl", "--kubeconfig", kubeconfig, "get", "--raw", "/hello"});
  EXPECT_EQ(hello.first, 0) << hello.second;
  EXPECT_EQ(hello.second, "hello kubernetes-admin");

  // The client-certificate variant of the admin credential works too.
  pki::KubeconfigParams cert_only;
  cert_only.server_url = Url("");
  cert_only.ca_pem = pki_.ca_cert_pem;
  cert_only.client_cert_pem = pki_.admin_cert_pem;
  cert_only.client_key_pem = pki_.admin_key_pem;
  ASSERT_TRUE(pki::WriteKubeconfig(Path("kubeconfig-cert"), cert_only).ok());
  auto by_cert = RunCommand(
      {"/usr/bin/kubectl", "--kubeconfig", Path("kubeconfig-cert"), "get", "--raw", "/hello"});
  EXPECT_EQ(by_cert.second, "hello kubernetes-admin");

  // Go's client uploads without Expect: 100-continue and still reads the 413 Status.
  WriteFile("big.json", std::string(3 * 1024 * 1024 + 1, ' ') + "{}");
  auto big = RunCommand({"/usr/bin/kubectl", "--kubeconfig", kubeconfig, "create", "--raw", "/echo",
                         "-f", Path("big.json")});
  EXPECT_NE(big.first, 0);
  EXPECT_NE(big.second.find("Request entity too large: limit is 3145728"), std::string::npos)
      << big.second;

  // A wrong credential gets a Status that kubectl prints as Unauthorized.
  ASSERT_TRUE(
      pki::WriteKubeconfig(Path("bad"), Url(""), pki_.ca_cert_pem, std::string(64, '0')).ok());
  auto bad =
      RunCommand({"/usr/bin/kubectl", "--kubeconfig", Path("bad"), "get", "--raw", "/hello"});
  EXPECT_NE(bad.first, 0);
  EXPECT_NE(bad.second.find("Unauthorized"), std::string::npos) << bad.second;
}

TEST_F(ServerTest, IdleKeepAliveConnectionIsClosedAfterTimeout) {
  ServerOptions opts;
  opts.idle_timeout = 200ms;
  StartServer(opts);
  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->Get("/hello").ok());
  std::this_thread::sleep_for(700ms);
  EXPECT_FALSE((*client)->Get("/hello").ok());
}

// The I/O timeout bounds a request body that stops coming: the connection is closed well
// before the client gives up (10 s) or ends its side (5 s).
TEST_F(ServerTest, StalledRequestBodyIsCutAfterTheIoTimeout) {
  ServerOptions opts;
  opts.io_timeout = 300ms;
  StartServer(opts);
  const std::string request = fmt::format(
      "POST /echo HTTP/1.1\\r\\nHost: x\\r\\nAuthorization: Bearer {}\\r\\n"
      "Content-Length: 100\\r\\n\\r\\nabc",
      pki_.admin_token);
  const std::string script = fmt::format(
      "timeout 10 openssl s_client -quiet -connect 127.0.0.1:{1} 2>/dev/null "
      "< <(printf '{0}'; sleep 5)",
      request, server_->port());
  const auto start = std::chrono::steady_clock::now();
  auto [code, out] = RunCommand({"bash", "-c", script});
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_NE(code, 124) << "the server kept the stalled connection open";
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 3s);
  EXPECT_EQ(out.find("200 OK"), std::string::npos) << out;
}

// Timeouts bound I/O, not handlers: a handler slower than both timeouts still answers.
TEST_F(ServerTest, HandlerSlowerThanTheTimeoutsIsAnswered) {
  ServerOptions opts;
  opts.idle_timeout = 150ms;
  opts.io_timeout = 150ms;
  StartServer(opts);
  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok());
  auto slow = (*client)->Get("/slow");  // 400 ms
  ASSERT_TRUE(slow.ok()) << slow.status().ToString();
  EXPECT_EQ(slow->body, "slow done");
}

TEST_F(ServerTest, PortInUseIsUnavailable) {
  StartServer();
  ServerOptions opts;
  opts.port = server_->port();
  opts.cert_pem = pki_.serving_cert_pem;
  opts.key_pem = pki_.serving_key_pem;
  opts.authenticator = BearerTokenAuthenticator("t", AdminIdentity());
  auto second = Server::Start(opts, [](const Request&) { return Response{}; });
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Code::kUnavailable);
  EXPECT_NE(second.status().message().find("127.0.0.1:" + std::to_string(server_->port())),
            std::string::npos)
      << second.status().message();
}

TEST_F(ServerTest, ManyConcurrentStreamsShareTheIoThreads) {
  ServerOptions opts;
  opts.io_threads = 1;
  StartServer(opts);
  constexpr int kStreams = 50;
  std::vector<std::unique_ptr<TlsClient>> clients;
  for (int i = 0; i < kStreams; ++i) {
    auto c = TlsClient::Connect(Client());
    ASSERT_TRUE(c.ok());
    ASSERT_TRUE((*c)->StartStream("/stream").ok());
    clients.push_back(std::move(*c));
  }
  for (int i = 0; i < kStreams; ++i) {
    auto w = hub_.Writer(static_cast<size_t>(i));
    ASSERT_NE(w, nullptr);
    ASSERT_EQ(w->Write("to " + std::to_string(i) + "\n"), WriteResult::kOk);
  }
  // Streams are matched to clients by arrival order, which may differ; each client gets
  // exactly one line.
  for (auto& c : clients) {
    auto body = c->ReadStreamUntil("\n");
    ASSERT_TRUE(body.ok());
    EXPECT_EQ(body->rfind("to ", 0), 0u);
  }
  server_->Shutdown(5s);
  for (int i = 0; i < kStreams; ++i)
    EXPECT_EQ(hub_.End(static_cast<size_t>(i)), StreamEnd::kShutdown);
  for (auto& c : clients) {
    ASSERT_TRUE(c->ReadStreamUntil("never").ok());
    EXPECT_TRUE(c->StreamEnded());
  }
}

TEST_F(ServerTest, OldestAndNewestKubectlAcceptTheKubeconfig) {
  StartServer();
  server_->SetReady(true);
  std::string kubeconfig = Path("kubeconfig");
  ASSERT_TRUE(pki::WriteKubeconfig(kubeconfig, Url(""), pki_.ca_cert_pem, pki_.admin_token).ok());
  for (const char* version : {"1.27", "1.33"}) {
    std::string bin = std::string("/usr/lib/google-cloud-sdk/bin/kubectl.") + version;
    if (!std::filesystem::exists(bin)) continue;
    auto [code, out] = RunCommand({bin, "--kubeconfig", kubeconfig, "get", "--raw", "/readyz"});
    EXPECT_EQ(code, 0) << version << ": " << out;
    EXPECT_EQ(out, "ok") << version;
  }
}

TEST_F(ServerTest, ListenHostMayBeAName) {
  ServerOptions opts;
  opts.host = "localhost";
  StartServer(opts);
  auto [code, out] = RunCommand(Curl(
      {"-w", "\n%{http_code}", "https://localhost:" + std::to_string(server_->port()) + "/livez"},
      false));
  EXPECT_EQ(out, "ok\n200");
}

TEST_F(ServerTest, OversizedHandlerHeaderIsDroppedNotFatal) {
  router_.Handle("GET", "/bigheader", [](const Request&) {
    return Response{200, "text/plain", "fine", {{"X-Huge", std::string(70 * 1024, 'v')}}};
  });
  StartServer();
  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok());
  auto res = (*client)->Get("/bigheader");
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, "fine");
  EXPECT_EQ(res->Header("X-Huge"), "");
}

TEST(ServerStartTest, BadOptionsFailWithStatus) {
  ServerOptions opts;
  auto no_auth = Server::Start(opts, [](const Request&) { return Response{}; });
  EXPECT_EQ(no_auth.status().code(), Code::kInvalid);
  opts.authenticator = [](const Request&) { return AuthResult::NoOpinion(); };
  opts.cert_pem = "not a cert";
  auto bad_cert = Server::Start(opts, [](const Request&) { return Response{}; });
  EXPECT_EQ(bad_cert.status().code(), Code::kInvalid);
}

// A body produced piece by piece: `pieces` numbered lines, then the source reports the end.
BodySource NumberedLines(int pieces) {
  return [pieces, i = 0](std::string* out) mutable {
    if (i == pieces) return false;
    *out += fmt::format("line {:06d} {}\n", i++, std::string(100, 'x'));
    return true;
  };
}

std::string NumberedLinesText(int pieces) {
  std::string out;
  auto source = NumberedLines(pieces);
  while (source(&out)) {
  }
  return out;
}

TEST_F(ServerTest, SourcedBodyIsSentChunkedAndTheConnectionIsReused) {
  // ~3 MB: several chunks, more than one TLS record each.
  constexpr int kPieces = 25'000;
  router_.Handle("GET", "/big", [](const Request&) {
    Response r;
    r.content_type = "text/plain";
    r.body = "ignored when a source is set";
    r.body_source = NumberedLines(kPieces);
    return r;
  });
  router_.Handle("GET", "/empty", [](const Request&) {
    Response r;
    r.body_source = [](std::string*) { return false; };
    return r;
  });
  StartServer();
  uint64_t before = server_->AcceptedConnectionsForTest();
  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok());
  for (int round = 0; round < 2; ++round) {
    auto res = (*client)->Get("/big");
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    EXPECT_EQ(res->status, 200);
    EXPECT_EQ(res->Header("Transfer-Encoding"), "chunked");
    EXPECT_EQ(res->Header("Content-Length"), "");
    EXPECT_EQ(res->Header("Content-Type"), "text/plain");
    EXPECT_TRUE(res->keep_alive);
    EXPECT_EQ(res->body, NumberedLinesText(kPieces));
  }
  auto empty = (*client)->Get("/empty");
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->status, 200);
  EXPECT_EQ(empty->body, "");
  auto hello = (*client)->Get("/hello");
  ASSERT_TRUE(hello.ok());
  EXPECT_EQ(hello->body, "hello kubernetes-admin");
  EXPECT_EQ(server_->AcceptedConnectionsForTest() - before, 1u);
}

// Plain responses are sealed into TLS records in memory and written raw; a connection keeps
// the sealer's buffer between small responses and drops it after one over 64 KiB. Large and
// small responses alternate on one connection and every byte arrives in order.
TEST_F(ServerTest, LargeAndSmallPlainResponsesAlternateOnOneConnection) {
  const std::string big = NumberedLinesText(20'000);  // ~2 MB: over a hundred TLS records
  router_.Handle("GET", "/plain-big", [&](const Request&) {
    Response r;
    r.content_type = "text/plain";
    r.body = big;
    return r;
  });
  StartServer();
  uint64_t before = server_->AcceptedConnectionsForTest();
  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok());
  for (int round = 0; round < 3; ++round) {
    auto hello = (*client)->Get("/hello");
    ASSERT_TRUE(hello.ok()) << hello.status().ToString();
    EXPECT_EQ(hello->body, "hello kubernetes-admin");
    auto res = (*client)->Get("/plain-big");
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    EXPECT_EQ(res->Header("Content-Length"), std::to_string(big.size()));
    EXPECT_TRUE(res->keep_alive);
    EXPECT_EQ(res->body, big);
  }
  auto last = (*client)->Get("/hello");
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  EXPECT_EQ(last->body, "hello kubernetes-admin");
  EXPECT_EQ(server_->AcceptedConnectionsForTest() - before, 1u);
}

TEST_F(ServerTest, SourcedBodyOfKnownSizeIsSentWithContentLength) {
  constexpr int kPieces = 25'000;
  const std::string expected = NumberedLinesText(kPieces);
  router_.Handle("GET", "/sized", [&](const Request&) {
    Response r;
    r.body_source = NumberedLines(kPieces);
    r.body_source_size = expected.size();
    return r;
  });
  router_.Handle("GET", "/short", [&](const Request&) {
    Response r;
    r.body_source = NumberedLines(10);
    r.body_source_size = expected.size();  // promises more than it produces
    return r;
  });
  StartServer();
  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok());
  for (int round = 0; round < 2; ++round) {
    auto res = (*client)->Get("/sized");
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    EXPECT_EQ(res->Header("Content-Length"), std::to_string(expected.size()));
    EXPECT_EQ(res->Header("Transfer-Encoding"), "");
    EXPECT_TRUE(res->keep_alive);
    EXPECT_EQ(res->body, expected);
  }
  // A source that breaks its promise: the client must not take the short body as complete.
  auto short_client = TlsClient::Connect(Client());
  ASSERT_TRUE(short_client.ok());
  auto broken = (*short_client)->Get("/short");
  EXPECT_FALSE(broken.ok());
}

TEST_F(ServerTest, SourcedBodyGoesToAnHttp10ClientWithContentLength) {
  router_.Handle("GET", "/big", [](const Request&) {
    Response r;
    r.content_type = "text/plain";
    r.body_source = NumberedLines(5'000);
    return r;
  });
  StartServer();
  const std::string headers = Path("headers.txt");
  auto [code, out] = RunCommand(Curl({"--http1.0", "-D", headers, Url("/big")}));
  ASSERT_EQ(code, 0) << out;
  EXPECT_EQ(out, NumberedLinesText(5'000));
  std::ifstream in(headers);
  std::string head((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(head.find("Content-Length: " + std::to_string(out.size())), std::string::npos) << head;
  EXPECT_EQ(head.find("chunked"), std::string::npos) << head;
}

TEST(DrainBodyTest, RunsTheSourceOnceIntoBody) {
  Response r;
  r.body = "stale";
  r.body_source = NumberedLines(3);
  EXPECT_EQ(DrainBody(r), NumberedLinesText(3));
  EXPECT_FALSE(r.body_source);
  EXPECT_EQ(DrainBody(r), NumberedLinesText(3));
  Response plain;
  plain.body = "as is";
  EXPECT_EQ(DrainBody(plain), "as is");
}

TEST_F(ServerTest, PickedRequestsRunOnTheIoThreadOthersOnWorkers) {
  StartServer(FiberOptions());
  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok());
  auto fiber = (*client)->Get("/where");
  ASSERT_TRUE(fiber.ok());
  EXPECT_EQ(fiber->body, "fiber");

  server_->Shutdown(5s);
  StartServer();  // no run_on_io_thread: every handler runs on a worker, where nothing suspends
  auto other = TlsClient::Connect(Client());
  ASSERT_TRUE(other.ok());
  auto worker = (*other)->Get("/where");
  ASSERT_TRUE(worker.ok());
  EXPECT_EQ(worker->body, "worker");
}

TEST_F(ServerTest, SuspendedRequestLeavesItsIoThreadToOtherConnections) {
  StartServer(FiberOptions());  // one I/O thread
  auto suspended = TlsClient::Connect(Client());
  ASSERT_TRUE(suspended.ok());
  Result<testing::ClientResponse> res = InternalError("not run");
  std::thread t([&] { res = (*suspended)->Get("/suspend?n=1"); });
  auto resume = TakeResumer();
  ASSERT_TRUE(resume);

  // The only I/O thread serves another connection while the first request is suspended.
  auto other = TlsClient::Connect(Client());
  ASSERT_TRUE(other.ok());
  auto hello = (*other)->Get("/hello");
  ASSERT_TRUE(hello.ok());
  EXPECT_EQ(hello->body, "hello kubernetes-admin");

  std::thread([resume] { resume(); }).join();  // completions come from other threads
  t.join();
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, "resumed 1");
  // The connection goes on serving, on the worker pool too.
  Unblock();
  auto again = (*suspended)->Get("/block");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->body, "unblocked");
}

TEST_F(ServerTest, ResumeBeforeSuspendStillCompletesTheRequest) {
  StartServer(FiberOptions());
  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok());
  for (int i = 0; i < 20; ++i) {
    auto res = (*client)->Get("/suspend?early=1&n=" + std::to_string(i));
    ASSERT_TRUE(res.ok());
    EXPECT_EQ(res->body, "resumed " + std::to_string(i));
  }
}

TEST_F(ServerTest, ManySuspendedRequestsResumedOutOfOrderGetTheirOwnReplies) {
  ServerOptions opts = FiberOptions();
  opts.io_threads = 2;
  StartServer(opts);
  constexpr int kClients = 40;
  std::vector<Result<testing::ClientResponse>> results(kClients, InternalError("not run"));
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      auto c = TlsClient::Connect(Client());
      if (!c.ok()) {
        results[i] = c.status();
        return;
      }
      results[i] = (*c)->Get("/suspend?n=" + std::to_string(i));
    });
  }
  std::vector<std::function<void()>> resumers;
  for (int i = 0; i < kClients; ++i) {
    auto r = TakeResumer();
    ASSERT_TRUE(r) << "only " << i << " requests suspended";
    resumers.push_back(std::move(r));
  }
  // Newest first, from two threads at once.
  std::thread a([&] {
    for (int i = kClients - 1; i >= 0; i -= 2) resumers[i]();
  });
  std::thread b([&] {
    for (int i = kClients - 2; i >= 0; i -= 2) resumers[i]();
  });
  a.join();
  b.join();
  for (auto& t : clients) t.join();
  for (int i = 0; i < kClients; ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].status().ToString();
    EXPECT_EQ(results[i]->body, "resumed " + std::to_string(i));
  }
}

TEST_F(ServerTest, HandlerExceptionOnTheIoThreadBecomes500Status) {
  StartServer(FiberOptions());
  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok());
  auto res = (*client)->Get("/throw");
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->status, 500);
  auto again = (*client)->Get("/where");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->body, "fiber");
}

TEST_F(ServerTest, ShutdownWaitsForASuspendedRequest) {
  StartServer(FiberOptions());
  auto client = TlsClient::Connect(Client());
  ASSERT_TRUE(client.ok());
  Result<testing::ClientResponse> res = InternalError("not run");
  std::thread t([&] { res = (*client)->Get("/suspend?n=7"); });
  auto resume = TakeResumer();
  ASSERT_TRUE(resume);
  const auto start = std::chrono::steady_clock::now();
  std::thread stopper([&] { server_->Shutdown(5s); });
  std::this_thread::sleep_for(100ms);
  resume();
  stopper.join();
  t.join();
  // Finished well before the deadline: the resumer the test still holds does not keep the
  // finished connection open.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->body, "resumed 7");
}

}  // namespace
}  // namespace svcplane::apiserver::http
