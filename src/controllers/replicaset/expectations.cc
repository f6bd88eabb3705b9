#include "controllers/replicaset/expectations.h"

namespace svcplane::controllers::replicaset {

bool Expectations::Satisfied(const std::string& key) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = records_.find(key);
  if (it == records_.end()) return true;
  const Record& r = it->second;
  if (r.adds <= 0 && r.deletes <= 0) return true;
  return clock_.Now() - r.set_at > kExpectationsTimeout;
}

void Expectations::ExpectCreations(const std::string& key, int adds) {
  std::lock_guard<std::mutex> l(mu_);
  records_[key] = Record{adds, 0, clock_.Now(), {}};
}

void Expectations::ExpectDeletions(const std::string& key,
                                   const std::vector<std::string>& pod_keys) {
  std::lock_guard<std::mutex> l(mu_);
  Record r{0, 0, clock_.Now(), {pod_keys.begin(), pod_keys.end()}};
  r.deletes = static_cast<int>(r.pod_keys.size());
  records_[key] = std::move(r);
}

void Expectations::CreationObserved(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = records_.find(key);
  if (it != records_.end()) --it->second.adds;
}

void Expectations::DeletionObserved(const std::string& key, const std::string& pod_key) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = records_.find(key);
  if (it == records_.end()) return;
  if (it->second.pod_keys.erase(pod_key) > 0) --it->second.deletes;
}

void Expectations::Delete(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  records_.erase(key);
}

std::optional<Expectations::Pending> Expectations::PendingForTest(const std::string& key) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = records_.find(key);
  if (it == records_.end()) return std::nullopt;
  return Pending{it->second.adds, it->second.deletes};
}

}  // namespace svcplane::controllers::replicaset
