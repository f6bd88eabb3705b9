// FailoverTransport over real HttpsTransports, built by NewHttpTransport as the commands build
// it. The servers are TlsTestServers standing in for API servers that refuse, fail, cut off or
// hang; a URL on port 1 stands for a server that is down (nothing listens there).

#include "client/transport/failover_transport.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "client/transport/https_transport.h"
#include "client/transport/testing/tls_test_server.h"

namespace svcplane::client::transport {
namespace {

using testing::ChunkWriter;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TestCerts;
using testing::TestRequest;
using testing::TestResponse;
using testing::TlsTestServer;
using namespace std::chrono_literals;

constexpr char kDown[] = "https://127.0.0.1:1";

TestResponse Reply(int status, std::string body = "{}") {
  TestResponse r;
  r.status = status;
  r.headers = {{"Content-Type", "application/json"}};
  r.body = std::move(body);
  return r;
}

TestResponse Dropped() {
  TestResponse r;
  r.drop = true;
  return r;
}

// A watch that sends `lines` and then ends (or, with `drop`, breaks off).
TestResponse Watch(std::vector<std::string> lines, bool drop = false) {
  TestResponse r;
  r.drop = drop;
  r.stream = [lines](const ChunkWriter& write) {
    for (const auto& l : lines) write(l + "\n");
  };
  return r;
}

// A watch with nothing to say for `quiet`, then `line`. Ends early when the server stops.
TestResponse QuietWatch(const TlsTestServer* const* server, Duration quiet, std::string line) {
  TestResponse r;
  r.stream = [server, quiet, line](const ChunkWriter& write) {
    const auto until = std::chrono::steady_clock::now() + quiet;
    while (std::chrono::steady_clock::now() < until && !(*server)->stopping()) {
      std::this_thread::sleep_for(10ms);
    }
    if (!line.empty()) write(line + "\n");
  };
  return r;
}

// A server process that stopped answering (SIGSTOP): holds the request for up to `d`.
TestResponse Hang(const TlsTestServer* const* server, Duration d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until && !(*server)->stopping()) {
    std::this_thread::sleep_for(10ms);
  }
  return Reply(200, "ok");
}

RestConfig ConfigFor(std::string host, std::vector<std::string> fallback) {
  RestConfig c;
  c.host = std::move(host);
  c.fallback_hosts = std::move(fallback);
  c.ca_pem = TestCerts::Get().ca_pem;
  c.qps = -1;
  c.timeout = 5s;
  return c;
}

struct Client {
  std::shared_ptr<HttpTransport> transport;
  FailoverTransport* failover = nullptr;
};

Client MustCreate(const RestConfig& c, FailoverOptions o = {}) {
  auto t = NewHttpTransport(c, o);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (!t.ok()) return {};
  Client out{*t, dynamic_cast<FailoverTransport*>(t->get())};
  EXPECT_NE(out.failover, nullptr);
  return out;
}

// Short timings so a hung server is found within a second.
FailoverOptions Quick() {
  FailoverOptions o;
  o.read_idle = 300ms;
  o.ping_timeout = 300ms;
  return o;
}

HttpRequest Request(std::string method, std::string target, std::string body = "") {
  HttpRequest r;
  r.method = std::move(method);
  r.target = std::move(target);
  r.body = std::move(body);
  return r;
}

std::vector<std::string> Targets(const TlsTestServer& s) {
  std::vector<std::string> out;
  for (const TestRequest& r : s.requests()) out.push_back(r.method + " " + r.target);
  return out;
}

TEST(FailoverTransportTest, OneServerIsThePlainHttpsTransport) {
  auto t = NewHttpTransport(ConfigFor(kDown, {}));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_NE(dynamic_cast<HttpsTransport*>(t->get()), nullptr);
}

TEST(FailoverTransportTest, DownServerIsSkippedForReadsAndMutationsAndTheClientSticks) {
  TlsTestServer live([](const TestRequest& r) { return Reply(r.method == "POST" ? 201 : 200); });
  Client c = MustCreate(ConfigFor(kDown, {live.url()}));
  // A create first: connect was refused, so it certainly never reached the down server.
  auto created = c.transport->Do(Request("POST", "/api/v1/namespaces/default/pods", "{}"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->status, 201);
  EXPECT_EQ(c.failover->current_server(), live.url());
  for (int i = 0; i < 3; ++i) {
    auto got = c.transport->Do(Request("GET", "/api/v1/pods"));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->status, 200);
  }
  EXPECT_EQ(c.failover->rotations(), 1);  // sticky: the down server is not tried again
  EXPECT_EQ(live.requests().size(), 4u);
}

class ServerErrorTest : public ::testing::TestWithParam<int> {};

TEST_P(ServerErrorTest, ReadGoesToTheNextServerAtOnce) {
  TlsTestServer a([](const TestRequest&) { return Reply(GetParam(), "busy"); });
  TlsTestServer b([](const TestRequest&) { return Reply(200, "from b"); });
  Client c = MustCreate(ConfigFor(a.url(), {b.url()}));
  auto res = c.transport->Do(Request("GET", "/api/v1/services"));
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, "from b");
  EXPECT_THAT(Targets(a), ElementsAre("GET /api/v1/services"));
  EXPECT_EQ(c.failover->current_server(), b.url());
}

