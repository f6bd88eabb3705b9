#include "controllers/replicaset/pods.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>

namespace svcplane::controllers::replicaset {

namespace {

int PhaseOrdinal(const std::string& phase) {
  if (phase == "Unknown") return 1;
  if (phase == "Running") return 2;
  return 0;  // Pending, and anything else (Go's map lookup default)
}

// A containerStatus is kept as raw JSON; only its top-level restartCount matters here. The
// nested state objects carry no "restartCount" key, so the first occurrence is the field.
int32_t RestartCountOf(std::string_view json) {
  static constexpr std::string_view kKey = "\"restartCount\"";
  size_t at = json.find(kKey);
  if (at == std::string_view::npos) return 0;
  at += kKey.size();
  while (at < json.size() && (json[at] == ' ' || json[at] == '\t' || json[at] == '\n' ||
                              json[at] == '\r' || json[at] == ':')) {
    ++at;
  }
  int32_t value = 0;
  auto [ptr, ec] = std::from_chars(json.data() + at, json.data() + json.size(), value);
  (void)ptr;
  return ec == std::errc() ? value : 0;
}

int64_t Nanos(const api::meta::Time& t) { return t.unix_seconds * 1'000'000'000LL; }

int64_t NowNanos(WallTime now) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
}

// afterOrZero: a zero time sorts first; otherwise the later time first.
bool AfterOrZero(const api::meta::Time& a, const api::meta::Time& b) {
  if (a.IsZero() || b.IsZero()) return a.IsZero();
  return a.unix_seconds > b.unix_seconds;
}

// logarithmicRankDiff: floor(log2(now - t)) of each, -1 when not in the past.
int64_t LogRankDiff(const api::meta::Time& a, const api::meta::Time& b, WallTime now) {
  auto rank = [&](const api::meta::Time& t) -> int64_t {
    int64_t d = NowNanos(now) - Nanos(t);
    return d > 0 ? static_cast<int64_t>(std::log2(static_cast<double>(d))) : -1;
  };
  return rank(a) - rank(b);
}

// The time comparison of rules 6 and 8 for different times.
bool CompareTimes(const api::meta::Time& a, const api::meta::Time& b, const Pod& pa, const Pod& pb,
                  WallTime now) {
  if (now == WallTime{} || a.IsZero() || b.IsZero()) return AfterOrZero(a, b);
  int64_t diff = LogRankDiff(a, b, now);
  if (diff == 0) return pa.metadata.uid < pb.metadata.uid;
  return diff < 0;
}

api::meta::Time ReadyTime(const Pod& pod) {
  if (const auto* c = ReadyCondition(pod); c != nullptr && c->status == "True") {
    return c->last_transition_time;
  }
  return {};
}

}  // namespace

bool IsPodActive(const Pod& pod) {
  return pod.status.phase != "Succeeded" && pod.status.phase != "Failed" &&
         !pod.metadata.deletion_timestamp.has_value();
}

const api::core::v1::PodCondition* ReadyCondition(const Pod& pod) {
  for (const auto& c : pod.status.conditions) {
    if (c.type == "Ready") return &c;
  }
  return nullptr;
}

bool IsPodReady(const Pod& pod) {
  const auto* c = ReadyCondition(pod);
  return c != nullptr && c->status == "True";
}

bool IsPodAvailable(const Pod& pod, int32_t min_ready_seconds, WallTime now) {
  if (!IsPodReady(pod)) return false;
  if (min_ready_seconds == 0) return true;
  const auto& t = ReadyCondition(pod)->last_transition_time;
  if (t.IsZero()) return false;
  return Nanos(t) + int64_t{min_ready_seconds} * 1'000'000'000LL < NowNanos(now);
}

int32_t MaxContainerRestarts(const Pod& pod) {
  int32_t max = 0;
  for (const auto& raw : pod.status.rest->container_statuses) {
    max = std::max(max, RestartCountOf(raw.text));
  }
  return max;
}

int32_t PodDeletionCost(const Pod& pod) {
  auto it = pod.metadata.annotations.find(kPodDeletionCostAnnotation);
  if (it == pod.metadata.annotations.end()) return 0;
  // strconv.ParseInt(s, 10, 32): optional sign, decimal digits, no spaces.
  std::string_view s = it->second;
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  int32_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return 0;
  return value;
}

std::string PodKey(const Pod& pod) { return pod.metadata.namespace_ + "/" + pod.metadata.name; }

const api::meta::OwnerReference* ControllerOf(const api::meta::ObjectMeta& meta) {
  for (const auto& ref : meta.owner_references) {
    if (ref.controller.value_or(false)) return &ref;
  }
  return nullptr;
}

bool DeleteBefore(const RankedPod& ra, const RankedPod& rb, WallTime now) {
  const Pod& a = *ra.pod;
  const Pod& b = *rb.pod;
  // 1. Unassigned before assigned.
  if (a.spec.node_name != b.spec.node_name &&
      (a.spec.node_name.empty() || b.spec.node_name.empty())) {
    return a.spec.node_name.empty();
  }
  // 2. Pending < Unknown < Running.
  if (int pa = PhaseOrdinal(a.status.phase), pb = PhaseOrdinal(b.status.phase); pa != pb) {
    return pa < pb;
  }
  // 3. Not ready before ready.
  const bool ready_a = IsPodReady(a);
  const bool ready_b = IsPodReady(b);
  if (ready_a != ready_b) return !ready_a;
  // 4. Lower deletion cost first.
  if (int32_t ca = PodDeletionCost(a), cb = PodDeletionCost(b); ca != cb) return ca < cb;
  // 5. More related pods on the same node first.
  if (ra.rank != rb.rank) return ra.rank > rb.rank;
  // 6. Ready for less time first, in log2 buckets.
  if (ready_a && ready_b) {
    api::meta::Time ta = ReadyTime(a);
    api::meta::Time tb = ReadyTime(b);
    if (ta != tb) return CompareTimes(ta, tb, a, b, now);
  }
  // 7. More container restarts first.
  if (int32_t xa = MaxContainerRestarts(a), xb = MaxContainerRestarts(b); xa != xb) {
    return xa > xb;
  }
  // 8. Newer first, in log2 buckets; a zero creation time first.
  const auto& ta = a.metadata.creation_timestamp;
  const auto& tb = b.metadata.creation_timestamp;
  if (ta != tb) return CompareTimes(ta, tb, a, b, now);
  return false;
}

std::vector<PodPtr> PodsToDelete(std::vector<PodPtr> active, const std::vector<PodPtr>& related,
                                 size_t n, WallTime now) {
  if (n < active.size()) {
    std::map<std::string, int, std::less<>> on_node;
    for (const auto& p : related) {
      if (IsPodActive(*p)) ++on_node[p->spec.node_name];
    }
    std::vector<RankedPod> ranked;
    ranked.reserve(active.size());
    for (auto& p : active) {
      auto it = on_node.find(p->spec.node_name);
      ranked.push_back({std::move(p), it == on_node.end() ? 0 : it->second});
    }
    // stable_sort: the order mixes log2 buckets with UIDs and need not be a strict weak order;
    // std::sort may then read out of bounds, a merge sort only gives some order.
    std::stable_sort(ranked.begin(), ranked.end(), [now](const RankedPod& a, const RankedPod& b) {
      return DeleteBefore(a, b, now);
    });
    active.clear();
    for (auto& r : ranked) active.push_back(std::move(r.pod));
  }
  if (active.size() > n) active.resize(n);
  return active;
}

}  // namespace svcplane::controllers::replicaset
