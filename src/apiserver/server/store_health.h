#pragma once

// The store's check in /livez and /readyz (kube-apiserver's "etcd" check, spec §3.11): a probe
// runs on its own thread once per period with its own timeout, and probes read the last answer,
// so that a health request never waits on etcd and a burst of them costs one etcd read.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "apiserver/http/health.h"
#include "base/result.h"

namespace svcplane::apiserver::server {

class StoreHealthProbe {
 public:
  // `probe` is called every `period` (the first time at once) and must return within about
  // one period. Until its first success the check fails with `not_yet`.
  StoreHealthProbe(std::string name, std::function<Status()> probe,
                   std::chrono::milliseconds period, std::string not_yet);
  ~StoreHealthProbe();

  // The latest answer, as a named check.
  http::HealthCheck Check() const;

 private:
  void Loop();

  const std::string name_;
  const std::function<Status()> probe_;
  const std::chrono::milliseconds period_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool ok_ = false;        // guarded by mu_
  std::string reason_;     // guarded by mu_
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace svcplane::apiserver::server
