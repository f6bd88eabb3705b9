#include "controllers/replicaset/replica_set_utils.h"

#include <algorithm>
#include <thread>

#include "api/meta/controller_ref.h"
#include "base/json_string.h"

namespace svcplane::controllers::replicaset {

namespace {

// ValidatePodName(prefix, true): a DNS-1123 subdomain once the trailing dash is masked. The
// ReplicaSet name is already a valid subdomain, so only the length can fail.
constexpr size_t kMaxNameLength = 253;

}  // namespace

std::vector<Status> RunInParallel(int size, const std::function<Status()>& fn) {
  std::vector<Status> results(static_cast<size_t>(size));
  if (size == 1) {
    results[0] = fn();
    return results;
  }
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(size));
  for (int i = 0; i < size; ++i) {
    threads.emplace_back([&results, &fn, i] { results[static_cast<size_t>(i)] = fn(); });
  }
  for (auto& t : threads) t.join();
  return results;
}

SlowStartResult SlowStartBatch(int count, int initial_batch, const std::function<Status()>& fn,
                               const BatchRunner& run_batch) {
  SlowStartResult result;
  int remaining = count;
  for (int batch = std::min(remaining, initial_batch); batch > 0;
       batch = std::min(2 * batch, remaining)) {
    std::vector<Status> statuses = run_batch(batch, fn);
    Status first_error;
    for (const auto& s : statuses) {
      if (s.ok()) {
        ++result.successes;
      } else if (first_error.ok()) {
        first_error = s;
      }
    }
    if (!first_error.ok()) {
      result.error = first_error;
      return result;
    }
    remaining -= batch;
  }
  return result;
}

std::vector<int> SlowStartBatchSizes(int count, int initial_batch) {
  std::vector<int> sizes;
  int remaining = count;
  for (int batch = std::min(remaining, initial_batch); batch > 0;
       batch = std::min(2 * batch, remaining)) {
    sizes.push_back(batch);
    remaining -= batch;
  }
  return sizes;
}

api::meta::OwnerReference ControllerRef(const ReplicaSet& rs) {
  return api::meta::NewControllerRef(rs.metadata, "apps/v1", "ReplicaSet");
}

Result<Pod> PodFromTemplate(const ReplicaSet& rs) {
  const auto& tmpl = rs.spec.template_;
  if (tmpl.metadata.labels.empty()) return InternalError("unable to create pods, no labels");
  Pod pod;
  pod.metadata.namespace_ = rs.metadata.namespace_;
  pod.metadata.labels = tmpl.metadata.labels;
  pod.metadata.annotations = tmpl.metadata.annotations;
  pod.metadata.finalizers = tmpl.metadata.finalizers;
  std::string prefix = rs.metadata.name + "-";
  if (prefix.size() > kMaxNameLength) prefix = rs.metadata.name;
  pod.metadata.rest->generate_name = std::move(prefix);
  pod.metadata.owner_references.push_back(ControllerRef(rs));
  pod.spec = tmpl.spec;
  return pod;
}

std::string AdoptPatch(const ReplicaSet& rs, const std::string& pod_uid) {
  // objectForAddOwnerRefPatch: metadata {ownerReferences, uid}; OwnerReference fields in
  // their Go order.
  std::string out =
      R"({"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":)";
  AppendJsonString(out, rs.metadata.name);
  out += R"(,"uid":)";
  AppendJsonString(out, rs.metadata.uid);
  out += R"(,"controller":true,"blockOwnerDeletion":true}],"uid":)";
  AppendJsonString(out, pod_uid);
  out += "}}";
  return out;
}

std::string ReleasePatch(const std::string& rs_uid, const std::string& pod_uid) {
  // objectForDeleteOwnerRefStrategicMergePatch: metadata {uid, ownerReferences}; each
  // reference a map[string]string, whose keys encoding/json sorts ("$patch" < "uid").
  std::string out = R"({"metadata":{"uid":)";
  AppendJsonString(out, pod_uid);
  out += R"(,"ownerReferences":[{"$patch":"delete","uid":)";
  AppendJsonString(out, rs_uid);
  out += "}]}}";
  return out;
}

