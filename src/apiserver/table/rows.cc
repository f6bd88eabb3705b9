#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <set>

#include "api/selectors/label_selector.h"
#include "apiserver/table/table.h"

namespace svcplane::apiserver::table {
namespace {

namespace json = boost::json;
namespace core = api::core;
namespace meta = api::meta;
namespace discovery = api::discovery;
namespace coordination = api::coordination;
namespace rbac = api::rbac;

std::string OrNone(std::string_view s) { return s.empty() ? "<none>" : std::string(s); }

std::string Join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += sep;
    out += v[i];
  }
  return out;
}

// labels.FormatLabels: sorted k=v joined by ",", "<none>" when empty.
std::string FormatLabels(const meta::StringMap& m) {
  std::string out;
  for (const auto& [k, v] : m) {
    if (!out.empty()) out += ',';
    out += k + "=" + v;
  }
  return OrNone(out);
}

// net.JoinHostPort: brackets around IPv6 literals.
std::string JoinHostPort(std::string_view host, int32_t port) {
  if (host.find(':') != std::string_view::npos) return fmt::format("[{}]:{}", host, port);
  return fmt::format("{}:{}", host, port);
}

// --- Pod container statuses: the model keeps them as raw JSON, read the few fields we print.

const json::object* Obj(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  if (it == o.end() || !it->value().is_object()) return nullptr;
  return &it->value().as_object();
}
std::string Str(const json::object* o, std::string_view key) {
  if (!o) return {};
  auto it = o->find(key);
  if (it == o->end() || !it->value().is_string()) return {};
  return std::string(it->value().as_string());
}
int64_t Int(const json::object* o, std::string_view key) {
  if (!o) return 0;
  auto it = o->find(key);
  if (it == o->end()) return 0;
  if (it->value().is_int64()) return it->value().as_int64();
  if (it->value().is_uint64()) return static_cast<int64_t>(it->value().as_uint64());
  return 0;
}
bool Bool(const json::object* o, std::string_view key) {
  if (!o) return false;
  auto it = o->find(key);
  return it != o->end() && it->value().is_bool() && it->value().as_bool();
}

struct Terminated {
  int64_t exit_code = 0;
  int64_t signal = 0;
  std::string reason;
  std::optional<int64_t> finished_at;  // unix micros
};

struct ContainerStatus {
  std::string name;
  bool ready = false;
  std::optional<bool> started;
  int64_t restart_count = 0;
  std::optional<std::string> waiting_reason;  // set when state.waiting exists
  bool running = false;
  std::optional<Terminated> terminated;
  std::optional<int64_t> last_terminated_finished_at;  // lastState.terminated.finishedAt
  bool has_last_terminated = false;
};

std::optional<int64_t> ParseTime(const std::string& s) {
  if (s.empty()) return std::nullopt;
  return meta::ParseRFC3339Micros(s);
}

ContainerStatus ParseStatus(const meta::RawJson& raw) {
  ContainerStatus cs;
  boost::system::error_code ec;
  json::value v = json::parse(raw.text, ec);
  if (ec || !v.is_object()) return cs;
  const auto& o = v.as_object();
  cs.name = Str(&o, "name");
  cs.ready = Bool(&o, "ready");
  if (auto it = o.find("started"); it != o.end() && it->value().is_bool()) {
    cs.started = it->value().as_bool();
  }
  cs.restart_count = Int(&o, "restartCount");
  if (const auto* state = Obj(o, "state")) {
    if (const auto* w = Obj(*state, "waiting")) cs.waiting_reason = Str(w, "reason");
    cs.running = Obj(*state, "running") != nullptr;
    if (const auto* t = Obj(*state, "terminated")) {
      cs.terminated = Terminated{Int(t, "exitCode"), Int(t, "signal"), Str(t, "reason"),
                                 ParseTime(Str(t, "finishedAt"))};
    }
  }
  if (const auto* last = Obj(o, "lastState")) {
    if (const auto* t = Obj(*last, "terminated")) {
      cs.has_last_terminated = true;
      cs.last_terminated_finished_at = ParseTime(Str(t, "finishedAt"));
    }
  }
  return cs;
}

