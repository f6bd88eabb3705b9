#include "client/transport/https_transport.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <future>
#include <thread>

#include "client/transport/kubeconfig.h"
#include "client/transport/testing/tls_test_server.h"

namespace svcplane::client::transport {
namespace {

using ::testing::HasSubstr;
using testing::TestCerts;
using testing::TestRequest;
using testing::TestResponse;
using testing::TlsTestServer;

TestResponse Ok(std::string body = "{}") {
  TestResponse r;
  r.headers = {{"Content-Type", "application/json"}};
  r.body = std::move(body);
  return r;
}

RestConfig ConfigFor(const TlsTestServer& server) {
  RestConfig c;
  c.host = server.url();
  c.ca_pem = TestCerts::Get().ca_pem;
  c.qps = -1;  // no client-side limit unless a test sets one
  return c;
}

std::unique_ptr<HttpsTransport> MustCreate(const RestConfig& c, HttpsTransportOptions o = {}) {
  auto t = HttpsTransport::Create(c, o);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(*t) : nullptr;
}

HttpRequest Get(std::string target) {
  HttpRequest r;
  r.target = std::move(target);
  return r;
}

TEST(HttpsTransportTest, VerifiesServerAgainstCaAndSendsBearerToken) {
  TlsTestServer server([](const TestRequest& r) { return Ok("hello " + r.target); });
  RestConfig c = ConfigFor(server);
  c.bearer_token = "secret";
  c.user_agent = "test-agent/1";
  auto t = MustCreate(c);
  auto res = t->Do(Get("/api/v1/pods"));
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, "hello /api/v1/pods");
  EXPECT_EQ(res->Header("content-type"), "application/json");
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].headers["authorization"], "Bearer secret");
  EXPECT_EQ(reqs[0].headers["user-agent"], "test-agent/1");
  EXPECT_EQ(reqs[0].headers["host"], "127.0.0.1:" + std::to_string(server.port()));
}

TEST(HttpsTransportTest, WrongCaFailsVerification) {
  TlsTestServer server([](const TestRequest&) { return Ok(); });
  RestConfig c = ConfigFor(server);
  c.ca_pem = TestCerts::Get().other_ca_pem;
  auto res = MustCreate(c)->Do(Get("/"));
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.status().code(), Code::kUnavailable);
  EXPECT_THAT(res.status().message(), HasSubstr("certificate verify failed"));
  EXPECT_TRUE(server.requests().empty());
}

TEST(HttpsTransportTest, InsecureSkipVerifyAcceptsUnknownCa) {
  TlsTestServer server([](const TestRequest&) { return Ok(); });
  RestConfig c = ConfigFor(server);
  c.ca_pem.clear();
  c.insecure_skip_tls_verify = true;
  auto res = MustCreate(c)->Do(Get("/"));
  ASSERT_TRUE(res.ok()) << res.status().ToString();
}

TEST(HttpsTransportTest, ChecksServerNameOrTlsServerName) {
  TlsTestServer server([](const TestRequest&) { return Ok(); });
  RestConfig c = ConfigFor(server);
  c.tls_server_name = "kubernetes.default.svc";  // not in the cert's SANs
  auto res = MustCreate(c)->Do(Get("/"));
  ASSERT_FALSE(res.ok());
  EXPECT_THAT(res.status().message(), HasSubstr("certificate verify failed"));

  c.tls_server_name = "localhost";  // in the SANs, while dialling 127.0.0.1
  EXPECT_TRUE(MustCreate(c)->Do(Get("/")).ok());
  c.tls_server_name.clear();
  c.host = "https://localhost:" + std::to_string(server.port());
  EXPECT_TRUE(MustCreate(c)->Do(Get("/")).ok());
}

TEST(HttpsTransportTest, ClientCertificateAuth) {
  TlsTestServer server([](const TestRequest&) { return Ok(); },
                       TlsTestServer::ClientCerts::kRequire);
  RestConfig c = ConfigFor(server);
  EXPECT_FALSE(MustCreate(c)->Do(Get("/")).ok());  // no certificate: handshake refused

  c.client_cert_pem = TestCerts::Get().client_cert_pem;
  c.client_key_pem = TestCerts::Get().client_key_pem;
  auto res = MustCreate(c)->Do(Get("/"));
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(server.requests()[0].client_cn, "alice");
}

TEST(HttpsTransportTest, BrokenClientKeyFailsAtCreate) {
  RestConfig c;
  c.host = "https://127.0.0.1:1";
  c.source = "kubeconfig /k";
  c.client_cert_pem = TestCerts::Get().client_cert_pem;
  c.client_key_pem = "garbage";
  auto t = HttpsTransport::Create(c);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("kubeconfig /k: client-key"));
}

