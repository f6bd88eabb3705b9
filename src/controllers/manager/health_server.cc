#include "controllers/manager/health_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace svcplane::controllers::manager {

namespace {

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 500:
      return "Internal Server Error";
    default:
      return "Status";
  }
}

void WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace

Result<std::unique_ptr<HealthServer>> HealthServer::Start(
    const std::string& host, uint16_t port, Handler handler,
    std::shared_ptr<const base::tls::ServerContext> tls) {
  sockaddr_storage addr{};
  socklen_t len;
  int family;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&addr);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&addr);
  if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    family = v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    len = sizeof(*v4);
  } else if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    family = v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    len = sizeof(*v6);
  } else {
    return InvalidError("--bind-address must be an IP address, got \"" + host + "\"");
  }
  int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return UnavailableError(std::string("socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(fd, 64) != 0) {
    std::string err = std::strerror(errno);
    ::close(fd);
    return UnavailableError(fmt::format("listen on {}:{}: {}", host, port, err));
  }
  sockaddr_storage bound{};
  socklen_t bound_len = sizeof(bound);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &bound_len);
  uint16_t actual = ntohs(family == AF_INET ? reinterpret_cast<sockaddr_in*>(&bound)->sin_port
                                            : reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    ::close(fd);
    return UnavailableError(std::string("pipe: ") + std::strerror(errno));
  }
  return std::unique_ptr<HealthServer>(
      new HealthServer(fd, pipe_fds[0], pipe_fds[1], actual, std::move(handler), std::move(tls)));
}

HealthServer::HealthServer(int listen_fd, int wake_read, int wake_write, uint16_t port,
                           Handler handler, std::shared_ptr<const base::tls::ServerContext> tls)
    : listen_fd_(listen_fd),
      wake_read_(wake_read),
      wake_write_(wake_write),
      port_(port),
      handler_(std::move(handler)),
      tls_(std::move(tls)),
      thread_([this] { Loop(); }) {}

HealthServer::~HealthServer() {
  Stop();
  ::close(listen_fd_);
  ::close(wake_read_);
  ::close(wake_write_);
}

void HealthServer::Stop() {
  if (!thread_.joinable()) return;
  char b = 1;
  (void)!::write(wake_write_, &b, 1);
  thread_.join();
}

void HealthServer::Loop() {
  // OpenSSL writes with plain write(): a client that left would raise SIGPIPE, which is directed
  // at the writing thread, so blocking it here keeps it from killing the process.
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
  while (true) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_read_, POLLIN, 0}};
    int n = ::poll(fds, 2, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if (fds[0].revents & POLLIN) {
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      ServeOne(fd);
      ::close(fd);
    }
  }
}

void HealthServer::ServeOne(int fd) {
  timeval timeout{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  std::unique_ptr<base::tls::ServerConnection> conn;
  if (tls_ != nullptr) {
    auto accepted = base::tls::ServerConnection::Accept(*tls_, fd);
    // A probe that gave up, a client that does not trust us, or plain HTTP on the HTTPS port.
    if (!accepted.ok()) return;
    conn = std::move(*accepted);
  }
  std::string head;
  char buf[2048];
  while (head.find("\r\n\r\n") == std::string::npos && head.size() < 16 * 1024) {
    size_t got;
    if (conn != nullptr) {
      auto n = conn->Read(buf, sizeof(buf));
      if (!n.ok() || *n == 0) return;
      got = *n;
    } else {
      ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      got = static_cast<size_t>(n);
    }
    head.append(buf, got);
  }
  std::string out = Answer(head);
  // Write errors mean the client went away or timed out: nothing to do for a probe.
  if (conn != nullptr) {
    conn->WriteAll(out).IgnoreError();
  } else {
    WriteAll(fd, out);
  }
}

std::string HealthServer::Answer(std::string_view head) const {
  // Request line: METHOD SP TARGET SP HTTP/1.x
  std::string_view line = head.substr(0, head.find("\r\n"));
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  HttpReply reply;
  std::string_view method;
  if (sp2 == std::string_view::npos || !line.substr(sp2 + 1).starts_with("HTTP/1.")) {
    reply = {400, "text/plain; charset=utf-8", "bad request\n"};
  } else {
    method = line.substr(0, sp1);
    std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    if (method != "GET" && method != "HEAD") {
      reply = {405, "text/plain; charset=utf-8", "method not allowed\n"};
    } else {
      reply = handler_(method, target);
    }
  }
  std::string out = fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n"
      "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
      reply.status, ReasonPhrase(reply.status), reply.content_type, reply.body.size());
  if (method != "HEAD") out += reply.body;
  return out;
}

}  // namespace svcplane::controllers::manager
