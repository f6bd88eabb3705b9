#include "client/informers/transforms.h"

#include <memory>

namespace svcplane::client::informers {
namespace {

using api::core::v1::Container;

bool IsSidecar(const Container& c) {
  for (const auto& [key, value] : c.unknown.items) {
    if ((key == "restartPolicy" || key == "\"restartPolicy\"") && value == "\"Always\"")
      return true;
  }
  return false;
}

// Name, ports (name, number, protocol) and, for sidecars, restartPolicy of the containers that
// have ports.
std::vector<Container> PortsOnly(const std::vector<Container>& in, bool sidecars_only) {
  std::vector<Container> out;
  size_t n = 0;
  for (const auto& c : in) n += !c.ports.empty() && (!sidecars_only || IsSidecar(c));
  out.reserve(n);
  for (const auto& c : in) {
    if (c.ports.empty() || (sidecars_only && !IsSidecar(c))) continue;
    auto& o = out.emplace_back();
    o.name = c.name;
    if (sidecars_only) o.unknown.items.emplace_back("restartPolicy", "\"Always\"");
    o.ports.reserve(c.ports.size());
    for (const auto& p : c.ports) {
      auto& port = o.ports.emplace_back();
      port.name = p.name;
      port.container_port = p.container_port;
      port.protocol = p.protocol;
    }
  }
  return out;
}

}  // namespace

ObjectPtr<api::core::v1::Pod> SlimPodForServiceControllers(ObjectPtr<api::core::v1::Pod> pod) {
  using api::core::v1::Pod;
  auto slim = std::make_shared<Pod>();
  const auto& m = pod->metadata;
  auto& sm = slim->metadata;
  sm.name = m.name;
  sm.namespace_ = m.namespace_;
  sm.uid = m.uid;
  sm.resource_version = m.resource_version;
  sm.deletion_timestamp = m.deletion_timestamp;
  sm.labels = m.labels;
  const auto& spec = pod->spec;
  slim->spec.node_name = spec.node_name;
  slim->spec.hostname = spec.hostname;
  slim->spec.subdomain = spec.subdomain;
  slim->spec.readiness_gates = spec.readiness_gates;
  // Only containers with ports matter (named targetPorts resolve against them), and of init
  // containers only sidecars (restartPolicy: Always, kept in `unknown`), as FindPort does.
  slim->spec.containers = PortsOnly(spec.containers, false);
  if (!spec.rest->init_containers.empty()) {
    auto sidecars = PortsOnly(spec.rest->init_containers, true);
    if (!sidecars.empty()) slim->spec.rest->init_containers = std::move(sidecars);
  }
  const auto& st = pod->status;
  slim->status.phase = st.phase;
  slim->status.pod_ip = st.pod_ip;
  slim->status.pod_ips.reserve(st.pod_ips.size());
  for (const auto& ip : st.pod_ips) slim->status.pod_ips.emplace_back().ip = ip.ip;
  // Readiness is all the endpoints controllers ask of conditions (podutil.IsPodReady).
  for (const auto& c : st.conditions) {
    if (c.type != "Ready") continue;
    auto& out = slim->status.conditions.emplace_back();
    out.type = c.type;
    out.status = c.status;
    out.last_transition_time = c.last_transition_time;
  }
  return slim;
}

}  // namespace svcplane::client::informers
