#include "storage/etcd/compactor.h"

#include <spdlog/spdlog.h>

#include <string>

#include "base/thread_name.h"
#include "storage/etcd/internal/etcd_client.h"

namespace svcplane::storage::etcd {

namespace pb = internal::pb;

Compactor::~Compactor() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Result<Compactor::Round> Compactor::RunOnce() {
  internal::EtcdClient& client = store_.client();
  const std::string key(kCompactRevKey);
  pb::TxnRequest txn;
  pb::Compare* c = txn.add_compare();
  c->set_result(pb::Compare::EQUAL);
  c->set_target(pb::Compare::VERSION);
  c->set_key(key);
  c->set_version(clock_);
  auto* put = txn.add_success()->mutable_request_put();
  put->set_key(key);
  put->set_value(std::to_string(rev_));
  txn.add_failure()->mutable_request_range()->set_key(key);
  auto response = client.Txn(txn, client.WriteDeadline());
  if (!response.ok()) return response.status();

  const Revision current = response->header().revision();
  Round round;
  if (!response->succeeded()) {
    // Another server claimed this round. Its clock is ours now; what we record next round is
    // what etcd holds now. (A deleted key has version 0, which the next CAS then matches.)
    const auto& range = response->responses(0).response_range();
    clock_ = range.kvs_size() > 0 ? range.kvs(0).version() : 0;
    rev_ = current;
    round.clock = clock_;
    round.recorded = rev_;
    return round;
  }
  round.claimed = true;
  clock_ += 1;
  const Revision target = rev_;
  rev_ = current;
  round.clock = clock_;
  round.recorded = rev_;
  if (target == 0) return round;  // the first round only records (upstream: not on bootstrap)
  Status compacted = store_.Compact(target);
  if (!compacted.ok()) return compacted;
  round.compacted = target;
  return round;
}

void Compactor::Start(std::chrono::milliseconds interval) {
  if (interval.count() <= 0 || thread_.joinable()) return;
  thread_ = std::thread([this, interval] {
    NameThisThread("svc-etcd-compact");
    std::unique_lock lock(mu_);
    while (!cv_.wait_for(lock, interval, [&] { return stopping_; })) {
      lock.unlock();
      auto round = RunOnce();
      if (!round.ok()) {
        spdlog::warn("etcd compaction round failed: {}", round.status().ToString());
      } else if (round->compacted != 0) {
        spdlog::info("etcd: compacted to revision {} (compaction clock {})", round->compacted,
                     round->clock);
      }
      lock.lock();
    }
  });
}

}  // namespace svcplane::storage::etcd