// Sidecar containers: init containers with restartPolicy Always (kept among unknown fields).
bool IsRestartableInit(const core::v1::Container* c) {
  if (!c) return false;
  for (const auto& [k, v] : c->unknown.items) {
    if (k == "restartPolicy") return v == "\"Always\"";
  }
  return false;
}

bool HasConditionTrue(const core::v1::PodStatus& s, std::string_view type) {
  for (const auto& c : s.conditions) {
    if (c.type == type) return c.status == "True";
  }
  return false;
}

void UpdateLast(std::optional<int64_t>* last, const ContainerStatus& cs) {
  if (cs.has_last_terminated) {
    int64_t t = cs.last_terminated_finished_at.value_or(0);
    if (!last->has_value() || **last < t) *last = t;
  }
}

std::string ExitReason(const Terminated& t, std::string_view prefix) {
  if (!t.reason.empty()) return std::string(prefix) + t.reason;
  if (t.signal != 0) return fmt::format("{}Signal:{}", prefix, t.signal);
  return fmt::format("{}ExitCode:{}", prefix, t.exit_code);
}

constexpr RowCondition kPodSucceeded{"Completed", "True", "Succeeded",
                                     "The pod has completed successfully."};
constexpr RowCondition kPodFailed{"Completed", "True", "Failed", "The pod failed."};

}  // namespace

// Mirrors printPod in pkg/printers/internalversion/printers.go (1.30).
Row MakeRow(const core::v1::Pod& pod, TimePoint now) {
  Row row;
  int64_t restarts = 0, sidecar_restarts = 0;
  int64_t total = static_cast<int64_t>(pod.spec.containers.size());
  int64_t ready = 0;
  std::optional<int64_t> last_restart, last_sidecar_restart;

  const std::string& phase = pod.status.phase;
  std::string reason = pod.status.rest->reason.empty() ? phase : pod.status.rest->reason;
  for (const auto& c : pod.status.conditions) {
    if (c.type == "PodScheduled" && c.rest->reason == "SchedulingGated") reason = "SchedulingGated";
  }
  if (phase == "Succeeded") row.conditions.push_back(kPodSucceeded);
  if (phase == "Failed") row.conditions.push_back(kPodFailed);

  std::map<std::string, const core::v1::Container*, std::less<>> init_containers;
  for (const auto& c : pod.spec.rest->init_containers) {
    init_containers[c.name] = &c;
    if (IsRestartableInit(&c)) ++total;
  }

  bool initializing = false;
  const size_t n_init = pod.spec.rest->init_containers.size();
  for (size_t i = 0; i < pod.status.rest->init_container_statuses.size(); ++i) {
    ContainerStatus cs = ParseStatus(pod.status.rest->init_container_statuses[i]);
    restarts += cs.restart_count;
    UpdateLast(&last_restart, cs);
    auto it = init_containers.find(cs.name);
    const bool sidecar = IsRestartableInit(it == init_containers.end() ? nullptr : it->second);
    if (sidecar) {
      sidecar_restarts += cs.restart_count;
      UpdateLast(&last_sidecar_restart, cs);
    }
    if (cs.terminated && cs.terminated->exit_code == 0) continue;
    if (sidecar && cs.started.value_or(false)) {
      if (cs.ready) ++ready;
      continue;
    }
    if (cs.terminated) {
      reason = ExitReason(*cs.terminated, "Init:");
    } else if (cs.waiting_reason && !cs.waiting_reason->empty() &&
               *cs.waiting_reason != "PodInitializing") {
      reason = "Init:" + *cs.waiting_reason;
    } else {
      reason = fmt::format("Init:{}/{}", i, n_init);
    }
    initializing = true;
    break;
  }

  if (!initializing || HasConditionTrue(pod.status, "Initialized")) {
    restarts = sidecar_restarts;
    last_restart = last_sidecar_restart;
    bool has_running = false;
    for (size_t k = pod.status.rest->container_statuses.size(); k-- > 0;) {
      ContainerStatus cs = ParseStatus(pod.status.rest->container_statuses[k]);
      restarts += cs.restart_count;
      UpdateLast(&last_restart, cs);
      if (cs.waiting_reason && !cs.waiting_reason->empty()) {
        reason = *cs.waiting_reason;
      } else if (cs.terminated) {
        reason = ExitReason(*cs.terminated, "");
      } else if (cs.ready && cs.running) {
        has_running = true;
        ++ready;
      }
    }
    if (reason == "Completed" && has_running) {
      reason = HasConditionTrue(pod.status, "Ready") ? "Running" : "NotReady";
    }
  }

  if (pod.metadata.deletion_timestamp && pod.status.rest->reason == "NodeLost") {
    reason = "Unknown";
  } else if (pod.metadata.deletion_timestamp && phase != "Succeeded" && phase != "Failed") {
    reason = "Terminating";
  }

  std::string restarts_str = std::to_string(restarts);
  if (restarts != 0 && last_restart && *last_restart != 0) {
    restarts_str = fmt::format("{} ({} ago)", restarts, TimestampSince(*last_restart, true, now));
  }

  std::string pod_ip = pod.status.pod_ips.empty() ? "" : pod.status.pod_ips[0].ip;
  std::string gates = "<none>";
  if (!pod.spec.readiness_gates.empty()) {
    int true_conditions = 0;
    for (const auto& g : pod.spec.readiness_gates) {
      for (const auto& c : pod.status.conditions) {
        if (c.type == g.condition_type) {
          if (c.status == "True") ++true_conditions;
          break;
        }
      }
    }
    gates = fmt::format("{}/{}", true_conditions, pod.spec.readiness_gates.size());
  }
  row.cells = {pod.metadata.name,
               fmt::format("{}/{}", ready, total),
               reason,
               restarts_str,
               TimestampSince(pod.metadata.creation_timestamp, now),
               OrNone(pod_ip),
               OrNone(pod.spec.node_name),
               OrNone(pod.status.rest->nominated_node_name),
               gates};
  return row;
}

