#include "controllers/manager/health_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace svcplane::controllers::manager {
namespace {

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

}  // namespace
}  // namespace svcplane::controllers::manager
