#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "client/transport/http.h"

namespace svcplane::client::transport {

// Finds open streams whose server stopped answering, the HTTP/1.1 stand-in for client-go's
// HTTP/2 health check (HTTP2_READ_IDLE_TIMEOUT_SECONDS / HTTP2_PING_TIMEOUT_SECONDS). Our
// transport speaks HTTP/1.1 only, where nothing can be sent on a connection while a watch
// response is open, and an idle watch legitimately carries no bytes for minutes (bookmarks
// come every 60 s at most). So a stream silent for `read_idle` makes the watchdog ping its
// server with a separate request, bounded by the ping's own timeout; only when that fails are
// the streams still silent on that server declared dead: they are cancelled and report why.
// A server that answers keeps its streams, and they are checked again after `read_idle`.
//
// What a ping proves is that the server answers, not that this one connection is alive: a
// connection lost alone (a middlebox dropping the flow) is found only by the server ending it.
//
// One thread, started by the constructor and joined by the destructor. `ping` runs on it,
// one server at a time, and must return within its own timeout. Track/Touch are safe from any
// thread.
class IdleWatchdog {
 public:
  // Returns OK if `server` answered at all (any HTTP status), else why not.
  using Ping = std::function<Status(size_t server)>;

  // One tracked stream. Touch on every byte received; the destructor stops tracking.
  class Stream {
   public:
    ~Stream();
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;

    void Touch() { last_ns_.store(Ns(clock_.Now()), std::memory_order_relaxed); }
    // Set once the watchdog cancelled the stream; dead_reason() is then final.
    bool dead() const { return dead_.load(); }
    std::string dead_reason() const;

   private:
    friend class IdleWatchdog;
    Stream(IdleWatchdog& owner, size_t server, CancelToken& cancel);
    static int64_t Ns(TimePoint t) { return t.time_since_epoch().count(); }

    IdleWatchdog& owner_;
    const Clock& clock_;
    const size_t server_;
    CancelToken& cancel_;
    std::atomic<int64_t> last_ns_;
    std::atomic<bool> dead_{false};
    std::string reason_;  // written by the watchdog before dead_ is set
  };

  IdleWatchdog(Ping ping, Duration read_idle, const Clock& clock);
  ~IdleWatchdog();
  IdleWatchdog(const IdleWatchdog&) = delete;
  IdleWatchdog& operator=(const IdleWatchdog&) = delete;

  // Tracks a stream to `server`, idle from now; the watchdog cancels `cancel` if it dies.
  // `cancel` must outlive the returned handle.
  std::unique_ptr<Stream> Track(size_t server, CancelToken& cancel);

  // Pings sent so far, for tests.
  int pings() const { return pings_.load(); }

 private:
  void Run();
  // Pings the servers of streams idle since before `now`; kills the silent ones on failure.
  void CheckIdle(TimePoint now);

  // Constant after construction.
  const Ping ping_;
  const Duration read_idle_;
  const Clock& clock_;

  std::atomic<int> pings_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  // Guarded by mu_.
  std::vector<Stream*> streams_;
  bool stopping_ = false;

  std::thread thread_;  // last: starts after every member above exists
};

}  // namespace svcplane::client::transport