namespace {

// loadBalancerStatusStringer (wide: never truncated): sorted unique ingress IPs or hostnames.
std::string LoadBalancerIngress(const core::v1::LoadBalancerStatus& lb) {
  std::set<std::string> result;
  for (const auto& raw : lb.ingress) {
    boost::system::error_code ec;
    json::value v = json::parse(raw.text, ec);
    if (ec || !v.is_object()) continue;
    std::string ip = Str(&v.as_object(), "ip");
    std::string host = Str(&v.as_object(), "hostname");
    if (!ip.empty()) {
      result.insert(ip);
    } else if (!host.empty()) {
      result.insert(host);
    }
  }
  return Join(std::vector<std::string>(result.begin(), result.end()), ",");
}

std::string ServiceExternalIP(const core::v1::Service& svc) {
  const auto& spec = svc.spec;
  const std::string ext = Join(spec.external_ips, ",");
  if (spec.type == "ClusterIP" || spec.type == "NodePort") return OrNone(ext);
  if (spec.type == "LoadBalancer") {
    std::string lb = LoadBalancerIngress(svc.status.load_balancer);
    if (!spec.external_ips.empty()) {
      if (lb.empty()) return ext;
      return lb + "," + ext;
    }
    return lb.empty() ? "<pending>" : lb;
  }
  if (spec.type == "ExternalName") return spec.external_name;
  return "<unknown>";
}

std::string ServicePorts(const std::vector<core::v1::ServicePort>& ports) {
  std::vector<std::string> pieces;
  for (const auto& p : ports) {
    if (p.node_port > 0) {
      pieces.push_back(fmt::format("{}:{}/{}", p.port, p.node_port, p.protocol));
    } else {
      pieces.push_back(fmt::format("{}/{}", p.port, p.protocol));
    }
  }
  return OrNone(Join(pieces, ","));
}

}  // namespace

