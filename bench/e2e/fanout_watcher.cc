#include "bench/e2e/fanout_watcher.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

namespace svcplane::bench::e2e {

namespace {
constexpr uint64_t kWake = ~uint64_t{0};
constexpr size_t kNetBuffer = 64 * 1024;
}  // namespace

FanoutPoller::FanoutPoller(SSL_CTX* tls, uint16_t port, const std::string& request,
                           FanoutShared* shared, size_t watchers)
    : tls_(tls),
      port_(port),
      request_(request),
      shared_(shared),
      net_(kNetBuffer),
      plain_(kNetBuffer) {
  for (size_t i = 0; i < watchers; ++i) conns_.push_back(std::make_unique<Conn>());
}

FanoutPoller::~FanoutPoller() { Stop(); }

void FanoutPoller::Start() {
  epoll_ = epoll_create1(EPOLL_CLOEXEC);
  wake_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (epoll_ < 0 || wake_ < 0) throw std::runtime_error("epoll_create1/eventfd failed");
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kWake;
  epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &ev);
  thread_ = std::thread([this] { Run(); });
}

void FanoutPoller::Stop() {
  if (thread_.joinable()) {
    stop_ = true;
    const uint64_t one = 1;
    if (write(wake_, &one, sizeof(one)) < 0) {
      // The eventfd cannot be full with one write; the thread sees stop_ at its next event.
    }
    thread_.join();
  }
  for (size_t i = 0; i < conns_.size(); ++i) Close(i);
  if (wake_ >= 0) close(wake_);
  if (epoll_ >= 0) close(epoll_);
  wake_ = epoll_ = -1;
}

void FanoutPoller::Run() {
  for (size_t i = 0; i < conns_.size(); ++i) Connect(i);
  std::vector<epoll_event> events(256);
  while (!stop_) {
    const int n = epoll_wait(epoll_, events.data(), static_cast<int>(events.size()), -1);
    // One timestamp per batch: every socket in it was readable when epoll_wait returned.
    const auto now = Clock::now();
    for (int k = 0; k < n; ++k) {
      if (events[k].data.u64 == kWake) continue;
      OnEvent(static_cast<size_t>(events[k].data.u64), events[k].events, now);
    }
  }
}

void FanoutPoller::Connect(size_t i) {
  Conn& c = *conns_[i];
  c.arrivals.assign(shared_->writes, 0);
  c.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (c.fd < 0) return Fail(c);
  const int one = 1;
  setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port_);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(c.fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) < 0 && errno != EINPROGRESS) {
    Fail(c);
    return Close(i);
  }
  epoll_event ev{};
  ev.events = EPOLLOUT;  // writable: connected (or failed, as SO_ERROR says)
  ev.data.u64 = i;
  epoll_ctl(epoll_, EPOLL_CTL_ADD, c.fd, &ev);
  c.want_out = true;
}

void FanoutPoller::OnEvent(size_t i, uint32_t events, Clock::time_point now) {
  Conn& c = *conns_[i];
  if (c.state == State::kClosed) return;
  if (c.state == State::kConnecting) {
    int err = 0;
    socklen_t len = sizeof(err);
    getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      Fail(c);
      return Close(i);
    }
    c.ssl = SSL_new(tls_);
    c.rbio = BIO_new(BIO_s_mem());
    c.wbio = BIO_new(BIO_s_mem());
    SSL_set_bio(c.ssl, c.rbio, c.wbio);
    SSL_set_connect_state(c.ssl);
    c.state = State::kHandshake;
    Drive(c);
    return Flush(i);
  }
  if (events & EPOLLIN) {
    const ssize_t n = recv(c.fd, net_.data(), net_.size(), 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
      if (c.head_ok) shared_->ended.fetch_add(1);  // the server closed the watch
      Fail(c);
      return Close(i);
    }
    if (n > 0) {
      BIO_write(c.rbio, net_.data(), static_cast<int>(n));
      if (c.state == State::kHandshake) Drive(c);
      bool got = false;
      while (c.state == State::kHead || c.state == State::kBody) {
        const int r = SSL_read(c.ssl, plain_.data(), static_cast<int>(plain_.size()));
        if (r <= 0) {
          const int err = SSL_get_error(c.ssl, r);
          if (err == SSL_ERROR_WANT_READ) break;
          ERR_clear_error();
          if (c.head_ok) shared_->ended.fetch_add(1);
          Fail(c);
          return Close(i);
        }
        got = true;
        try {
          OnData(c, plain_.data(), static_cast<size_t>(r));
        } catch (const std::exception&) {  // a malformed head or chunk: the stream is useless
          Fail(c);
          return Close(i);
        }
      }
      if (c.state == State::kClosed) return Close(i);
      if (got) Scan(c, now);
    }
  }
  if (c.state != State::kClosed) Flush(i);
}

