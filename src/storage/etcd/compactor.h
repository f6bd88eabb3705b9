#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string_view>
#include <thread>

#include "base/result.h"
#include "storage/etcd/etcd_store.h"

namespace svcplane::storage::etcd {

// The key whose version is the compaction clock shared by every API server on one etcd,
// kube-apiserver's included (spec §2.1: no prefix).
inline constexpr std::string_view kCompactRevKey = "compact_rev_key";

// kube-apiserver's compaction across servers (storage/etcd3/compact.go, spec §3.9). Each
// round, the servers race for one CAS on kCompactRevKey's version: the winner records the
// current revision and compacts to the one it recorded the round before, the losers adopt
// the winner's clock. So one server compacts per interval, and 1-2 intervals of history
// survive. Thread-compatible: one Compactor per etcd connection, rounds run one at a time.
class Compactor {
 public:
  struct Round {
    bool claimed = false;    // this server won the round
    Revision compacted = 0;  // the revision compacted to, 0 when none
    int64_t clock = 0;       // kCompactRevKey's version after the round
    Revision recorded = 0;   // the revision the next won round compacts to
  };

  // `store` must outlive the Compactor.
  explicit Compactor(EtcdStore& store) : store_(store) {}
  ~Compactor();

  // One round. A failed claim leaves the state as it was; a failed Compact after a won claim
  // keeps the new clock and revision (as upstream), so the next won round compacts further.
  Result<Round> RunOnce();

  // Runs a round every `interval`, the first one interval after the call, until destroyed.
  // Errors are logged. interval 0 disables compaction (--etcd-compaction-interval=0).
  void Start(std::chrono::milliseconds interval);

 private:
  EtcdStore& store_;
  int64_t clock_ = 0;  // the compaction clock seen last (upstream's t)
  Revision rev_ = 0;   // the revision recorded last round (upstream's rev)

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace svcplane::storage::etcd