TEST_P(ServerErrorTest, MutationIsReturnedAsIsAndTheNextRequestGoesElsewhere) {
  TlsTestServer a([](const TestRequest&) { return Reply(GetParam(), "busy"); });
  TlsTestServer b([](const TestRequest&) { return Reply(201, "from b"); });
  Client c = MustCreate(ConfigFor(a.url(), {b.url()}));
  auto res = c.transport->Do(Request("POST", "/api/v1/namespaces/default/pods", "{}"));
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->status, GetParam());  // the server may have committed it: not resent
  EXPECT_TRUE(b.requests().empty());
  EXPECT_EQ(c.failover->current_server(), b.url());
  auto next = c.transport->Do(Request("POST", "/api/v1/namespaces/default/pods", "{}"));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->status, 201);
}

INSTANTIATE_TEST_SUITE_P(TooManyRequestsAnd5xx, ServerErrorTest,
                         ::testing::Values(429, 500, 502, 503, 504));

TEST(FailoverTransportTest, ClientErrorsAreAnswersNotFailures) {
  TlsTestServer a([](const TestRequest& r) { return Reply(r.method == "GET" ? 404 : 409); });
  TlsTestServer b([](const TestRequest&) { return Reply(200); });
  Client c = MustCreate(ConfigFor(a.url(), {b.url()}));
  auto got = c.transport->Do(Request("GET", "/api/v1/namespaces/default/pods/x"));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->status, 404);
  auto put = c.transport->Do(Request("PUT", "/api/v1/namespaces/default/pods/x", "{}"));
  ASSERT_TRUE(put.ok());
  EXPECT_EQ(put->status, 409);
  EXPECT_TRUE(b.requests().empty());
  EXPECT_EQ(c.failover->rotations(), 0);
}

TEST(FailoverTransportTest, ConnectionCutAfterSendingRetriesReadsButNotMutations) {
  TlsTestServer a([](const TestRequest&) { return Dropped(); });
  TlsTestServer b([](const TestRequest&) { return Reply(200, "from b"); });
  Client c = MustCreate(ConfigFor(a.url(), {b.url()}));
  auto del = c.transport->Do(Request("DELETE", "/api/v1/namespaces/default/pods/x", "{}"));
  ASSERT_FALSE(del.ok());
  EXPECT_EQ(del.status().code(), Code::kUnavailable);
  EXPECT_FALSE(IsNotSent(del.status()));
  EXPECT_TRUE(b.requests().empty()) << "a delete that may have happened was sent again";
  EXPECT_EQ(c.failover->current_server(), b.url());

  // A read cut off the same way is sent to the next server at once.
  TlsTestServer a2([](const TestRequest&) { return Dropped(); });
  Client c2 = MustCreate(ConfigFor(a2.url(), {b.url()}));
  auto got = c2.transport->Do(Request("GET", "/api/v1/pods"));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->body, "from b");
}

TEST(FailoverTransportTest, EveryServerDownReturnsTheLastErrorAfterOneRound) {
  Client c = MustCreate(ConfigFor(kDown, {"https://127.0.0.1:2", "https://127.0.0.1:3"}));
  auto res = c.transport->Do(Request("GET", "/api/v1/pods"));
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.status().code(), Code::kUnavailable);
  EXPECT_TRUE(IsNotSent(res.status()));
  EXPECT_THAT(res.status().message(), HasSubstr("127.0.0.1:3"));
  EXPECT_EQ(c.failover->rotations(), 3);
  EXPECT_EQ(c.failover->current_server(), kDown);  // round robin: back to the first
}

TEST(FailoverTransportTest, WatchRefusedOrDownIsOpenedOnTheNextServer) {
  TlsTestServer a([](const TestRequest&) { return Reply(503); });
  TlsTestServer b([](const TestRequest&) { return Watch({"e1", "e2"}); });
  for (const std::string& first : {a.url(), std::string(kDown)}) {
    Client c = MustCreate(ConfigFor(first, {b.url()}));
    std::vector<std::string> lines;
    CancelToken cancel;
    auto res = c.transport->Stream(
        Request("GET", "/api/v1/pods?watch=true"),
        [&](std::string_view l) {
          lines.emplace_back(l);
          return true;
        },
        cancel);
    ASSERT_TRUE(res.ok()) << first << ": " << res.status().ToString();
    EXPECT_EQ(res->status, 200);
    EXPECT_THAT(lines, ElementsAre("e1", "e2")) << first;
  }
}