ClaimAction DecideClaim(const ReplicaSet& rs, const api::selectors::LabelSelector& selector,
                        const Pod& pod) {
  const bool rs_deleting = rs.metadata.deletion_timestamp.has_value();
  const bool matches = selector.Matches(pod.metadata.labels);
  if (const auto* ref = ControllerOf(pod.metadata); ref != nullptr) {
    if (ref->uid != rs.metadata.uid) return ClaimAction::kIgnore;
    if (matches) return ClaimAction::kKeep;
    return rs_deleting ? ClaimAction::kSkip : ClaimAction::kRelease;
  }
  if (rs_deleting || !matches) return ClaimAction::kIgnore;
  if (pod.metadata.deletion_timestamp.has_value()) return ClaimAction::kIgnore;
  if (!rs.metadata.namespace_.empty() && rs.metadata.namespace_ != pod.metadata.namespace_) {
    return ClaimAction::kIgnore;
  }
  return ClaimAction::kAdopt;
}

std::optional<Duration> NextAvailabilityCheck(const ReplicaSet& rs,
                                              const std::vector<PodPtr>& active_pods,
                                              WallTime now) {
  if (rs.spec.min_ready_seconds <= 0) return std::nullopt;
  std::optional<Duration> next;
  for (const auto& p : active_pods) {
    if (!IsPodReady(*p) || IsPodAvailable(*p, rs.spec.min_ready_seconds, now)) continue;
    const auto& t = ReadyCondition(*p)->last_transition_time;
    if (t.IsZero()) continue;
    WallTime at = WallTime{} + std::chrono::seconds(t.unix_seconds + rs.spec.min_ready_seconds) +
                  std::chrono::seconds(1);
    Duration wait = std::max<Duration>(Duration::zero(), at - now);
    if (!next || wait < *next) next = wait;
  }
  return next;
}

int32_t DesiredReplicas(const ReplicaSet& rs) { return rs.spec.replicas.value_or(1); }

int64_t Generation(const ReplicaSet& rs) { return rs.metadata.rest->generation; }

ReplicaSetStatus CalculateStatus(const ReplicaSet& rs, const std::vector<PodPtr>& active_pods,
                                 const Status& manage_error, WallTime now) {
  ReplicaSetStatus status = rs.status;
  // labels.Set(template labels).AsSelectorPreValidated(): every template label present.
  auto fully_labeled = [&](const Pod& pod) {
    for (const auto& [k, v] : rs.spec.template_.metadata.labels) {
      auto it = pod.metadata.labels.find(k);
      if (it == pod.metadata.labels.end() || it->second != v) return false;
    }
    return true;
  };
  int32_t fully = 0, ready = 0, available = 0;
  for (const auto& p : active_pods) {
    if (fully_labeled(*p)) ++fully;
    if (IsPodReady(*p)) {
      ++ready;
      if (IsPodAvailable(*p, rs.spec.min_ready_seconds, now)) ++available;
    }
  }
  auto failure = std::find_if(status.conditions.begin(), status.conditions.end(),
                              [](const auto& c) { return c.type == kReplicaFailure; });
  if (!manage_error.ok() && failure == status.conditions.end()) {
    const int64_t diff = static_cast<int64_t>(active_pods.size()) - DesiredReplicas(rs);
    api::apps::v1::ReplicaSetCondition cond;
    cond.type = kReplicaFailure;
    cond.status = "True";
    cond.reason = diff < 0 ? "FailedCreate" : diff > 0 ? "FailedDelete" : "";
    cond.message = manage_error.message();
    cond.last_transition_time = api::meta::Time::FromUnix(
        std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count());
    status.conditions.push_back(std::move(cond));
  } else if (manage_error.ok() && failure != status.conditions.end()) {
    status.conditions.erase(std::remove_if(status.conditions.begin(), status.conditions.end(),
                                           [](const auto& c) { return c.type == kReplicaFailure; }),
                            status.conditions.end());
  }
  status.replicas = static_cast<int32_t>(active_pods.size());
  status.fully_labeled_replicas = fully;
  status.ready_replicas = ready;
  status.available_replicas = available;
  return status;
}

bool StatusUpToDate(const ReplicaSet& rs, const ReplicaSetStatus& status) {
  const auto& old = rs.status;
  return old.replicas == status.replicas &&
         old.fully_labeled_replicas == status.fully_labeled_replicas &&
         old.ready_replicas == status.ready_replicas &&
         old.available_replicas == status.available_replicas &&
         old.terminating_replicas == status.terminating_replicas &&
         Generation(rs) == old.observed_generation && old.conditions == status.conditions;
}

}  // namespace svcplane::controllers::replicaset