Row MakeRow(const core::v1::Service& svc, TimePoint now) {
  Row row;
  std::string cluster_ip = svc.spec.cluster_ips.empty() ? "<none>" : svc.spec.cluster_ips[0];
  row.cells = {svc.metadata.name,
               svc.spec.type,
               cluster_ip,
               ServiceExternalIP(svc),
               ServicePorts(svc.spec.ports),
               TimestampSince(svc.metadata.creation_timestamp, now),
               FormatLabels(svc.spec.selector)};
  return row;
}

namespace {

// formatEndpoints: the first three ip:port pairs and " + N more...".
std::string FormatEndpoints(const core::v1::Endpoints& ep) {
  if (ep.subsets.empty()) return "<none>";
  constexpr size_t kMax = 3;
  std::vector<std::string> list;
  bool more = false;
  size_t count = 0;
  for (const auto& ss : ep.subsets) {
    if (ss.ports.empty()) {
      count += ss.addresses.size();
      for (const auto& a : ss.addresses) {
        if (list.size() == kMax) {
          more = true;
          break;
        }
        list.push_back(a.ip);
      }
      continue;
    }
    for (const auto& port : ss.ports) {
      count += ss.addresses.size();
      for (const auto& a : ss.addresses) {
        if (list.size() == kMax) {
          more = true;
          break;
        }
        list.push_back(JoinHostPort(a.ip, port.port));
      }
    }
  }
  std::string ret = Join(list, ",");
  if (more) return fmt::format("{} + {} more...", ret, count - kMax);
  return OrNone(ret);
}

// listWithMoreString.
std::string ListWithMore(const std::vector<std::string>& list, bool more, size_t count) {
  std::string ret = Join(list, ",");
  if (more) return fmt::format("{} + {} more...", ret, count - 3);
  return ret.empty() ? "<unset>" : ret;
}

}  // namespace

Row MakeRow(const core::v1::Endpoints& ep, TimePoint now) {
  Row row;
  row.cells = {ep.metadata.name, FormatEndpoints(ep),
               TimestampSince(ep.metadata.creation_timestamp, now)};
  return row;
}

Row MakeRow(const discovery::v1::EndpointSlice& slice, TimePoint now) {
  std::vector<std::string> ports;
  bool more_ports = false;
  size_t port_count = 0;
  if (slice.ports) {
    for (const auto& p : *slice.ports) {
      if (ports.size() < 3) {
        ports.push_back(p.port ? std::to_string(*p.port) : p.name ? *p.name : "*");
      } else {
        more_ports = true;
      }
      ++port_count;
    }
  }
  std::vector<std::string> addrs;
  bool more_addrs = false;
  size_t addr_count = 0;
  for (const auto& e : slice.endpoints) {
    for (const auto& a : e.addresses) {
      if (addrs.size() < 3) {
        addrs.push_back(a);
      } else {
        more_addrs = true;
      }
      ++addr_count;
    }
  }
  Row row;
  row.cells = {slice.metadata.name, slice.address_type, ListWithMore(ports, more_ports, port_count),
               ListWithMore(addrs, more_addrs, addr_count),
               TimestampSince(slice.metadata.creation_timestamp, now)};
  return row;
}

