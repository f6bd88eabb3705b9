#include "base/tls/server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "base/tls/self_signed.h"
#include "base/tls/testing/tls_client.h"

namespace svcplane::base::tls {
namespace {

using testing::TlsExchange;

// A socket listening on 127.0.0.1, kernel-picked port.
struct Listener {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  uint16_t port = 0;
  Listener() {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(::listen(fd, 4), 0);
    socklen_t len = sizeof(addr);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
  }
  ~Listener() { ::close(fd); }
};

// Accepts one connection and answers the first read with "echo:" + what it read. The status of
// the handshake is left in `*accept_status`.
std::thread ServeOnce(const Listener& l, std::shared_ptr<const ServerContext> ctx,
                      Status* accept_status) {
  return std::thread([&l, ctx, accept_status] {
    int fd = ::accept4(l.fd, nullptr, nullptr, SOCK_CLOEXEC);
    timeval timeout{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    {
      auto conn = ServerConnection::Accept(*ctx, fd);
      *accept_status = conn.status();
      if (conn.ok()) {
        char buf[256];
        auto n = (*conn)->Read(buf, sizeof(buf));
        if (n.ok()) (*conn)->WriteAll("echo:" + std::string(buf, *n)).IgnoreError();
      }
    }
    ::close(fd);
  });
}

// One TLS client exchange with a server that echoes once; the server's handshake status is left
// in `*accepted`.
Result<testing::TlsExchangeResult> EchoOnce(std::shared_ptr<const ServerContext> ctx,
                                            std::string_view request, std::string_view ca_pem,
                                            Status* accepted) {
  Listener l;
  std::thread server = ServeOnce(l, std::move(ctx), accepted);
  auto got = TlsExchange(l.port, request, ca_pem);
  server.join();
  return got;
}

class TlsServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cert =
        GenerateSelfSignedCertKey("localhost", {"127.0.0.1"}, {}, std::chrono::system_clock::now());
    ASSERT_TRUE(cert.ok()) << cert.status().ToString();
    cert_ = *cert;
  }
  SelfSignedCert cert_;
};

TEST_F(TlsServerTest, ServesTheChainAClientVerifiesAgainstTheCa) {
  auto ctx = ServerContext::FromPem(cert_.cert_pem, cert_.key_pem);
  ASSERT_TRUE(ctx.ok()) << ctx.status().ToString();
  Status accepted;
  auto got = EchoOnce(*ctx, "hello", cert_.ca_pem, &accepted);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(accepted.ok()) << accepted.ToString();
  EXPECT_EQ(got->response, "echo:hello");
  EXPECT_EQ(got->peer_subject.rfind("/CN=localhost@", 0), 0u) << got->peer_subject;
}

TEST_F(TlsServerTest, AnotherCaDoesNotVerify) {
  auto other =
      GenerateSelfSignedCertKey("localhost", {"127.0.0.1"}, {}, std::chrono::system_clock::now());
  ASSERT_TRUE(other.ok());
  auto ctx = ServerContext::FromPem(cert_.cert_pem, cert_.key_pem);
  ASSERT_TRUE(ctx.ok());
  Status accepted;
  auto got = EchoOnce(*ctx, "hello", other->ca_pem, &accepted);
  EXPECT_EQ(got.status().code(), Code::kUnauthorized) << got.status().ToString();
  EXPECT_EQ(accepted.code(), Code::kUnavailable);
}

TEST_F(TlsServerTest, PlainTextClientFailsTheHandshake) {
  auto ctx = ServerContext::FromPem(cert_.cert_pem, cert_.key_pem);
  ASSERT_TRUE(ctx.ok());
  Listener l;
  Status accepted;
  std::thread server = ServeOnce(l, *ctx, &accepted);
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(l.port);
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  std::string req = "GET /livez HTTP/1.1\r\n\r\n";
  ASSERT_EQ(::send(fd, req.data(), req.size(), 0), static_cast<ssize_t>(req.size()));
  server.join();
  ::close(fd);
  EXPECT_EQ(accepted.code(), Code::kUnavailable) << accepted.ToString();
}

TEST_F(TlsServerTest, KeyOfAnotherCertificateIsInvalid) {
  auto other = GenerateSelfSignedCertKey("localhost", {}, {}, std::chrono::system_clock::now());
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(ServerContext::FromPem(cert_.cert_pem, other->key_pem).status().code(), Code::kInvalid);
  EXPECT_EQ(ServerContext::FromPem("not a certificate", cert_.key_pem).status().code(),
            Code::kInvalid);
  EXPECT_EQ(ServerContext::FromPem(cert_.cert_pem, "not a key").status().code(), Code::kInvalid);
}

TEST_F(TlsServerTest, LoadsCertificateAndKeyFiles) {
  auto dir =
      std::filesystem::temp_directory_path() / ("svcplane-tls-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string crt = (dir / "tls.crt").string(), key = (dir / "tls.key").string();
  std::ofstream(crt) << cert_.cert_pem;
  std::ofstream(key) << cert_.key_pem;
  auto ctx = ServerContext::FromFiles(crt, key);
  ASSERT_TRUE(ctx.ok()) << ctx.status().ToString();
  Status accepted;
  auto got = EchoOnce(*ctx, "x", cert_.ca_pem, &accepted);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->response, "echo:x");

  EXPECT_EQ(ServerContext::FromFiles((dir / "missing.crt").string(), key).status().code(),
            Code::kInvalid);
  EXPECT_EQ(ServerContext::FromFiles(crt, crt).status().code(), Code::kInvalid);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace svcplane::base::tls
