#pragma once

// The lock a leader election runs on (client-go's resourcelock.Interface), and its only
// implementation we need: a coordination.k8s.io/v1 Lease (resourcelock.LeaseLock).

#include <cstdint>
#include <memory>
#include <string>

#include "api/coordination/v1/lease.h"
#include "base/result.h"
#include "client/record/event_recorder.h"
#include "client/typed/interface.h"

namespace svcplane::client::leaderelection {

// resourcelock.LeaderElectionRecord. Times are wall-clock timestamps written for humans and
// other tools; the elector never compares them with its own clock (see LeaderElector).
struct LeaderElectionRecord {
  std::string holder_identity;  // "" means nobody holds the lock
  int32_t lease_duration_seconds = 0;
  api::meta::MicroTime acquire_time;
  api::meta::MicroTime renew_time;
  int32_t leader_transitions = 0;
  bool operator==(const LeaderElectionRecord&) const = default;
};

// Used from the elector's thread only.
class ResourceLock {
 public:
  virtual ~ResourceLock() = default;
  // The current record and its raw encoding (compared to detect any change).
  virtual Result<std::pair<LeaderElectionRecord, std::string>> Get() = 0;
  virtual Status Create(const LeaderElectionRecord& record) = 0;
  // Replaces the record, conditional on the version last read or written (optimistic lock).
  virtual Status Update(const LeaderElectionRecord& record) = 0;
  // Reports "<identity> <message>" as an Event on the lock object (best effort).
  virtual void RecordEvent(std::string_view message) = 0;
  // "namespace/name".
  virtual std::string Describe() const = 0;
  virtual const std::string& Identity() const = 0;
};

struct LeaseLockConfig {
  std::string namespace_ = "kube-system";
  std::string name;
  std::string identity;
  record::EventRecorder* recorder = nullptr;  // optional; events on the Lease
};

class LeaseLock final : public ResourceLock {
 public:
  LeaseLock(ResourceClient<api::coordination::v1::Lease>& client, LeaseLockConfig config)
      : client_(client), config_(std::move(config)) {}

  Result<std::pair<LeaderElectionRecord, std::string>> Get() override;
  Status Create(const LeaderElectionRecord& record) override;
  Status Update(const LeaderElectionRecord& record) override;
  void RecordEvent(std::string_view message) override;
  std::string Describe() const override;
  const std::string& Identity() const override { return config_.identity; }

 private:
  ResourceClient<api::coordination::v1::Lease>& client_;
  const LeaseLockConfig config_;
  ObjectPtr<api::coordination::v1::Lease> lease_;  // last read or written; null before
};

// resourcelock.LeaseSpecToLeaderElectionRecord and back.
LeaderElectionRecord RecordFromLeaseSpec(const api::coordination::v1::LeaseSpec& spec);
api::coordination::v1::LeaseSpec LeaseSpecFromRecord(const LeaderElectionRecord& record);
// The record as JSON, as client-go marshals it (the raw record for change detection).
std::string EncodeRecord(const LeaderElectionRecord& record);

}  // namespace svcplane::client::leaderelection