Row MakeRow(const core::v1::Node& node, TimePoint now) {
  std::vector<std::string> status;
  for (const auto& c : node.status.conditions) {
    if (c.type == "Ready") {
      status.push_back(c.status == "True" ? "Ready" : "NotReady");
      break;
    }
  }
  if (status.empty()) status.push_back("Unknown");
  if (node.spec.unschedulable) status.push_back("SchedulingDisabled");

  std::set<std::string> roles;
  constexpr std::string_view kRolePrefix = "node-role.kubernetes.io/";
  for (const auto& [k, v] : node.metadata.labels) {
    if (k.starts_with(kRolePrefix)) {
      if (k.size() > kRolePrefix.size()) roles.insert(k.substr(kRolePrefix.size()));
    } else if (k == "kubernetes.io/role" && !v.empty()) {
      roles.insert(v);
    }
  }
  auto address = [&](std::string_view type) -> std::string {
    for (const auto& a : node.status.addresses) {
      if (a.type == type) return a.address;
    }
    return "<none>";
  };
  auto or_unknown = [](const std::string& s) { return s.empty() ? "<unknown>" : s; };
  const auto& info = node.status.node_info;
  Row row;
  row.cells = {node.metadata.name,
               Join(status, ","),
               OrNone(Join(std::vector<std::string>(roles.begin(), roles.end()), ",")),
               TimestampSince(node.metadata.creation_timestamp, now),
               info.kubelet_version,
               address("InternalIP"),
               address("ExternalIP"),
               or_unknown(info.os_image),
               or_unknown(info.kernel_version),
               or_unknown(info.container_runtime_version)};
  return row;
}

Row MakeRow(const core::v1::Namespace& ns, TimePoint now) {
  Row row;
  row.cells = {ns.metadata.name, ns.status.phase,
               TimestampSince(ns.metadata.creation_timestamp, now)};
  return row;
}

