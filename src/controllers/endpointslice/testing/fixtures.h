#pragma once

// Object builders shared by the endpointslice tests and benchmark.

#include <memory>
#include <string>
#include <vector>

#include "api/core/v1/node.h"
#include "api/core/v1/pod.h"
#include "api/core/v1/service.h"

namespace svcplane::controllers::endpointslice::testing {

inline api::core::v1::Service MakeService(const std::string& name = "svc",
                                          const std::string& ns = "ns") {
  api::core::v1::Service s;
  s.kind = "Service";
  s.api_version = "v1";
  s.metadata.name = name;
  s.metadata.namespace_ = ns;
  s.metadata.uid = "svc-uid-" + name;
  s.spec.cluster_ip = "10.96.0.10";
  s.spec.ip_families = {"IPv4"};
  s.spec.selector = {{"app", name}};
  api::core::v1::ServicePort p;
  p.name = "http";
  p.protocol = "TCP";
  p.port = 80;
  p.target_port = api::meta::IntOrString::FromInt(8080);
  s.spec.ports.push_back(p);
  return s;
}

// Pod i: IP 10.<i/65536>.<i/256%256>.<i%256> (+ fd00::i when dual), Running, Ready.
inline api::core::v1::Pod MakePod(int i, const std::string& ns = "ns",
                                  const std::string& node = "node-1", bool ready = true,
                                  bool dual = false) {
  api::core::v1::Pod p;
  p.metadata.name = "pod-" + std::to_string(i);
  p.metadata.namespace_ = ns;
  p.metadata.uid = "pod-uid-" + std::to_string(i);
  p.metadata.labels = {{"app", "svc"}};
  p.spec.node_name = node;
  api::core::v1::Container c;
  c.name = "app";
  api::core::v1::ContainerPort cp;
  cp.name = "http";
  cp.container_port = 8080;
  cp.protocol = "TCP";
  c.ports.push_back(cp);
  p.spec.containers.push_back(c);
  p.status.phase = "Running";
  std::string ip = "10." + std::to_string((i >> 16) & 255) + "." + std::to_string((i >> 8) & 255) +
                   "." + std::to_string(i & 255);
  p.status.pod_ip = ip;
  p.status.pod_ips.push_back({ip, {}});
  if (dual) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "fd00::%x", i);
    p.status.pod_ips.push_back({buf, {}});
  }
  api::core::v1::PodCondition cond;
  cond.type = "Ready";
  cond.status = ready ? "True" : "False";
  p.status.conditions.push_back(cond);
  return p;
}

inline api::core::v1::Node MakeNode(const std::string& name, const std::string& zone,
                                    const std::string& cpu = "1", bool ready = true) {
  api::core::v1::Node n;
  n.metadata.name = name;
  if (!zone.empty()) n.metadata.labels["topology.kubernetes.io/zone"] = zone;
  if (!cpu.empty()) n.status.allocatable["cpu"] = api::meta::Quantity{cpu};
  api::core::v1::NodeCondition c;
  c.type = "Ready";
  c.status = ready ? "True" : "False";
  n.status.conditions.push_back(c);
  return n;
}

template <typename T>
std::shared_ptr<const T> Share(T v) {
  return std::make_shared<const T>(std::move(v));
}

}  // namespace svcplane::controllers::endpointslice::testing
