#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string_view>

#include "apiserver/http/handler.h"

namespace svcplane::apiserver::http {

// kube-apiserver's max-in-flight filter (--max-requests-inflight,
// --max-mutating-requests-inflight): at most that many non-long-running requests of each kind
// are handled at once; one more is answered 429 at once (TooManyRequestsResponse), never
// queued. Members of system:masters are never refused (and not counted). A limit of 0 means no
// limit for that kind.
//
// Two atomic counters that never exceed their limit: admitting a request costs one
// compare-and-swap, releasing it one fetch_sub, no lock.
// Safe from any thread; must outlive every Slot it handed out.
class InflightLimiter {
 public:
  enum class Kind { kReadOnly, kMutating };

  InflightLimiter(int max_read_only, int max_mutating);

  // A request's place in the count, given back when destroyed.
  class Slot {
   public:
    Slot(Slot&& other) noexcept : counter_(other.counter_) { other.counter_ = nullptr; }
    Slot& operator=(Slot&& other) noexcept;
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot();

   private:
    friend class InflightLimiter;
    explicit Slot(std::atomic<int>* counter) : counter_(counter) {}
    std::atomic<int>* counter_;  // null: not counted (exempt, unlimited, or moved from)
  };

  // GET and HEAD read; every other method mutates (upstream: verbs other than get, list,
  // watch are mutating).
  static Kind KindOf(std::string_view method);
  // Whether `identity` bypasses the limits (system:masters).
  static bool Exempt(const Identity& identity);

  // A slot for a request of `kind` by `identity`, or nullopt when the limit is reached.
  std::optional<Slot> TryAcquire(Kind kind, const Identity& identity);

  int InFlightForTest(Kind kind) const;

 private:
  const int max_read_only_;
  const int max_mutating_;
  std::atomic<int> read_only_{0};
  std::atomic<int> mutating_{0};
};

// Upstream's 429 from the max-in-flight filter: plain text, not a Status.
//   Retry-After: 1, Content-Type: text/plain; charset=utf-8, X-Content-Type-Options: nosniff,
//   body "Too many requests, please try again later.\n".
Response TooManyRequestsResponse();

}  // namespace svcplane::apiserver::http
