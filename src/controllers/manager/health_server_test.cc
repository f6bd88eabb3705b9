#include "controllers/manager/health_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/tls/self_signed.h"
#include "base/tls/testing/tls_client.h"
#include "controllers/manager/health_serving.h"

namespace svcplane::controllers::manager {
namespace {

using base::tls::testing::TlsExchange;

// One raw HTTP exchange with 127.0.0.1:port.
std::string Exchange(uint16_t port, const std::string& request) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  EXPECT_EQ(::send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
  std::string out;
  char buf[1024];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

TEST(HealthServerTest, ServesTheHandlerOnAKernelPickedPort) {
  auto server = HealthServer::Start("127.0.0.1", 0, [](std::string_view, std::string_view target) {
    if (target == "/livez") return HttpReply{200, "text/plain; charset=utf-8", "ok"};
    return HttpReply{404, "text/plain; charset=utf-8", "404 page not found\n"};
  });
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  ASSERT_NE((*server)->port(), 0);
  std::string r = Exchange((*server)->port(), "GET /livez HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("Content-Length: 2\r\n"), std::string::npos);
  EXPECT_EQ(r.substr(r.size() - 4), "\r\nok");
  r = Exchange((*server)->port(), "GET /nope HTTP/1.1\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 404", 0), 0u);
  r = Exchange((*server)->port(), "POST /livez HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 405", 0), 0u);
  r = Exchange((*server)->port(), "garbage\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 400", 0), 0u);
  (*server)->Stop();
}

TEST(HealthServerTest, BusyPortIsUnavailable) {
  auto handler = [](std::string_view, std::string_view) { return HttpReply{}; };
  auto first = HealthServer::Start("127.0.0.1", 0, handler);
  ASSERT_TRUE(first.ok());
  auto second = HealthServer::Start("127.0.0.1", (*first)->port(), handler);
  EXPECT_EQ(second.status().code(), Code::kUnavailable);
  EXPECT_EQ(HealthServer::Start("localhost", 0, handler).status().code(), Code::kInvalid);
}

HttpReply Livez(std::string_view, std::string_view target) {
  if (target == "/livez") return HttpReply{200, "text/plain; charset=utf-8", "ok"};
  return HttpReply{404, "text/plain; charset=utf-8", "404 page not found\n"};
}

// A port that was free a moment ago (the flags under test treat 0 as "off", not "any").
uint16_t FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

TEST(HealthServerTest, ServesHttpsAndSurvivesPlainTextClients) {
  auto cert = base::tls::GenerateSelfSignedCertKey("localhost", {"127.0.0.1"}, {},
                                                   std::chrono::system_clock::now());
  ASSERT_TRUE(cert.ok());
  auto ctx = base::tls::ServerContext::FromPem(cert->cert_pem, cert->key_pem);
  ASSERT_TRUE(ctx.ok());
  auto server = HealthServer::Start("127.0.0.1", 0, Livez, *ctx);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  const std::string get = "GET /livez HTTP/1.1\r\nHost: x\r\n\r\n";
  auto r = TlsExchange((*server)->port(), get, cert->ca_pem);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->response.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r->response;
  EXPECT_EQ(r->response.substr(r->response.size() - 4), "\r\nok");
  // Plain HTTP on the HTTPS port gets no answer, and the next TLS client is served.
  EXPECT_EQ(Exchange((*server)->port(), get).find("200 OK"), std::string::npos);
  r = TlsExchange((*server)->port(), "GET /nope HTTP/1.1\r\n\r\n", cert->ca_pem);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->response.rfind("HTTP/1.1 404", 0), 0u);
}

TEST(HealthServingTest, SelfSignedHttpsOnSecurePortAndPlainHttpOnPort) {
  ControllerManagerOptions o;
  o.secure_port = FreePort();
  o.port = FreePort();
  const auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1800000000));
  auto serving = StartHealthServing(o, Livez, now);
  ASSERT_TRUE(serving.ok()) << serving.status().ToString();
  ASSERT_NE(serving->secure, nullptr);
  ASSERT_NE(serving->insecure, nullptr);
  EXPECT_EQ(serving->secure->port(), o.secure_port);
  auto r = TlsExchange(serving->secure->port(), "GET /livez HTTP/1.1\r\n\r\n", serving->ca_pem);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->response.rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  EXPECT_EQ(r->peer_subject, "/CN=localhost@1800000000");
  std::string plain = Exchange(serving->insecure->port(), "GET /livez HTTP/1.1\r\n\r\n");
  EXPECT_EQ(plain.rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  serving->Stop();
  serving->Stop();  // idempotent
}

TEST(HealthServingTest, ZeroPortsServeNothing) {
  ControllerManagerOptions o;
  o.secure_port = 0;
  auto serving = StartHealthServing(o, Livez, std::chrono::system_clock::now());
  ASSERT_TRUE(serving.ok());
  EXPECT_EQ(serving->secure, nullptr);
  EXPECT_EQ(serving->insecure, nullptr);
}

TEST(HealthServingTest, ServesTheGivenCertificateFiles) {
  auto cert =
      base::tls::GenerateSelfSignedCertKey("127.0.0.1", {}, {}, std::chrono::system_clock::now());
  auto other =
      base::tls::GenerateSelfSignedCertKey("127.0.0.1", {}, {}, std::chrono::system_clock::now());
  ASSERT_TRUE(cert.ok() && other.ok());
  auto dir = std::filesystem::temp_directory_path() /
             ("svcplane-health-serving-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ControllerManagerOptions o;
  o.secure_port = FreePort();
  o.tls_cert_file = (dir / "tls.crt").string();
  o.tls_private_key_file = (dir / "tls.key").string();
  std::ofstream(o.tls_cert_file) << cert->cert_pem;
  std::ofstream(o.tls_private_key_file) << cert->key_pem;
  auto serving = StartHealthServing(o, Livez, std::chrono::system_clock::now());
  ASSERT_TRUE(serving.ok()) << serving.status().ToString();
  EXPECT_EQ(serving->ca_pem, "");  // nothing was generated
  auto r = TlsExchange(serving->secure->port(), "GET /livez HTTP/1.1\r\n\r\n", cert->ca_pem);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->response.rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  serving->Stop();

  std::ofstream(o.tls_private_key_file) << other->key_pem;
  EXPECT_EQ(StartHealthServing(o, Livez, std::chrono::system_clock::now()).status().code(),
            Code::kInvalid);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace svcplane::controllers::manager
