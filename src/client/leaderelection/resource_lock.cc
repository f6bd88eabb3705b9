#include "client/leaderelection/resource_lock.h"

#include <fmt/format.h>

namespace svcplane::client::leaderelection {

using api::coordination::v1::Lease;
using api::coordination::v1::LeaseSpec;

LeaderElectionRecord RecordFromLeaseSpec(const LeaseSpec& spec) {
  LeaderElectionRecord r;
  r.holder_identity = spec.holder_identity.value_or("");
  r.lease_duration_seconds = spec.lease_duration_seconds.value_or(0);
  r.acquire_time = spec.acquire_time.value_or(api::meta::MicroTime{});
  r.renew_time = spec.renew_time.value_or(api::meta::MicroTime{});
  r.leader_transitions = spec.lease_transitions.value_or(0);
  return r;
}

LeaseSpec LeaseSpecFromRecord(const LeaderElectionRecord& r) {
  LeaseSpec spec;
  spec.holder_identity = r.holder_identity;
  spec.lease_duration_seconds = r.lease_duration_seconds;
  spec.acquire_time = r.acquire_time;
  spec.renew_time = r.renew_time;
  spec.lease_transitions = r.leader_transitions;
  return spec;
}

std::string EncodeRecord(const LeaderElectionRecord& r) {
  auto time = [](const api::meta::MicroTime& t) {
    return t.IsZero() ? std::string("null")
                      : "\"" + api::meta::FormatRFC3339Micro(t.unix_micros) + "\"";
  };
  return fmt::format(
      "{{\"holderIdentity\":\"{}\",\"leaseDurationSeconds\":{},\"acquireTime\":{},"
      "\"renewTime\":{},\"leaderTransitions\":{}}}",
      r.holder_identity, r.lease_duration_seconds, time(r.acquire_time), time(r.renew_time),
      r.leader_transitions);
}

Result<std::pair<LeaderElectionRecord, std::string>> LeaseLock::Get() {
  auto lease = client_.Get(config_.namespace_, config_.name);
  if (!lease.ok()) return lease.status();
  lease_ = *lease;
  LeaderElectionRecord record = RecordFromLeaseSpec(lease_->spec);
  std::string raw = EncodeRecord(record);
  return std::make_pair(std::move(record), std::move(raw));
}

Status LeaseLock::Create(const LeaderElectionRecord& record) {
  Lease lease;
  lease.metadata.namespace_ = config_.namespace_;
  lease.metadata.name = config_.name;
  lease.spec = LeaseSpecFromRecord(record);
  auto created = client_.Create(lease);
  if (!created.ok()) return created.status();
  lease_ = *created;
  return Status::Ok();
}

Status LeaseLock::Update(const LeaderElectionRecord& record) {
  if (lease_ == nullptr) {
    return InternalError("lease not initialized, call get or create first");
  }
  Lease lease = *lease_;  // keeps metadata.resourceVersion: the update is conditional on it
  lease.spec = LeaseSpecFromRecord(record);
  auto updated = client_.Update(lease);
  if (!updated.ok()) return updated.status();
  lease_ = *updated;
  return Status::Ok();
}

void LeaseLock::RecordEvent(std::string_view message) {
  if (config_.recorder == nullptr) return;
  api::meta::ObjectReference ref;
  ref.kind = "Lease";
  ref.api_version = "coordination.k8s.io/v1";
  ref.namespace_ = config_.namespace_;
  ref.name = config_.name;
  if (lease_ != nullptr) {
    ref.uid = lease_->metadata.uid;
    ref.resource_version = lease_->metadata.resource_version;
  }
  config_.recorder->Event(ref, record::kEventTypeNormal, "LeaderElection",
                          fmt::format("{} {}", config_.identity, message));
}

std::string LeaseLock::Describe() const { return config_.namespace_ + "/" + config_.name; }

}  // namespace svcplane::client::leaderelection
