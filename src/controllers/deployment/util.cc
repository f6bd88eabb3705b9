#include "controllers/deployment/util.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "controllers/deployment/hash.h"

namespace svcplane::controllers::deployment {
namespace {

constexpr int32_t kMaxInt32 = std::numeric_limits<int32_t>::max();

int64_t Generation(const api::meta::ObjectMeta& m) { return m.rest->generation; }

// strconv.ParseInt(s, 10, 64): optional sign, decimal digits, nothing else.
std::optional<int64_t> ParseInt64(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

int32_t Replicas(const Deployment& d) { return d.spec.replicas.value_or(1); }
int32_t Replicas(const ReplicaSet& rs) { return rs.spec.replicas.value_or(1); }

// --- maxSurge / maxUnavailable -----------------------------------------------------------------

Result<int32_t> ScaledValueFromIntOrPercent(const api::meta::IntOrString& v, int32_t total,
                                            bool round_up) {
  if (!v.is_string) return v.int_value;
  std::string_view s = v.str_value;
  if (!s.ends_with('%')) {
    return Status(Code::kBadRequest,
                  "invalid value for IntOrString: invalid type: string is not a percentage");
  }
  s.remove_suffix(1);
  auto pct = ParseInt64(s);
  if (!pct.has_value() || *pct < std::numeric_limits<int32_t>::min() || *pct > kMaxInt32) {
    return Status(Code::kBadRequest,
                  "invalid value for IntOrString: invalid value \"" + v.str_value + "\"");
  }
  const double scaled = static_cast<double>(*pct) * static_cast<double>(total) / 100.0;
  return static_cast<int32_t>(round_up ? std::ceil(scaled) : std::floor(scaled));
}

Result<Fenceposts> ResolveFenceposts(const std::optional<api::meta::IntOrString>& max_surge,
                                     const std::optional<api::meta::IntOrString>& max_unavailable,
                                     int32_t desired) {
  auto surge = ScaledValueFromIntOrPercent(max_surge.value_or(api::meta::IntOrString::FromInt(0)),
                                           desired, /*round_up=*/true);
  if (!surge.ok()) return surge.status();
  auto unavailable = ScaledValueFromIntOrPercent(
      max_unavailable.value_or(api::meta::IntOrString::FromInt(0)), desired, /*round_up=*/false);
  if (!unavailable.ok()) return unavailable.status();
  Fenceposts f{*surge, *unavailable};
  // Validation forbids both being 0 explicitly, but a percentage may round down to 0; surge
  // might be impossible (quota), so allow one unavailable pod.
  if (f.max_surge == 0 && f.max_unavailable == 0) f.max_unavailable = 1;
  return f;
}

bool IsRollingUpdate(const Deployment& d) {
  return d.spec.strategy.type == api::apps::v1::kRollingUpdateStrategy;
}

namespace {
Fenceposts FencepostsOf(const Deployment& d) {
  const auto& ru = d.spec.strategy.rolling_update;
  auto f = ResolveFenceposts(ru ? ru->max_surge : std::nullopt,
                             ru ? ru->max_unavailable : std::nullopt, Replicas(d));
  return f.ok() ? *f : Fenceposts{};
}
}  // namespace

int32_t MaxSurge(const Deployment& d) {
  if (!IsRollingUpdate(d)) return 0;
  return FencepostsOf(d).max_surge;
}

int32_t MaxUnavailable(const Deployment& d) {
  if (!IsRollingUpdate(d) || Replicas(d) == 0) return 0;
  return std::min(FencepostsOf(d).max_unavailable, Replicas(d));
}

int32_t MinAvailable(const Deployment& d) {
  if (!IsRollingUpdate(d)) return 0;
  return Replicas(d) - MaxUnavailable(d);
}

bool HasProgressDeadline(const Deployment& d) {
  return d.spec.progress_deadline_seconds.has_value() &&
         *d.spec.progress_deadline_seconds != kMaxInt32;
}

bool HasRevisionHistoryLimit(const Deployment& d) {
  return d.spec.revision_history_limit.has_value() && *d.spec.revision_history_limit != kMaxInt32;
}

// --- Revisions and annotations -----------------------------------------------------------------

Result<int64_t> Revision(const api::meta::ObjectMeta& meta) {
  auto it = meta.annotations.find(kRevisionAnnotation);
  if (it == meta.annotations.end()) return int64_t{0};
  auto v = ParseInt64(it->second);
  if (!v.has_value()) {
    return Status(Code::kBadRequest,
                  "strconv.ParseInt: parsing \"" + it->second + "\": invalid syntax");
  }
  return *v;
}

int64_t MaxRevision(const RSList& rss) {
  int64_t max = 0;
  for (const auto& rs : rss) {
    if (rs == nullptr) continue;
    auto v = Revision(rs->metadata);
    if (v.ok() && *v > max) max = *v;  // unparsable revisions are skipped
  }
  return max;
}

bool SkipCopyAnnotation(std::string_view key) {
  return key == kLastAppliedConfigAnnotation || key == kRevisionAnnotation ||
         key == kRevisionHistoryAnnotation || key == kDesiredReplicasAnnotation ||
         key == kMaxReplicasAnnotation || key == kDeprecatedRollbackToAnnotation;
}

bool SetNewReplicaSetAnnotations(const Deployment& d, ReplicaSet& rs,
                                 const std::string& new_revision, bool exists,
                                 size_t history_limit_chars) {
  auto& ann = rs.metadata.annotations;
  bool changed = false;
  for (const auto& [k, v] : d.metadata.annotations) {
    if (SkipCopyAnnotation(k)) continue;
    auto it = ann.find(k);
    if (it != ann.end() && it->second == v) continue;
    ann[k] = v;
    changed = true;
  }
  auto old_it = ann.find(kRevisionAnnotation);
  const bool had_revision = old_it != ann.end();
  const std::string old_revision = had_revision ? old_it->second : "";
  int64_t old_int = 0;
  if (!old_revision.empty()) {
    auto parsed = ParseInt64(old_revision);
    if (!parsed.has_value()) return false;  // upstream leaves such a ReplicaSet alone
    old_int = *parsed;
  }
  auto new_int = ParseInt64(new_revision);
  if (!new_int.has_value()) return false;
  if (old_int < *new_int) {
    ann[kRevisionAnnotation] = new_revision;
    changed = true;
    if (had_revision) {
      // A ReplicaSet that already had a revision becomes new again: a rollback. Keep the
      // revisions it served, dropping the oldest ones past the length limit.
      std::string history = ann[kRevisionHistoryAnnotation];
      if (history.empty()) {
        ann[kRevisionHistoryAnnotation] = old_revision;
      } else {
        std::vector<std::string> parts;
        size_t start = 0;
        while (true) {
          size_t comma = history.find(',', start);
          parts.push_back(history.substr(start, comma - start));
          if (comma == std::string::npos) break;
          start = comma + 1;
        }
        size_t total = history.size() + old_revision.size() + 1;
        size_t first = 0;
        while (total > history_limit_chars && first < parts.size()) {
          total -= parts[first].size() + 1;
          ++first;
        }
        if (total <= history_limit_chars) {
          std::string joined;
          for (size_t i = first; i < parts.size(); ++i) joined += parts[i] + ",";
          joined += old_revision;
          ann[kRevisionHistoryAnnotation] = joined;
        }
      }
    }
  }
  if (!exists && SetReplicasAnnotations(rs, Replicas(d), Replicas(d) + MaxSurge(d))) {
    changed = true;
  }
  return changed;
}

bool SetReplicasAnnotations(ReplicaSet& rs, int32_t desired, int32_t max) {
  bool updated = false;
  auto& ann = rs.metadata.annotations;
  const std::string desired_s = std::to_string(desired);
  const std::string max_s = std::to_string(max);
  if (ann[kDesiredReplicasAnnotation] != desired_s) {
    ann[kDesiredReplicasAnnotation] = desired_s;
    updated = true;
  }
  if (ann[kMaxReplicasAnnotation] != max_s) {
    ann[kMaxReplicasAnnotation] = max_s;
    updated = true;
  }
  return updated;
}

bool ReplicasAnnotationsNeedUpdate(const ReplicaSet& rs, int32_t desired, int32_t max) {
  const auto& ann = rs.metadata.annotations;
  auto d = ann.find(kDesiredReplicasAnnotation);
  auto m = ann.find(kMaxReplicasAnnotation);
  return d == ann.end() || d->second != std::to_string(desired) || m == ann.end() ||
         m->second != std::to_string(max);
}

std::optional<int32_t> IntAnnotation(const ReplicaSet& rs, std::string_view key) {
  auto it = rs.metadata.annotations.find(key);
  if (it == rs.metadata.annotations.end()) return std::nullopt;
  auto v = ParseInt64(it->second);
  if (!v.has_value() || *v < std::numeric_limits<int32_t>::min() || *v > kMaxInt32) {
    return std::nullopt;
  }
  return static_cast<int32_t>(*v);
}

bool SetDeploymentRevision(Deployment& d, const std::string& revision) {
  auto it = d.metadata.annotations.find(kRevisionAnnotation);
  if (it != d.metadata.annotations.end() && it->second == revision) return false;
  d.metadata.annotations[kRevisionAnnotation] = revision;
  return true;
}

// --- New and old ReplicaSets -------------------------------------------------------------------

bool EqualIgnoreHash(const api::core::v1::PodTemplateSpec& a,
                     const api::core::v1::PodTemplateSpec& b) {
  return CanonicalTemplate(a) == CanonicalTemplate(b);
}

bool CreatedBefore(const ReplicaSet& a, const ReplicaSet& b) {
  if (a.metadata.creation_timestamp == b.metadata.creation_timestamp) {
    return a.metadata.name < b.metadata.name;
  }
  return a.metadata.creation_timestamp < b.metadata.creation_timestamp;
}

void SortByCreation(RSList& rss) {
  std::stable_sort(rss.begin(), rss.end(),
                   [](const RSPtr& a, const RSPtr& b) { return CreatedBefore(*a, *b); });
}

void SortBySizeNewer(RSList& rss) {
  std::stable_sort(rss.begin(), rss.end(), [](const RSPtr& a, const RSPtr& b) {
    if (Replicas(*a) == Replicas(*b)) return CreatedBefore(*b, *a);
    return Replicas(*a) > Replicas(*b);
  });
}

void SortBySizeOlder(RSList& rss) {
  std::stable_sort(rss.begin(), rss.end(), [](const RSPtr& a, const RSPtr& b) {
    if (Replicas(*a) == Replicas(*b)) return CreatedBefore(*a, *b);
    return Replicas(*a) > Replicas(*b);
  });
}

void SortByRevision(RSList& rss) {
  std::stable_sort(rss.begin(), rss.end(), [](const RSPtr& a, const RSPtr& b) {
    auto ra = Revision(a->metadata);
    auto rb = Revision(b->metadata);
    if (!ra.ok() || !rb.ok() || *ra == *rb) return CreatedBefore(*a, *b);
    return *ra < *rb;
  });
}

RSPtr FindNewReplicaSet(const Deployment& d, const RSList& rss) {
  RSList sorted = rss;
  SortByCreation(sorted);
  // Several template-equal ReplicaSets can exist (e.g. after an upgrade changed the hash,
  // upstream #40415): the oldest is the new one.
  for (const auto& rs : sorted) {
    if (EqualIgnoreHash(rs->spec.template_, d.spec.template_)) return rs;
  }
  return nullptr;
}

RSList FindOldReplicaSets(const RSList& rss, const RSPtr& new_rs) {
  RSList out;
  for (const auto& rs : rss) {
    if (new_rs != nullptr && rs->metadata.uid == new_rs->metadata.uid) continue;
    out.push_back(rs);
  }
  return out;
}

RSList FilterActive(const RSList& rss) {
  RSList out;
  for (const auto& rs : rss) {
    if (rs != nullptr && Replicas(*rs) > 0) out.push_back(rs);
  }
  return out;
}

RSPtr FindActiveOrLatest(const RSPtr& new_rs, const RSList& old_rss) {
  if (new_rs == nullptr && old_rss.empty()) return nullptr;
  RSList newest_first = old_rss;
  SortByCreation(newest_first);
  std::reverse(newest_first.begin(), newest_first.end());
  RSList all = newest_first;
  all.push_back(new_rs);
  RSList active = FilterActive(all);
  if (active.empty()) return new_rs != nullptr ? new_rs : newest_first.front();
  if (active.size() == 1) return active.front();
  return nullptr;
}

int32_t SumSpecReplicas(const RSList& rss) {
  int32_t n = 0;
  for (const auto& rs : rss) n += rs != nullptr ? Replicas(*rs) : 0;
  return n;
}
int32_t SumStatusReplicas(const RSList& rss) {
  int32_t n = 0;
  for (const auto& rs : rss) n += rs != nullptr ? rs->status.replicas : 0;
  return n;
}
int32_t SumReadyReplicas(const RSList& rss) {
  int32_t n = 0;
  for (const auto& rs : rss) n += rs != nullptr ? rs->status.ready_replicas : 0;
  return n;
}
int32_t SumAvailableReplicas(const RSList& rss) {
  int32_t n = 0;
  for (const auto& rs : rss) n += rs != nullptr ? rs->status.available_replicas : 0;
  return n;
}

// --- Scaling arithmetic ------------------------------------------------------------------------

Result<int32_t> NewRSNewReplicas(const Deployment& d, const RSList& all, const ReplicaSet& new_rs) {
  const std::string& type = d.spec.strategy.type;
  if (type == api::apps::v1::kRollingUpdateStrategy) {
    const auto& ru = d.spec.strategy.rolling_update;
    auto surge = ScaledValueFromIntOrPercent(
        ru && ru->max_surge ? *ru->max_surge : api::meta::IntOrString::FromInt(0), Replicas(d),
        /*round_up=*/true);
    if (!surge.ok()) return surge.status();
    const int32_t current = SumSpecReplicas(all);
    const int32_t max_total = Replicas(d) + *surge;
    if (current >= max_total) return Replicas(new_rs);  // cannot scale up
    const int32_t up = std::min(max_total - current, Replicas(d) - Replicas(new_rs));
    return Replicas(new_rs) + up;
  }
  if (type == api::apps::v1::kRecreateStrategy) return Replicas(d);
  return Status(Code::kBadRequest, "deployment type " + type + " isn't supported");
}

int32_t MaxScaledDown(const Deployment& d, const RSList& all, const ReplicaSet& new_rs) {
  const int32_t all_pods = SumSpecReplicas(all);
  const int32_t min_available = Replicas(d) - MaxUnavailable(d);
  const int32_t new_unavailable = Replicas(new_rs) - new_rs.status.available_replicas;
  return all_pods - min_available - new_unavailable;
}

bool IsSaturated(const Deployment& d, const RSPtr& rs) {
  if (rs == nullptr) return false;
  auto desired = IntAnnotation(*rs, kDesiredReplicasAnnotation);
  if (!desired.has_value()) return false;
  return Replicas(*rs) == Replicas(d) && *desired == Replicas(d) &&
         rs->status.available_replicas == Replicas(d);
}

namespace {
// getReplicaSetFraction.
int32_t ReplicaSetFraction(const ReplicaSet& rs, const Deployment& d) {
  if (Replicas(d) == 0) return -Replicas(rs);  // scaling to zero: all of it goes
  const int32_t deployment_replicas = Replicas(d) + MaxSurge(d);
  // Without the annotation fall back to the current size: not exact if other ReplicaSets
  // were annotated differently, but the min/max in GetProportion keeps us in bounds.
  const int32_t annotated = IntAnnotation(rs, kMaxReplicasAnnotation).value_or(d.status.replicas);
  if (annotated == 0) return 0;  // Go would divide by zero into +Inf and saturate; never grow
  const double size = static_cast<double>(Replicas(rs)) * deployment_replicas / annotated;
  // integer.RoundToInt32: round half away from zero.
  return static_cast<int32_t>(std::round(size)) - Replicas(rs);
}
}  // namespace

int32_t GetProportion(const ReplicaSet& rs, const Deployment& d, int32_t to_add, int32_t added) {
  if (Replicas(rs) == 0 || to_add == 0 || to_add == added) return 0;
  const int32_t fraction = ReplicaSetFraction(rs, d);
  const int32_t allowed = to_add - added;
  // Never past what is left to add (scale-up) or to remove (scale-down).
  return to_add > 0 ? std::min(fraction, allowed) : std::max(fraction, allowed);
}

ProportionalPlan PlanProportionalScale(const Deployment& d, RSList active) {
  ProportionalPlan plan;
  const int32_t current = SumSpecReplicas(active);
  const int32_t allowed = Replicas(d) > 0 ? Replicas(d) + MaxSurge(d) : 0;
  const int32_t to_add = allowed - current;
  if (to_add > 0) {
    SortBySizeNewer(active);
    plan.operation = "up";
  } else if (to_add < 0) {
    SortBySizeOlder(active);
    plan.operation = "down";
  }
  int32_t added = 0;
  for (const auto& rs : active) {
    int32_t size = Replicas(*rs);
    if (to_add != 0) {
      const int32_t proportion = GetProportion(*rs, d, to_add, added);
      size += proportion;
      added += proportion;
    }
    plan.sizes.push_back(size);
  }
  // What rounding left over goes to the largest (first) ReplicaSet.
  if (!active.empty() && to_add != 0) {
    plan.sizes[0] = std::max(0, plan.sizes[0] + to_add - added);
  }
  plan.order = std::move(active);
  return plan;
}

// --- Conditions and status ---------------------------------------------------------------------

api::meta::Time ToMetaTime(WallTime t) {
  return api::meta::Time::FromUnix(
      std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count());
}

DeploymentCondition NewCondition(std::string type, std::string status, std::string reason,
                                 std::string message, api::meta::Time now) {
  DeploymentCondition c;
  c.type = std::move(type);
  c.status = std::move(status);
  c.last_update_time = now;
  c.last_transition_time = now;
  c.reason = std::move(reason);
  c.message = std::move(message);
  return c;
}

const DeploymentCondition* GetCondition(const DeploymentStatus& s, std::string_view type) {
  for (const auto& c : s.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

void SetCondition(DeploymentStatus& s, DeploymentCondition c) {
  const DeploymentCondition* cur = GetCondition(s, c.type);
  if (cur != nullptr && cur->status == c.status && cur->reason == c.reason) return;
  if (cur != nullptr && cur->status == c.status) c.last_transition_time = cur->last_transition_time;
  RemoveCondition(s, c.type);
  s.conditions.push_back(std::move(c));
}

void RemoveCondition(DeploymentStatus& s, std::string_view type) {
  std::erase_if(s.conditions, [&](const DeploymentCondition& c) { return c.type == type; });
}

DeploymentStatus CalculateStatus(const RSList& all, const RSPtr& new_rs, const Deployment& d,
                                 api::meta::Time now) {
  const int32_t available = SumAvailableReplicas(all);
  DeploymentStatus s;
  s.observed_generation = Generation(d.metadata);
  s.replicas = SumStatusReplicas(all);
  s.updated_replicas = new_rs != nullptr ? new_rs->status.replicas : 0;
  s.ready_replicas = SumReadyReplicas(all);
  s.available_replicas = available;
  s.unavailable_replicas = std::max(0, SumSpecReplicas(all) - available);
  s.collision_count = d.status.collision_count;
  s.terminating_replicas = d.status.terminating_replicas;
  s.conditions = d.status.conditions;
  if (available >= Replicas(d) - MaxUnavailable(d)) {
    SetCondition(s, NewCondition(kAvailableCondition, "True", kMinimumReplicasAvailable,
                                 "Deployment has minimum availability.", now));
  } else {
    SetCondition(s, NewCondition(kAvailableCondition, "False", kMinimumReplicasUnavailable,
                                 "Deployment does not have minimum availability.", now));
  }
  return s;
}

bool DeploymentComplete(const Deployment& d, const DeploymentStatus& s) {
  return s.updated_replicas == Replicas(d) && s.replicas == Replicas(d) &&
         s.available_replicas == Replicas(d) && s.observed_generation >= Generation(d.metadata);
}

bool DeploymentProgressing(const Deployment& d, const DeploymentStatus& s) {
  const auto& old = d.status;
  const int32_t old_old_replicas = old.replicas - old.updated_replicas;
  const int32_t new_old_replicas = s.replicas - s.updated_replicas;
  return s.updated_replicas > old.updated_replicas || new_old_replicas < old_old_replicas ||
         s.ready_replicas > old.ready_replicas || s.available_replicas > old.available_replicas;
}

bool DeploymentTimedOut(const Deployment& d, const DeploymentStatus& s, WallTime now) {
  if (!HasProgressDeadline(d)) return false;
  const DeploymentCondition* c = GetCondition(s, kProgressingCondition);
  if (c == nullptr) return false;
  // A finished rollout is never judged against the deadline (its condition can be older than
  // the deadline while the cache catches up with a new ReplicaSet).
  if (c->reason == kNewRSAvailableReason) return false;
  if (c->reason == kTimedOutReason) return true;
  const int64_t deadline = c->last_update_time.unix_seconds + *d.spec.progress_deadline_seconds;
  // from.Add(delta).Before(now), with `from` in whole seconds.
  return std::chrono::system_clock::from_time_t(static_cast<time_t>(deadline)) < now;
}

DeploymentStatus RolloutStatus(const RSList& all, const RSPtr& new_rs, const Deployment& d,
                               WallTime now) {
  const api::meta::Time t = ToMetaTime(now);
  DeploymentStatus s = CalculateStatus(all, new_rs, d, t);
  if (!HasProgressDeadline(d)) RemoveCondition(s, kProgressingCondition);
  const DeploymentCondition* cur = GetCondition(d.status, kProgressingCondition);
  const bool complete_already =
      s.replicas == s.updated_replicas && cur != nullptr && cur->reason == kNewRSAvailableReason;
  if (HasProgressDeadline(d) && !complete_already) {
    const std::string subject = new_rs != nullptr ? "ReplicaSet \"" + new_rs->metadata.name + "\""
                                                  : "Deployment \"" + d.metadata.name + "\"";
    if (DeploymentComplete(d, s)) {
      SetCondition(s, NewCondition(kProgressingCondition, "True", kNewRSAvailableReason,
                                   subject + " has successfully progressed.", t));
    } else if (DeploymentProgressing(d, s)) {
      // Progress refreshes lastUpdateTime even with the same reason (this is what moves the
      // deadline), keeping lastTransitionTime while the condition stays True.
      auto c = NewCondition(kProgressingCondition, "True", kReplicaSetUpdatedReason,
                            subject + " is progressing.", t);
      if (cur != nullptr) {
        if (cur->status == "True") c.last_transition_time = cur->last_transition_time;
        RemoveCondition(s, kProgressingCondition);
      }
      SetCondition(s, std::move(c));
    } else if (DeploymentTimedOut(d, s, now)) {
      SetCondition(s, NewCondition(kProgressingCondition, "False", kTimedOutReason,
                                   subject + " has timed out progressing.", t));
    }
  }
  // ReplicaFailure: the new ReplicaSet's, else any ReplicaSet's (the first found).
  std::optional<DeploymentCondition> failure;
  auto find_failure = [&](const ReplicaSet& rs) {
    for (const auto& c : rs.status.conditions) {
      if (c.type != kReplicaFailureCondition) continue;
      DeploymentCondition dc;
      dc.type = c.type;
      dc.status = c.status;
      dc.last_transition_time = c.last_transition_time;
      dc.last_update_time = c.last_transition_time;
      dc.reason = c.reason;
      dc.message = c.message;
      failure = std::move(dc);
      return;
    }
  };
  if (new_rs != nullptr) find_failure(*new_rs);
  for (size_t i = 0; !failure.has_value() && i < all.size(); ++i) {
    if (all[i] != nullptr) find_failure(*all[i]);
  }
  if (failure.has_value()) {
    SetCondition(s, std::move(*failure));
  } else {
    RemoveCondition(s, kReplicaFailureCondition);
  }
  return s;
}

std::optional<Duration> StuckRequeueDelay(const Deployment& d, const DeploymentStatus& new_status,
                                          WallTime now) {
  const DeploymentCondition* cur = GetCondition(d.status, kProgressingCondition);
  if (!HasProgressDeadline(d) || cur == nullptr) return std::nullopt;
  if (DeploymentComplete(d, new_status) || cur->reason == kTimedOutReason) return std::nullopt;
  const auto due = std::chrono::system_clock::from_time_t(
      static_cast<time_t>(cur->last_update_time.unix_seconds + *d.spec.progress_deadline_seconds));
  const Duration after = std::chrono::duration_cast<Duration>(due - now);
  if (after < std::chrono::seconds(1)) return Duration::zero();
  // One more second against rounding in AddAfter (upstream #39785).
  return after + std::chrono::seconds(1);
}

// --- History -----------------------------------------------------------------------------------

RSList HistoryToDelete(const Deployment& d, const RSList& old_rss) {
  RSList out;
  if (!HasRevisionHistoryLimit(d)) return out;
  RSList cleanable;
  for (const auto& rs : old_rss) {
    if (rs != nullptr && !rs->metadata.deletion_timestamp.has_value()) cleanable.push_back(rs);
  }
  const int64_t diff =
      static_cast<int64_t>(cleanable.size()) - static_cast<int64_t>(*d.spec.revision_history_limit);
  if (diff <= 0) return out;
  SortByRevision(cleanable);
  for (int64_t i = 0; i < diff; ++i) {
    const auto& rs = cleanable[static_cast<size_t>(i)];
    // Never delete a ReplicaSet that still has (or may still get) pods.
    if (rs->status.replicas != 0 || Replicas(*rs) != 0 ||
        Generation(rs->metadata) > rs->status.observed_generation) {
      continue;
    }
    out.push_back(rs);
  }
  return out;
}

}  // namespace svcplane::controllers::deployment
