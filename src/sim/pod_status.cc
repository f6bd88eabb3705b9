#include "sim/pod_status.h"

namespace svcplane::sim {

namespace core = api::core::v1;

const core::PodCondition* FindCondition(const core::Pod& pod, std::string_view type) {
  for (const core::PodCondition& c : pod.status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool IsPodReady(const core::Pod& pod) {
  const core::PodCondition* c = FindCondition(pod, "Ready");
  return c != nullptr && c->status == "True";
}

namespace {

// Kept from the old status when the status did not change, so repeated writes are no-ops.
core::PodCondition Condition(const core::Pod& pod, const char* type, bool ok, api::meta::Time now,
                             const char* reason) {
  core::PodCondition c;
  c.type = type;
  c.status = ok ? "True" : "False";
  c.last_transition_time = now;
  if (!ok) c.rest->reason = reason;
  if (const core::PodCondition* old = FindCondition(pod, type);
      old != nullptr && old->status == c.status) {
    c.last_transition_time = old->last_transition_time;
  }
  return c;
}

std::string ContainerStatusJson(const core::Container& c, bool ready, int64_t started) {
  std::string image = c.image.empty() ? "kwok" : c.image;
  // Only characters valid in container names and image references reach here unescaped:
  // names are DNS labels; images are escaped below.
  std::string escaped;
  for (char ch : image) {
    if (ch == '"' || ch == '\\') escaped.push_back('\\');
    escaped.push_back(ch);
  }
  std::string r = ready ? "true" : "false";
  return "{\"name\":\"" + c.name + "\",\"state\":{\"running\":{\"startedAt\":\"" +
         api::meta::FormatRFC3339(started) + "\"}},\"lastState\":{},\"ready\":" + r +
         ",\"restartCount\":0,\"image\":\"" + escaped +
         "\",\"imageID\":\"\",\"containerID\":" + "\"kwok://" + c.name + "\",\"started\":true}";
}

}  // namespace

core::PodStatus RunningStatus(const core::Pod& pod, std::string_view host_ip,
                              std::string_view pod_ip, bool ready, WallTime now) {
  const api::meta::Time t = ToTime(now);
  core::PodStatus s = pod.status;
  s.phase = "Running";
  s.rest->host_ip = std::string(host_ip);
  s.rest->host_ips = {core::PodIP{std::string(host_ip), {}}};
  s.pod_ip = std::string(pod_ip);
  s.pod_ips = {core::PodIP{std::string(pod_ip), {}}};
  if (!s.rest->start_time) s.rest->start_time = t;
  if (s.rest->qos_class.empty()) s.rest->qos_class = "BestEffort";

  bool gates_ok = true;
  for (const core::PodReadinessGate& g : pod.spec.readiness_gates) {
    const core::PodCondition* c = FindCondition(pod, g.condition_type);
    if (c == nullptr || c->status != "True") gates_ok = false;
  }
  std::vector<core::PodCondition> conds = {
      Condition(pod, "PodReadyToStartContainers", true, t, ""),
      Condition(pod, "Initialized", true, t, ""),
      Condition(pod, "Ready", ready && gates_ok, t,
                ready ? "ReadinessGatesNotReady" : "ContainersNotReady"),
      Condition(pod, "ContainersReady", ready, t, "ContainersNotReady"),
      Condition(pod, "PodScheduled", true, t, ""),
  };
  // Conditions written by others (readiness gates) are kept.
  for (const core::PodCondition& c : pod.status.conditions) {
    bool ours = false;
    for (const core::PodCondition& o : conds) ours = ours || o.type == c.type;
    if (!ours) conds.push_back(c);
  }
  s.conditions = std::move(conds);

  const int64_t started = s.rest->start_time->unix_seconds;
  s.rest->container_statuses.clear();
  for (const core::Container& c : pod.spec.containers) {
    s.rest->container_statuses.push_back({ContainerStatusJson(c, ready, started)});
  }
  return s;
}

bool StatusDiffers(const core::PodStatus& have, const core::PodStatus& want) {
  return !(have == want);
}

Result<std::string> PodIpPool::Assign(const std::string& pod_uid) {
  if (auto it = by_uid_.find(pod_uid); it != by_uid_.end()) {
    return FormatIpv4(cidr_.base + it->second);
  }
  const uint32_t size = static_cast<uint32_t>(cidr_.Size());
  if (used_.size() < size) used_.resize(size, false);
  // Offsets 0 (network), 1 (gateway) and size-1 (broadcast) are never handed out.
  for (uint32_t n = 0; size > 3 && n < size; ++n) {
    uint32_t off = next_;
    next_ = next_ + 1 >= size - 1 ? 2 : next_ + 1;
    if (off < 2 || off >= size - 1 || used_[off]) continue;
    used_[off] = true;
    by_uid_[pod_uid] = off;
    return FormatIpv4(cidr_.base + off);
  }
  return UnavailableError("no free pod IP in " + cidr_.ToString());
}

void PodIpPool::Reserve(const std::string& pod_uid, std::string_view ip) {
  auto parsed = ParseIpv4(ip);
  if (!parsed.ok() || !cidr_.Contains(*parsed) || by_uid_.count(pod_uid)) return;
  uint32_t off = *parsed - cidr_.base;
  if (used_.size() < cidr_.Size()) used_.resize(cidr_.Size(), false);
  if (used_[off]) return;
  used_[off] = true;
  by_uid_[pod_uid] = off;
}

void PodIpPool::Release(const std::string& pod_uid) {
  auto it = by_uid_.find(pod_uid);
  if (it == by_uid_.end()) return;
  used_[it->second] = false;
  by_uid_.erase(it);
}

}  // namespace svcplane::sim
