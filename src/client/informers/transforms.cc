#include "client/informers/transforms.h"

#include <memory>

namespace svcplane::client::informers {

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
  // Only containers with ports matter (named targetPorts resolve against them).
  size_t with_ports = 0;
  for (const auto& c : spec.containers) with_ports += c.ports.empty() ? 0 : 1;
  slim->spec.containers.reserve(with_ports);
  for (const auto& c : spec.containers) {
    if (c.ports.empty()) continue;
    auto& out = slim->spec.containers.emplace_back();
    out.name = c.name;
    out.ports.reserve(c.ports.size());
    for (const auto& p : c.ports) {
      auto& port = out.ports.emplace_back();
      port.name = p.name;
      port.container_port = p.container_port;
      port.protocol = p.protocol;
    }
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