TEST(HttpsTransportTest, KeepAliveReusesOneConnection) {
  TlsTestServer server([](const TestRequest&) { return Ok(); });
  auto t = MustCreate(ConfigFor(server));
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(t->Do(Get("/x")).ok());
  EXPECT_EQ(t->ConnectionsOpened(), 1);
  EXPECT_EQ(server.connections_accepted(), 1);
}

TEST(HttpsTransportTest, ParallelRequestsUseSeparateConnectionsThenPoolThem) {
  std::atomic<int> in_flight{0};
  TlsTestServer server([&](const TestRequest&) {
    ++in_flight;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    --in_flight;
    return Ok();
  });
  auto t = MustCreate(ConfigFor(server));
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) threads.emplace_back([&] { ASSERT_TRUE(t->Do(Get("/")).ok()); });
  for (auto& th : threads) th.join();
  EXPECT_EQ(t->ConnectionsOpened(), 3);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(t->Do(Get("/")).ok());
  EXPECT_EQ(t->ConnectionsOpened(), 3);
}

TEST(HttpsTransportTest, StalePooledConnectionIsRetriedOnANewOne) {
  TlsTestServer server([](const TestRequest&) {
    TestResponse r = Ok("fine");
    r.close_after = true;  // drops the connection without "Connection: close"
    return r;
  });
  auto t = MustCreate(ConfigFor(server));
  ASSERT_TRUE(t->Do(Get("/1")).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let the close arrive
  auto res = t->Do(Get("/2"));
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->body, "fine");
  EXPECT_EQ(t->ConnectionsOpened(), 2);
}

TEST(HttpsTransportTest, ConnectionRefusedIsUnavailable) {
  int port;
  {
    TlsTestServer server([](const TestRequest&) { return Ok(); });
    port = server.port();
  }
  RestConfig c;
  c.host = "https://127.0.0.1:" + std::to_string(port);
  c.ca_pem = TestCerts::Get().ca_pem;
  auto res = MustCreate(c)->Do(Get("/"));
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.status().code(), Code::kUnavailable);
  EXPECT_THAT(res.status().message(), HasSubstr("dial tcp 127.0.0.1:"));
}

TEST(HttpsTransportTest, SlowServerTimesOut) {
  TlsTestServer server([](const TestRequest&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return Ok();
  });
  RestConfig c = ConfigFor(server);
  c.timeout = std::chrono::milliseconds(100);
  auto res = MustCreate(c)->Do(Get("/"));
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.status().code(), Code::kTimeout);
}