TEST(FailoverTransportTest, WatchCutOffAfterEventsEndsWithAnErrorForItsCallerToResume) {
  TlsTestServer a([](const TestRequest&) { return Watch({"e1", "e2"}, /*drop=*/true); });
  TlsTestServer b([](const TestRequest&) { return Watch({"b1"}); });
  Client c = MustCreate(ConfigFor(a.url(), {b.url()}));
  std::vector<std::string> lines;
  CancelToken cancel;
  auto res = c.transport->Stream(
      Request("GET", "/api/v1/pods?watch=true&resourceVersion=7"),
      [&](std::string_view l) {
        lines.emplace_back(l);
        return true;
      },
      cancel);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.status().code(), Code::kUnavailable);
  EXPECT_THAT(lines, ElementsAre("e1", "e2"));  // not followed by a replay from B
  EXPECT_TRUE(b.requests().empty());
  EXPECT_EQ(c.failover->current_server(), b.url());
}

TEST(FailoverTransportTest, SilentWatchOnAHungServerIsDeclaredDeadAndReopenedElsewhere) {
  const TlsTestServer* a_ptr = nullptr;
  TlsTestServer a([&](const TestRequest& r) {
    if (r.target == "/livez") return Hang(&a_ptr, 10s);
    return QuietWatch(&a_ptr, 10s, "too late");
  });
  a_ptr = &a;
  TlsTestServer b([](const TestRequest&) { return Watch({"b1"}); });
  Client c = MustCreate(ConfigFor(a.url(), {b.url()}), Quick());
  std::vector<std::string> lines;
  CancelToken cancel;
  const auto start = std::chrono::steady_clock::now();
  auto res = c.transport->Stream(
      Request("GET", "/api/v1/pods?watch=true"),
      [&](std::string_view l) {
        lines.emplace_back(l);
        return true;
      },
      cancel);
  const auto took = std::chrono::steady_clock::now() - start;
  // Nothing had been delivered, so the same watch could be opened on B at once.
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_THAT(lines, ElementsAre("b1"));
  EXPECT_EQ(c.failover->current_server(), b.url());
  EXPECT_GE(c.failover->watchdog().pings(), 1);
  EXPECT_LT(took, 3s) << "read_idle 0.3s + ping 0.3s, not the server's 10s";
}

TEST(FailoverTransportTest, WatchThatWentSilentAfterEventsReportsWhy) {
  const TlsTestServer* a_ptr = nullptr;
  TlsTestServer a([&](const TestRequest& r) {
    if (r.target == "/livez") return Hang(&a_ptr, 10s);
    TestResponse w = QuietWatch(&a_ptr, 10s, "");
    auto quiet = w.stream;
    w.stream = [quiet](const ChunkWriter& write) {
      write("e1\n");
      quiet(write);
    };
    return w;
  });
  a_ptr = &a;
  TlsTestServer b([](const TestRequest&) { return Watch({"b1"}); });
  Client c = MustCreate(ConfigFor(a.url(), {b.url()}), Quick());
  std::vector<std::string> lines;
  CancelToken cancel;
  auto res = c.transport->StreamBytes(
      Request("GET", "/api/v1/pods?watch=true"),
      [&](const HttpResponse&, std::string_view chunk) {
        lines.emplace_back(chunk);
        return true;
      },
      cancel);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.status().code(), Code::kUnavailable);
  EXPECT_THAT(res.status().message(),
              HasSubstr("no bytes for 0.3s and the server did not answer a ping"));
  EXPECT_THAT(lines, ElementsAre("e1\n"));
  EXPECT_TRUE(b.requests().empty());
  EXPECT_EQ(c.failover->current_server(), b.url());
}

TEST(FailoverTransportTest, QuietWatchOnAnAnsweringServerStaysOpen) {
  const TlsTestServer* a_ptr = nullptr;
  TlsTestServer a([&](const TestRequest& r) {
    if (r.target == "/livez") return Reply(200, "ok");
    return QuietWatch(&a_ptr, 1500ms, "e1");
  });
  a_ptr = &a;
  Client c = MustCreate(ConfigFor(a.url(), {kDown}), Quick());
  std::vector<std::string> lines;
  CancelToken cancel;
  auto res = c.transport->Stream(
      Request("GET", "/api/v1/pods?watch=true"),
      [&](std::string_view l) {
        lines.emplace_back(l);
        return true;
      },
      cancel);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_THAT(lines, ElementsAre("e1"));
  EXPECT_EQ(c.failover->rotations(), 0);
  EXPECT_GE(c.failover->watchdog().pings(), 2);  // every read_idle while quiet
}

TEST(FailoverTransportTest, CallerCancelEndsAStreamWithoutBlamingTheServer) {
  const TlsTestServer* a_ptr = nullptr;
  TlsTestServer a([&](const TestRequest&) { return QuietWatch(&a_ptr, 10s, ""); });
  a_ptr = &a;
  Client c = MustCreate(ConfigFor(a.url(), {kDown}));
  CancelToken cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(200ms);
    cancel.Cancel();
  });
  auto res = c.transport->Stream(
      Request("GET", "/api/v1/pods?watch=true"), [](std::string_view) { return true; }, cancel);
  canceller.join();
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(c.failover->rotations(), 0);
}

}  // namespace
}  // namespace svcplane::client::transport
