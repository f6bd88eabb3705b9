#include "apiserver/server/store_health.h"

#include <spdlog/spdlog.h>

#include "base/thread_name.h"

namespace svcplane::apiserver::server {

StoreHealthProbe::StoreHealthProbe(std::string name, std::function<Status()> probe,
                                   std::chrono::milliseconds period, std::string not_yet)
    : name_(std::move(name)),
      probe_(std::move(probe)),
      period_(period),
      reason_(std::move(not_yet)) {
  thread_ = std::thread([this] { Loop(); });
}

StoreHealthProbe::~StoreHealthProbe() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

http::HealthCheck StoreHealthProbe::Check() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {name_, ok_, reason_};
}

void StoreHealthProbe::Loop() {
  NameThisThread("svc-store-probe");
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    lock.unlock();
    Status st = probe_();
    lock.lock();
    if (st.ok() != ok_) {
      if (st.ok()) {
        spdlog::info("{} check passes again", name_);
      } else {
        spdlog::warn("{} check fails: {}", name_, st.message());
      }
    }
    ok_ = st.ok();
    if (!st.ok()) reason_ = st.message();
    cv_.wait_for(lock, period_, [this] { return stopping_; });
  }
}

}  // namespace svcplane::apiserver::server