TEST(HttpsTransportTest, QpsBurstLimiterOnFakeClock) {
  TlsTestServer server([](const TestRequest&) { return Ok(); });
  FakeClock clock;
  RestConfig c = ConfigFor(server);
  c.qps = 1;
  c.burst = 2;
  auto t = MustCreate(c, {.clock = &clock});
  ASSERT_TRUE(t->Do(Get("/")).ok());
  ASSERT_TRUE(t->Do(Get("/")).ok());
  auto third = std::async(std::launch::async, [&] { return t->Do(Get("/")).ok(); });
  clock.BlockUntilWaiters(1);  // parked on the limiter
  EXPECT_EQ(third.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  EXPECT_EQ(server.requests().size(), 2u);
  clock.Advance(std::chrono::seconds(1));
  EXPECT_TRUE(third.get());
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST(HttpsTransportTest, DefaultQpsIsFiveWithBurstTen) {
  TlsTestServer server([](const TestRequest&) { return Ok(); });
  FakeClock clock;
  RestConfig c = ConfigFor(server);
  c.qps = 0;  // client-go defaults
  auto t = MustCreate(c, {.clock = &clock});
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(t->Do(Get("/")).ok());
  auto next = std::async(std::launch::async, [&] { return t->Do(Get("/")).ok(); });
  clock.BlockUntilWaiters(1);
  clock.Advance(std::chrono::milliseconds(200));  // one token at 5 qps
  EXPECT_TRUE(next.get());
}

// Streams `lines` one chunk each, waiting for the client to confirm each before the next so
// that the test proves lines arrive as they are sent, then keeps the stream open with blank
// keep-alive lines until the client goes away.
TEST(HttpsTransportTest, StreamDeliversLinesAsTheyArriveAndCancels) {
  std::mutex mu;
  std::condition_variable cv;
  int acked = 0;
  std::atomic<bool> server_saw_close{false};
  TlsTestServer server([&](const TestRequest&) {
    TestResponse r;
    r.stream = [&](const testing::ChunkWriter& write) {
      for (int i = 0; i < 3; ++i) {
        // The second line is split across two chunks.
        if (i == 1) {
          write("{\"n\":");
          write("1}\n");
        } else {
          write("{\"n\":" + std::to_string(i) + "}\n");
        }
        std::unique_lock<std::mutex> l(mu);
        cv.wait_for(l, std::chrono::seconds(5), [&] { return acked > i; });
      }
      while (write("\n")) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      server_saw_close = true;
    };
    return r;
  });
  auto t = MustCreate(ConfigFor(server));
  CancelToken cancel;
  std::thread canceller;
  std::vector<std::string> lines;
  auto on_line = [&](std::string_view line) {
    lines.emplace_back(line);
    std::lock_guard<std::mutex> l(mu);
    ++acked;
    cv.notify_all();
    if (acked == 3) {
      canceller = std::thread([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        cancel.Cancel();
      });
    }
    return true;
  };
  auto res = t->Stream(Get("/api/v1/pods?watch=true"), on_line, cancel);
  canceller.join();
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(lines, (std::vector<std::string>{"{\"n\":0}", "{\"n\":1}", "{\"n\":2}"}));
  for (int i = 0; i < 200 && !server_saw_close; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(server_saw_close);
}

TEST(HttpsTransportTest, StreamEndsWhenServerFinishesBody) {
  TlsTestServer server([](const TestRequest&) {
    TestResponse r;
    r.stream = [](const testing::ChunkWriter& write) {
      write("a\nb\n");
      write("c");  // last line without a newline
    };
    return r;
  });
  auto t = MustCreate(ConfigFor(server));
  CancelToken cancel;
  std::vector<std::string> lines;
  auto res = t->Stream(
      Get("/"),
      [&](std::string_view l) {
        lines.emplace_back(l);
        return true;
      },
      cancel);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "b", "c"}));
}

// A body streamed to its end (a list decoded as it arrives) leaves the connection in the pool;
// a stream the handler stopped early does not.
TEST(HttpsTransportTest, StreamBytesReadToTheEndReusesTheConnection) {
  const std::string body(1 << 20, 'x');
  TlsTestServer server([&](const TestRequest&) { return Ok(body); });
  auto t = MustCreate(ConfigFor(server));
  for (int i = 0; i < 3; ++i) {
    CancelToken cancel;
    std::string got;
    auto res = t->StreamBytes(
        Get("/list"),
        [&](const HttpResponse& head, std::string_view chunk) {
          EXPECT_EQ(head.status, 200);
          got.append(chunk);
          return true;
        },
        cancel);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    EXPECT_EQ(got, body);
  }
  EXPECT_EQ(t->ConnectionsOpened(), 1);
  CancelToken cancel;
  auto res = t->StreamBytes(
      Get("/list"), [](const HttpResponse&, std::string_view) { return false; }, cancel);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  ASSERT_TRUE(t->Do(Get("/x")).ok());
  EXPECT_EQ(t->ConnectionsOpened(), 2);
}

// StreamBytes reads block on the socket; a Cancel from another thread while the server sends
// nothing (an idle protobuf watch) still ends the call at once, and the server sees the close.
TEST(HttpsTransportTest, StreamBytesCancelledWhileBlockedInARead) {
  std::atomic<bool> server_saw_close{false};
  TlsTestServer server([&](const TestRequest&) {
    TestResponse r;
    r.stream = [&](const testing::ChunkWriter& write) {
      write("first");
      // Idle until the client goes away (a write fails once it shut the connection down).
      while (write(" ")) std::this_thread::sleep_for(std::chrono::milliseconds(200));
      server_saw_close = true;
    };
    return r;
  });
  auto t = MustCreate(ConfigFor(server));
  CancelToken cancel;
  std::thread canceller;
  std::string got;
  auto res = t->StreamBytes(
      Get("/watch"),
      [&](const HttpResponse&, std::string_view chunk) {
        if (got.empty()) {
          canceller = std::thread([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            cancel.Cancel();
          });
        }
        got.append(chunk);
        return true;
      },
      cancel);
  canceller.join();
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(got.substr(0, 5), "first");
  for (int i = 0; i < 400 && !server_saw_close; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(server_saw_close);
}

TEST(HttpsTransportTest, StreamErrorStatusReturnsWholeBody) {
  TlsTestServer server([](const TestRequest&) {
    TestResponse r = Ok(R"({"kind":"Status","code":410})");
    r.status = 410;
    return r;
  });
  CancelToken cancel;
  auto res = MustCreate(ConfigFor(server))
                 ->Stream(
                     Get("/"),
                     [](std::string_view) {
                       ADD_FAILURE() << "no lines expected";
                       return true;
                     },
                     cancel);
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->status, 410);
  EXPECT_EQ(res->body, R"({"kind":"Status","code":410})");
}