void FanoutPoller::Drive(Conn& c) {
  const int r = SSL_do_handshake(c.ssl);
  if (r == 1) {
    c.state = State::kHead;
    SSL_write(c.ssl, request_.data(), static_cast<int>(request_.size()));  // into wbio
    return;
  }
  const int err = SSL_get_error(c.ssl, r);
  if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) {
    ERR_clear_error();
    Fail(c);
    c.state = State::kClosed;
  }
}

void FanoutPoller::Flush(size_t i) {
  Conn& c = *conns_[i];
  if (c.state == State::kClosed) return Close(i);
  while (BIO_pending(c.wbio) > 0) {
    const size_t at = c.out.size();
    c.out.resize(at + static_cast<size_t>(BIO_pending(c.wbio)));
    const int n = BIO_read(c.wbio, c.out.data() + at, static_cast<int>(c.out.size() - at));
    c.out.resize(at + static_cast<size_t>(std::max(n, 0)));
  }
  while (!c.out.empty()) {
    const ssize_t n = send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN) break;
      Fail(c);
      return Close(i);
    }
    c.out.erase(0, static_cast<size_t>(n));
  }
  const bool want_out = !c.out.empty();
  if (want_out != c.want_out) {
    epoll_event ev{};
    ev.events = EPOLLIN | (want_out ? EPOLLOUT : 0u);
    ev.data.u64 = i;
    epoll_ctl(epoll_, EPOLL_CTL_MOD, c.fd, &ev);
    c.want_out = want_out;
  }
}

void FanoutPoller::OnData(Conn& c, const char* p, size_t n) {
  if (c.state == State::kBody) {
    c.chunks.Feed(p, n, [&c](const char* d, size_t k) { c.scan.append(d, k); });
    return;
  }
  c.head.append(p, n);
  const size_t end = c.head.find("\r\n\r\n");
  if (end == std::string::npos) return;
  const ResponseHead h = ParseResponseHead(std::string_view(c.head).substr(0, end + 2));
  if (h.status != 200 || !h.chunked || h.content_type.find("protobuf") == std::string::npos) {
    Fail(c);
    c.state = State::kClosed;
    return;
  }
  c.head_ok = c.counted = true;
  shared_->ready.fetch_add(1);
  c.state = State::kBody;
  const std::string body = c.head.substr(end + 4);
  c.head.clear();
  OnData(c, body.data(), body.size());
}

void FanoutPoller::Scan(Conn& c, Clock::time_point now) {
  const size_t marker = kFanoutMarker.size() + kFanoutDigits;
  size_t keep = c.scan.size() > marker - 1 ? c.scan.size() - (marker - 1) : 0;
  for (size_t p = c.scan.find(kFanoutMarker); p != std::string::npos;
       p = c.scan.find(kFanoutMarker, p + 1)) {
    if (p + marker > c.scan.size()) {
      keep = std::min(keep, p);
      break;
    }
    size_t k = 0;
    bool digits = true;
    for (size_t i = p + kFanoutMarker.size(); i < p + marker; ++i) {
      digits = digits && c.scan[i] >= '0' && c.scan[i] <= '9';
      k = k * 10 + static_cast<size_t>(c.scan[i] - '0');
    }
    if (!digits || k >= c.arrivals.size() || c.arrivals[k] != 0) continue;
    c.arrivals[k] =
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - shared_->t0).count() + 1;
    shared_->delivered.fetch_add(1, std::memory_order_relaxed);
  }
  c.scan.erase(0, keep);
}

void FanoutPoller::Fail(Conn& c) {
  if (c.counted) return;
  c.counted = true;
  shared_->failed.fetch_add(1);
}

void FanoutPoller::Close(size_t i) {
  Conn& c = *conns_[i];
  c.state = State::kClosed;
  if (c.fd >= 0) {
    if (epoll_ >= 0) epoll_ctl(epoll_, EPOLL_CTL_DEL, c.fd, nullptr);
    close(c.fd);
    c.fd = -1;
  }
  if (c.ssl != nullptr) SSL_free(c.ssl);  // frees both BIOs
  c.ssl = nullptr;
}

}  // namespace svcplane::bench::e2e
