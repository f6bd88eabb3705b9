#include "client/transport/failover_transport.h"

#include <spdlog/spdlog.h>

#include "base/check.h"
#include "client/transport/failover_policy.h"
#include "client/transport/https_transport.h"

namespace svcplane::client::transport {

FailoverTransport::FailoverTransport(std::vector<FailoverServer> servers, FailoverOptions options)
    : servers_(std::move(servers)), options_(std::move(options)) {
  SVC_CHECK(!servers_.empty()) << "a failover transport needs at least one server";
  const Clock& clock = options_.clock ? *options_.clock : RealClock::Get();
  auto ping = [this](size_t index) -> Status {
    HttpRequest req;
    req.target = options_.ping_path;
    auto res = servers_[index].ping->Do(req);
    return res.ok() ? Status::Ok() : res.status();
  };
  watchdog_ = std::make_unique<IdleWatchdog>(std::move(ping), options_.read_idle, clock);
}

FailoverTransport::~FailoverTransport() = default;

const std::string& FailoverTransport::current_server() const {
  return servers_[current_.load()].url;
}

size_t FailoverTransport::Rotate(size_t from, const std::string& reason) {
  const size_t to = (from + 1) % servers_.size();
  size_t expected = from;
  if (!current_.compare_exchange_strong(expected, to)) return expected;  // someone else did
  ++rotations_;
  spdlog::warn("client: API server {} failed ({}); switching to {}", servers_[from].url, reason,
               servers_[to].url);
  return to;
}

Result<HttpResponse> FailoverTransport::Call(const HttpRequest& request, const Attempt& attempt) {
  size_t index = current_.load();
  for (size_t tried = 1;; ++tried) {
    bool delivered = false;
    Result<HttpResponse> res = attempt(index, &delivered);
    const FailoverVerdict v = JudgeAttempt(request.method, res, delivered);
    if (!v.rotate) return res;
    index = Rotate(index, v.reason);
    if (!v.retry || tried >= servers_.size()) return res;
  }
}

Result<HttpResponse> FailoverTransport::Do(const HttpRequest& request) {
  return Call(request, [&](size_t index, bool*) { return servers_[index].transport->Do(request); });
}

// Runs `open(transport, inner_cancel)` for one stream attempt. The caller's token and the idle
// watchdog both cancel the inner token; a stream the watchdog ended reports why as kUnavailable
// (HttpsTransport returns a cancelled stream as a normal end).
namespace {

template <typename Open>
Result<HttpResponse> StreamAttempt(HttpTransport& transport, IdleWatchdog& watchdog, size_t index,
                                   CancelToken& cancel, const Open& open,
                                   std::unique_ptr<IdleWatchdog::Stream>* tracked) {
  CancelToken inner;
  auto forward = cancel.OnCancel([&inner] { inner.Cancel(); });
  *tracked = watchdog.Track(index, inner);
  Result<HttpResponse> res = open(transport, inner);
  const bool dead = (*tracked)->dead() && !cancel.cancelled();
  std::string reason = dead ? (*tracked)->dead_reason() : "";
  tracked->reset();  // before `inner` goes away
  if (dead) return UnavailableError(std::move(reason));
  return res;
}

}  // namespace

Result<HttpResponse> FailoverTransport::Stream(const HttpRequest& request,
                                               const LineHandler& on_line, CancelToken& cancel) {
  return Call(request, [&](size_t index, bool* delivered) {
    std::unique_ptr<IdleWatchdog::Stream> tracked;
    LineHandler touch = [&](std::string_view line) {
      *delivered = true;
      tracked->Touch();
      return on_line(line);
    };
    return StreamAttempt(
        *servers_[index].transport, *watchdog_, index, cancel,
        [&](HttpTransport& t, CancelToken& inner) { return t.Stream(request, touch, inner); },
        &tracked);
  });
}

Result<HttpResponse> FailoverTransport::StreamBytes(const HttpRequest& request,
                                                    const BytesHandler& on_bytes,
                                                    CancelToken& cancel) {
  return Call(request, [&](size_t index, bool* delivered) {
    std::unique_ptr<IdleWatchdog::Stream> tracked;
    BytesHandler touch = [&](const HttpResponse& head, std::string_view chunk) {
      *delivered = true;
      tracked->Touch();
      return on_bytes(head, chunk);
    };
    return StreamAttempt(
        *servers_[index].transport, *watchdog_, index, cancel,
        [&](HttpTransport& t, CancelToken& inner) { return t.StreamBytes(request, touch, inner); },
        &tracked);
  });
}

Result<std::shared_ptr<HttpTransport>> NewHttpTransport(const RestConfig& config,
                                                        FailoverOptions options) {
  if (config.fallback_hosts.empty()) {
    auto https = HttpsTransport::Create(config);
    if (!https.ok()) return https.status();
    return std::shared_ptr<HttpTransport>(std::move(*https));
  }
  const Clock& clock = options.clock ? *options.clock : RealClock::Get();
  HttpsTransportOptions shared{.clock = &clock, .limiter = NewRateLimiter(config, clock)};
  std::vector<std::string> hosts = {config.host};
  hosts.insert(hosts.end(), config.fallback_hosts.begin(), config.fallback_hosts.end());
  std::vector<FailoverServer> servers;
  for (const std::string& host : hosts) {
    RestConfig one = config;
    one.host = host;
    one.fallback_hosts.clear();
    auto https = HttpsTransport::Create(one, shared);
    if (!https.ok()) return https.status();
    RestConfig ping = one;
    ping.timeout = options.ping_timeout;
    ping.qps = -1;
    auto pinger = HttpsTransport::Create(ping, {.clock = &clock, .max_idle_per_host = 1});
    if (!pinger.ok()) return pinger.status();
    servers.push_back({host, std::move(*https), std::move(*pinger)});
  }
  return std::shared_ptr<HttpTransport>(
      std::make_shared<FailoverTransport>(std::move(servers), std::move(options)));
}

}  // namespace svcplane::client::transport
