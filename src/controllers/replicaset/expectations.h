#pragma once

// The ReplicaSet controller's expectations (upstream controller_utils.go: ControllerExpectations
// plus UIDTrackingControllerExpectations): after creating or deleting pods, a ReplicaSet waits
// until its informer has observed those writes before it counts pods again, so a lagging cache
// does not make it create or delete twice. A record older than kExpectationsTimeout counts as
// satisfied (upstream #129795: the controller may then over-create while the informer lags).
//
// Safe from any thread (informer handlers lower, workers raise).

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/clock.h"

namespace svcplane::controllers::replicaset {

inline constexpr std::chrono::minutes kExpectationsTimeout{5};

class Expectations {
 public:
  explicit Expectations(const Clock& clock) : clock_(clock) {}

  // SatisfiedExpectations: no record, or adds <= 0 and deletes <= 0, or the record expired.
  bool Satisfied(const std::string& key) const;
  // Replaces the record with `adds` pending creations (and no deletions).
  void ExpectCreations(const std::string& key, int adds);
  // Replaces the record with the deletion of these pod keys ("ns/name").
  void ExpectDeletions(const std::string& key, const std::vector<std::string>& pod_keys);
  // One pending creation fewer (no-op without a record).
  void CreationObserved(const std::string& key);
  // One pending deletion fewer, if `pod_key` is one this key waits for (each counts once).
  void DeletionObserved(const std::string& key, const std::string& pod_key);
  void Delete(const std::string& key);

  // For tests: pending adds/deletes, or nullopt without a record.
  struct Pending {
    int adds = 0;
    int deletes = 0;
  };
  std::optional<Pending> PendingForTest(const std::string& key) const;

 private:
  struct Record {
    int adds = 0;
    int deletes = 0;
    TimePoint set_at;
    std::set<std::string> pod_keys;  // deletions not yet observed
  };

  const Clock& clock_;
  mutable std::mutex mu_;
  std::map<std::string, Record> records_;  // guarded by mu_
};

}  // namespace svcplane::controllers::replicaset