Row MakeRow(const core::v1::Event& ev, TimePoint now) {
  std::string first = ev.first_timestamp.IsZero() ? TimestampSince(ev.event_time, now)
                                                  : TimestampSince(ev.first_timestamp, now);
  std::string last = ev.last_timestamp.IsZero() ? first : TimestampSince(ev.last_timestamp, now);
  int64_t count = ev.count;
  if (ev.series) {
    last = TimestampSince(ev.series->last_observed_time, now);
    count = ev.series->count;
  } else if (count == 0) {
    count = 1;  // singleton events of the events.k8s.io API carry no count
  }
  std::string kind = ev.involved_object.kind;
  std::transform(kind.begin(), kind.end(), kind.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string target =
      ev.involved_object.name.empty() ? kind : kind + "/" + ev.involved_object.name;
  // formatEventSource: component (or reportingController), then ", instance".
  std::string component =
      ev.source.component.empty() ? ev.reporting_component : ev.source.component;
  std::string instance = ev.source.host.empty() ? ev.reporting_instance : ev.source.host;
  std::string source = instance.empty() ? component : component + ", " + instance;
  std::string message = ev.message;
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  message.erase(message.begin(), std::find_if(message.begin(), message.end(), not_space));
  message.erase(std::find_if(message.rbegin(), message.rend(), not_space).base(), message.end());
  Row row;
  row.cells = {last,   ev.type, ev.reason, target, ev.involved_object.field_path,
               source, message, first,     count,  ev.metadata.name};
  return row;
}

Row MakeRow(const coordination::v1::Lease& lease, TimePoint now) {
  Row row;
  row.cells = {lease.metadata.name, lease.spec.holder_identity.value_or(""),
               TimestampSince(lease.metadata.creation_timestamp, now)};
  return row;
}

namespace {

// The default table convertor's "Created At": time.Time.UTC().Format(time.RFC3339), the zero
// time printed as Go's year 1.
std::string CreatedAt(const meta::Time& t) {
  return t.IsZero() ? "0001-01-01T00:00:00Z" : meta::FormatRFC3339(t.unix_seconds);
}

// rbac.SubjectsStrings, joined as printRoleBinding does: users, groups and "<ns>/<name>" of
// service accounts; other kinds are not shown.
Row BindingRow(const meta::ObjectMeta& m, const rbac::v1::RoleRef& ref,
               const std::vector<rbac::v1::Subject>& subjects, TimePoint now) {
  std::vector<std::string> users, groups, sas;
  for (const auto& s : subjects) {
    if (s.kind == rbac::v1::kServiceAccountKind) {
      sas.push_back(s.ns + "/" + s.name);
    } else if (s.kind == rbac::v1::kUserKind) {
      users.push_back(s.name);
    } else if (s.kind == rbac::v1::kGroupKind) {
      groups.push_back(s.name);
    }
  }
  Row row;
  row.cells = {m.name,
               ref.kind + "/" + ref.name,
               TimestampSince(m.creation_timestamp, now),
               Join(users, ", "),
               Join(groups, ", "),
               Join(sas, ", ")};
  return row;
}

}  // namespace

Row MakeRow(const rbac::v1::Role& role, TimePoint /*now*/) {
  Row row;
  row.cells = {role.metadata.name, CreatedAt(role.metadata.creation_timestamp)};
  return row;
}

Row MakeRow(const rbac::v1::ClusterRole& role, TimePoint /*now*/) {
  Row row;
  row.cells = {role.metadata.name, CreatedAt(role.metadata.creation_timestamp)};
  return row;
}

Row MakeRow(const rbac::v1::RoleBinding& b, TimePoint now) {
  return BindingRow(b.metadata, b.role_ref, b.subjects, now);
}

Row MakeRow(const rbac::v1::ClusterRoleBinding& b, TimePoint now) {
  return BindingRow(b.metadata, b.role_ref, b.subjects, now);
}

namespace {

// layoutContainerCells: container names and images, comma-joined.
void AddTemplateCells(const api::core::v1::PodTemplateSpec& t, Row& row) {
  std::vector<std::string> names, images;
  for (const auto& c : t.spec.containers) {
    names.push_back(c.name);
    images.push_back(c.image);
  }
  row.cells.emplace_back(Join(names, ","));
  row.cells.emplace_back(Join(images, ","));
}

// metav1.LabelSelectorAsSelector(...).String(): "" for a nil selector (Nothing) or one that
// does not parse (upstream fails the row; validation keeps such selectors out).
std::string SelectorString(const std::optional<api::selectors::LabelSelectorSpec>& spec) {
  auto sel = api::selectors::SelectorFromSpec(spec ? &*spec : nullptr);
  return sel.ok() ? sel->String() : std::string();
}

}  // namespace

Row MakeRow(const api::apps::v1::Deployment& d, TimePoint now) {
  Row row;
  row.cells = {
      d.metadata.name,
      std::to_string(d.status.ready_replicas) + "/" + std::to_string(d.spec.replicas.value_or(0)),
      int64_t{d.status.updated_replicas}, int64_t{d.status.available_replicas},
      TimestampSince(d.metadata.creation_timestamp, now)};
  AddTemplateCells(d.spec.template_, row);
  row.cells.emplace_back(SelectorString(d.spec.selector));
  return row;
}

Row MakeRow(const api::apps::v1::ReplicaSet& rs, TimePoint now) {
  Row row;
  row.cells = {rs.metadata.name, int64_t{rs.spec.replicas.value_or(0)}, int64_t{rs.status.replicas},
               int64_t{rs.status.ready_replicas},
               TimestampSince(rs.metadata.creation_timestamp, now)};
  AddTemplateCells(rs.spec.template_, row);
  // FormatLabelSelector: "<none>" for an empty rendering.
  std::string sel = SelectorString(rs.spec.selector);
  row.cells.emplace_back(sel.empty() ? std::string("<none>") : sel);
  return row;
}

Row MakeRow(const core::v1::ConfigMap& cm, TimePoint now) {
  Row row;
  row.cells = {cm.metadata.name, static_cast<int64_t>(cm.data.size() + cm.binary_data.size()),
               TimestampSince(cm.metadata.creation_timestamp, now)};
  return row;
}

Row MakeRow(const core::v1::Secret& secret, TimePoint now) {
  Row row;
  row.cells = {secret.metadata.name, secret.type, static_cast<int64_t>(secret.data.size()),
               TimestampSince(secret.metadata.creation_timestamp, now)};
  return row;
}

Row MakeRow(const core::v1::ServiceAccount& sa, TimePoint now) {
  Row row;
  row.cells = {sa.metadata.name, static_cast<int64_t>(sa.secrets.size()),
               TimestampSince(sa.metadata.creation_timestamp, now)};
  return row;
}

}  // namespace svcplane::apiserver::table