TEST(HttpsTransportTest, CancelBeforeStreamReturnsPromptly) {
  TlsTestServer server([](const TestRequest&) {
    TestResponse r;
    r.stream = [](const testing::ChunkWriter& write) {
      while (write("\n")) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    };
    return r;
  });
  CancelToken cancel;
  cancel.Cancel();
  auto res = MustCreate(ConfigFor(server))
                 ->Stream(
                     Get("/"), [](std::string_view) { return true; }, cancel);
  EXPECT_TRUE(res.ok());
}

// A plugin that hands out "old" first and "new" after; the server accepts only "new".
TEST(HttpsTransportTest, ExecPluginTokenRefreshedOn401) {
  TlsTestServer server([](const TestRequest& r) {
    if (r.headers.count("authorization") && r.headers.at("authorization") == "Bearer new") {
      return Ok("welcome");
    }
    TestResponse denied = Ok(R"({"kind":"Status","apiVersion":"v1","status":"Failure",)"
                             R"("message":"Unauthorized","reason":"Unauthorized","code":401})");
    denied.status = 401;
    return denied;
  });
  const std::string dir = testing::MakeTempDir();
  testing::WriteFile(
      dir + "/plugin.sh",
      "#!/bin/sh\n"
      "if [ -f " +
          dir + "/ran ]; then tok=new; else tok=old; touch " + dir +
          "/ran; fi\n"
          "echo run >> " +
          dir +
          "/runs\n"
          "printf '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
          "\"status\":{\"token\":\"%s\"}}' $tok\n",
      0755);
  RestConfig c = ConfigFor(server);
  c.exec =
      ExecConfig{.command = dir + "/plugin.sh", .api_version = "client.authentication.k8s.io/v1"};
  auto t = MustCreate(c);
  auto res = t->Do(Get("/"));
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, "welcome");
  ASSERT_TRUE(t->Do(Get("/")).ok());  // cached: no third run
  EXPECT_EQ(*ReadFileToString(dir + "/runs"), "run\nrun\n");
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST(HttpsTransportTest, ExecPluginClientCertificate) {
  TlsTestServer server([](const TestRequest&) { return Ok(); },
                       TlsTestServer::ClientCerts::kRequire);
  const std::string dir = testing::MakeTempDir();
  boost::json::object status{{"clientCertificateData", TestCerts::Get().client_cert_pem},
                             {"clientKeyData", TestCerts::Get().client_key_pem}};
  boost::json::object cred{{"kind", "ExecCredential"},
                           {"apiVersion", "client.authentication.k8s.io/v1beta1"},
                           {"status", status}};
  testing::WriteFile(dir + "/cred.json", boost::json::serialize(cred));
  testing::WriteFile(dir + "/plugin.sh", "#!/bin/sh\ncat " + dir + "/cred.json\n", 0755);
  RestConfig c = ConfigFor(server);
  c.exec = ExecConfig{.command = dir + "/plugin.sh",
                      .api_version = "client.authentication.k8s.io/v1beta1"};
  auto res = MustCreate(c)->Do(Get("/"));
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(server.requests()[0].client_cn, "alice");
}

TEST(HttpsTransportTest, FromKubeconfigWithClientCertFilesAndToken) {
  TlsTestServer server([](const TestRequest&) { return Ok(); },
                       TlsTestServer::ClientCerts::kRequire);
  const auto& certs = TestCerts::Get();
  const std::string dir = testing::MakeTempDir();
  testing::WriteFile(dir + "/config",
                     "current-context: c\n"
                     "clusters: [{name: k, cluster: {server: \"" +
                         server.url() + "\", certificate-authority: " + certs.ca_file +
                         "}}]\n"
                         "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
                         "users: [{name: u, user: {token: t0k, "
                         "client-certificate: " +
                         certs.client_cert_file + ", client-key: " + certs.client_key_file +
                         "}}]\n");
  auto config = LoadKubeconfig(dir + "/config");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  auto res = MustCreate(*config)->Do(Get("/version"));
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(server.requests()[0].client_cn, "alice");
  EXPECT_EQ(server.requests()[0].headers["authorization"], "Bearer t0k");
}

}  // namespace
}  // namespace svcplane::client::transport
