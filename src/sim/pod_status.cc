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
                             const char* reason, const std::string& message = "") {
  core::PodCondition c;
  c.type = type;
  c.status = ok ? "True" : "False";
  c.last_transition_time = now;
  if (!ok) {
    c.rest->reason = reason;
    c.rest->message = message;
  }
  if (const core::PodCondition* old = FindCondition(pod, type);
      old != nullptr && old->status == c.status) {
    c.last_transition_time = old->last_transition_time;
  }
  return c;
}

// The kubelet's message for ContainersNotReady: "containers with unready status: [a b]".
std::string UnreadyMessage(const core::Pod& pod) {
  std::string names;
  for (const core::Container& c : pod.spec.containers) {
    if (!names.empty()) names += ' ';
    names += c.name;
  }
  return "containers with unready status: [" + names + "]";
}

std::string Escaped(std::string_view text) {
  std::string escaped;
  for (char ch : text) {
    if (ch == '"' || ch == '\\') escaped.push_back('\\');
    escaped.push_back(ch);
  }
  return escaped;
}

// Only characters valid in container names and image references reach here unescaped: names
// are DNS labels; images are escaped.
std::string ImageJson(const core::Container& c) {
  return "\"image\":\"" + Escaped(c.image.empty() ? "kwok" : c.image) + "\"";
}

std::string ContainerStatusJson(const core::Container& c, bool ready, const std::string& started) {
  std::string r = ready ? "true" : "false";
  return "{\"name\":\"" + c.name + "\",\"state\":{\"running\":{\"startedAt\":\"" + started +
         "\"}},\"lastState\":{},\"ready\":" + r + ",\"restartCount\":0," + ImageJson(c) +
         ",\"imageID\":\"\",\"containerID\":" + "\"kwok://" + c.name + "\",\"started\":true}";
}

// The string value of the first `"key": "..."` in `json` at or after `from`, or "". Enough for
// the flat strings of a container status, whatever its spacing.
std::string StringField(std::string_view json, std::string_view key, size_t from = 0) {
  const std::string quoted = "\"" + std::string(key) + "\"";
  size_t at = json.find(quoted, from);
  if (at == std::string_view::npos) return "";
  at += quoted.size();
  while (at < json.size() && (json[at] == ' ' || json[at] == ':' || json[at] == '\n')) ++at;
  if (at >= json.size() || json[at] != '"') return "";
  const size_t end = json.find('"', at + 1);
  return end == std::string_view::npos ? "" : std::string(json.substr(at + 1, end - at - 1));
}

// When container `name` started running, from the status written earlier, or "".
std::string RunningSince(const core::Pod& pod, const std::string& name) {
  for (const auto& cs : pod.status.rest->container_statuses) {
    if (StringField(cs.text, "name") != name) continue;
    const size_t running = cs.text.find("\"running\"");
    if (running == std::string::npos) break;
    std::string at = StringField(cs.text, "startedAt", running);
    if (!at.empty()) return at;
    break;
  }
  return "";
}

// A container whose image is being pulled and started (kubelet: waiting, ContainerCreating).
std::string CreatingContainerStatusJson(const core::Container& c) {
  return "{\"name\":\"" + c.name +
         "\",\"state\":{\"waiting\":{\"reason\":\"ContainerCreating\"}},\"lastState\":{}," +
         "\"ready\":false,\"restartCount\":0," + ImageJson(c) + ",\"imageID\":\"\"," +
         "\"started\":false}";
}

// What both stages share: host and Pod IPs, startTime, QoS class.
core::PodStatus PlacedStatus(const core::Pod& pod, std::string_view host_ip,
                             std::string_view pod_ip, api::meta::Time t) {
  core::PodStatus s = pod.status;
  s.rest->host_ip = std::string(host_ip);
  s.rest->host_ips = {core::PodIP{std::string(host_ip), {}}};
  s.pod_ip = std::string(pod_ip);
  s.pod_ips = {core::PodIP{std::string(pod_ip), {}}};
  if (!s.rest->start_time) s.rest->start_time = t;
  if (s.rest->qos_class.empty()) s.rest->qos_class = "BestEffort";
  return s;
}

// Our conditions in the kubelet's order, then the ones written by others (readiness gates).
std::vector<core::PodCondition> WithOthers(const core::Pod& pod,
                                           std::vector<core::PodCondition> conds) {
  for (const core::PodCondition& c : pod.status.conditions) {
    bool ours = false;
    for (const core::PodCondition& o : conds) ours = ours || o.type == c.type;
    if (!ours) conds.push_back(c);
  }
  return conds;
}

}  // namespace

core::PodStatus CreatingStatus(const core::Pod& pod, std::string_view host_ip,
                               std::string_view pod_ip, WallTime now) {
  const api::meta::Time t = ToTime(now);
  core::PodStatus s = PlacedStatus(pod, host_ip, pod_ip, t);
  s.phase = "Pending";
  const std::string unready = UnreadyMessage(pod);
  s.conditions = WithOthers(
      pod, {
               Condition(pod, "PodReadyToStartContainers", true, t, ""),
               Condition(pod, "Initialized", true, t, ""),
               Condition(pod, "Ready", false, t, "ContainersNotReady", unready),
               Condition(pod, "ContainersReady", false, t, "ContainersNotReady", unready),
               Condition(pod, "PodScheduled", true, t, ""),
           });
  s.rest->container_statuses.clear();
  for (const core::Container& c : pod.spec.containers) {
    s.rest->container_statuses.push_back({CreatingContainerStatusJson(c)});
  }
  return s;
}

core::PodStatus RunningStatus(const core::Pod& pod, std::string_view host_ip,
                              std::string_view pod_ip, bool ready, WallTime now) {
  const api::meta::Time t = ToTime(now);
  core::PodStatus s = PlacedStatus(pod, host_ip, pod_ip, t);
  s.phase = "Running";

  bool gates_ok = true;
  for (const core::PodReadinessGate& g : pod.spec.readiness_gates) {
    const core::PodCondition* c = FindCondition(pod, g.condition_type);
    if (c == nullptr || c->status != "True") gates_ok = false;
  }
  const std::string unready = ready ? "" : UnreadyMessage(pod);
  s.conditions = WithOthers(
      pod, {
               Condition(pod, "PodReadyToStartContainers", true, t, ""),
               Condition(pod, "Initialized", true, t, ""),
               Condition(pod, "Ready", ready && gates_ok, t,
                         ready ? "ReadinessGatesNotReady" : "ContainersNotReady", unready),
               Condition(pod, "ContainersReady", ready, t, "ContainersNotReady", unready),
               Condition(pod, "PodScheduled", true, t, ""),
           });

  // The containers started when the Pod first turned Running (the create stage set only
  // startTime); later rewrites keep that time.
  s.rest->container_statuses.clear();
  for (const core::Container& c : pod.spec.containers) {
    std::string started = RunningSince(pod, c.name);
    if (started.empty()) {
      // Not found in an earlier Running status: keep to startTime (stable) rather than now,
      // which would change at every rewrite.
      const bool was_running = pod.status.phase == "Running" && s.rest->start_time;
      started =
          api::meta::FormatRFC3339(was_running ? s.rest->start_time->unix_seconds : t.unix_seconds);
    }
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
