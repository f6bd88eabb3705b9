#include "client/transport/idle_watchdog.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/thread_name.h"

namespace svcplane::client::transport {

IdleWatchdog::Stream::Stream(IdleWatchdog& owner, size_t server, CancelToken& cancel)
    : owner_(owner),
      clock_(owner.clock_),
      server_(server),
      cancel_(cancel),
      last_ns_(Ns(owner.clock_.Now())) {}

IdleWatchdog::Stream::~Stream() {
  std::lock_guard<std::mutex> l(owner_.mu_);
  auto& v = owner_.streams_;
  v.erase(std::remove(v.begin(), v.end(), this), v.end());
}

std::string IdleWatchdog::Stream::dead_reason() const {
  return dead_.load() ? reason_ : std::string();
}

IdleWatchdog::IdleWatchdog(Ping ping, Duration read_idle, const Clock& clock)
    : ping_(std::move(ping)), read_idle_(read_idle), clock_(clock), thread_([this] { Run(); }) {}

IdleWatchdog::~IdleWatchdog() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

std::unique_ptr<IdleWatchdog::Stream> IdleWatchdog::Track(size_t server, CancelToken& cancel) {
  std::unique_ptr<Stream> s(new Stream(*this, server, cancel));
  std::lock_guard<std::mutex> l(mu_);
  // Idle from now, so its deadline is no earlier than the one the thread sleeps towards.
  streams_.push_back(s.get());
  return s;
}

void IdleWatchdog::Run() {
  NameThisThread("idle-watchdog");
  std::unique_lock<std::mutex> l(mu_);
  while (!stopping_) {
    const TimePoint now = clock_.Now();
    TimePoint next = now + read_idle_;
    bool due = false;
    for (const Stream* s : streams_) {
      if (s->dead_.load()) continue;  // cancelled, its caller is about to untrack it
      const TimePoint deadline = TimePoint(Duration(s->last_ns_.load())) + read_idle_;
      due = due || deadline <= now;
      next = std::min(next, deadline);
    }
    if (due) {
      l.unlock();
      CheckIdle(now);
      l.lock();
      continue;
    }
    clock_.WaitUntil(l, cv_, next, [this] { return stopping_; });
  }
}

void IdleWatchdog::CheckIdle(TimePoint now) {
  // Silent for read_idle as of `now`, read again after the ping: a byte meanwhile clears it.
  auto idle = [&](const Stream& s) {
    return !s.dead_.load() && TimePoint(Duration(s.last_ns_.load())) + read_idle_ <= now;
  };
  std::vector<size_t> servers;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const Stream* s : streams_) {
      if (idle(*s) && std::find(servers.begin(), servers.end(), s->server_) == servers.end()) {
        servers.push_back(s->server_);
      }
    }
  }
  for (size_t server : servers) {
    ++pings_;
    const Status answer = ping_(server);
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_) return;
    for (Stream* s : streams_) {
      if (s->server_ != server || !idle(*s)) continue;
      if (answer.ok()) {
        s->Touch();  // the server is there: look again after another read_idle
        continue;
      }
      s->reason_ = fmt::format("no bytes for {:g}s and the server did not answer a ping: {}",
                               std::chrono::duration<double>(read_idle_).count(), answer.message());
      s->dead_.store(true);
      s->cancel_.Cancel();
    }
  }
}

}  // namespace svcplane::client::transport
