#include "apiserver/http/inflight_limiter.h"

#include <algorithm>

namespace svcplane::apiserver::http {

InflightLimiter::InflightLimiter(int max_read_only, int max_mutating)
    : max_read_only_(std::max(0, max_read_only)), max_mutating_(std::max(0, max_mutating)) {}

InflightLimiter::Slot& InflightLimiter::Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    if (counter_ != nullptr) counter_->fetch_sub(1, std::memory_order_relaxed);
    counter_ = other.counter_;
    other.counter_ = nullptr;
  }
  return *this;
}

InflightLimiter::Slot::~Slot() {
  if (counter_ != nullptr) counter_->fetch_sub(1, std::memory_order_relaxed);
}

InflightLimiter::Kind InflightLimiter::KindOf(std::string_view method) {
  return method == "GET" || method == "HEAD" ? Kind::kReadOnly : Kind::kMutating;
}

bool InflightLimiter::Exempt(const Identity& identity) {
  return std::find(identity.groups.begin(), identity.groups.end(), "system:masters") !=
         identity.groups.end();
}

std::optional<InflightLimiter::Slot> InflightLimiter::TryAcquire(Kind kind,
                                                                 const Identity& identity) {
  const int max = kind == Kind::kReadOnly ? max_read_only_ : max_mutating_;
  if (max == 0 || Exempt(identity)) return Slot(nullptr);
  std::atomic<int>& counter = kind == Kind::kReadOnly ? read_only_ : mutating_;
  // A compare-and-swap loop, not fetch_add-then-undo: a refused request must never raise the
  // count even for an instant, or a concurrent acquirer would be refused while fewer than `max`
  // requests run. Relaxed: the count guards no data, it only bounds how many requests run.
  int now = counter.load(std::memory_order_relaxed);
  do {
    if (now >= max) return std::nullopt;
  } while (!counter.compare_exchange_weak(now, now + 1, std::memory_order_relaxed));
  return Slot(&counter);
}

int InflightLimiter::InFlightForTest(Kind kind) const {
  return (kind == Kind::kReadOnly ? read_only_ : mutating_).load();
}

Response TooManyRequestsResponse() {
  Response r;
  r.status = 429;
  r.content_type = "text/plain; charset=utf-8";
  r.body = "Too many requests, please try again later.\n";
  r.headers = {{"Retry-After", "1"}, {"X-Content-Type-Options", "nosniff"}};
  return r;
}

}  // namespace svcplane::apiserver::http
