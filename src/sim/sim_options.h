#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace svcplane::sim {

// What the simulator creates and how fast its stand-ins react. Defaults follow kwok and the
// kubelet / node lifecycle controller defaults.
struct SimOptions {
  int nodes = 3;
  // Names are `<prefix><4-digit index>` from 1, as kwok's examples (sim-node-0001).
  std::string node_prefix = "sim-node-";
  std::string region = "region-1";
  std::vector<std::string> zones = {"zone-a", "zone-b", "zone-c"};
  // Pod CIDRs: the cluster CIDR split into one /node_cidr_prefix per node.
  std::string cluster_cidr = "10.244.0.0/16";
  int node_cidr_prefix = 24;
  // InternalIPs: node i gets the i-th host address of this range.
  std::string node_ip_range = "172.18.0.0/16";
  std::string cpu = "32";
  std::string memory = "256Gi";
  std::string max_pods = "110";

  // Node lease renewal (kubelet: 10 s, a quarter of the 40 s lease), +/- jitter.
  std::chrono::milliseconds heartbeat_interval{10000};
  double heartbeat_jitter = 0.1;
  int lease_duration_seconds = 40;

  // Node lifecycle: a node whose lease is older than the grace period is Ready=Unknown
  // (kube-controller-manager --node-monitor-grace-period, 40 s) checked every sync period
  // (--node-monitor-period, 5 s).
  std::chrono::milliseconds node_monitor_grace{40000};
  std::chrono::milliseconds node_monitor_period{5000};

  // Kubelet stand-in (pod_timing.h; workloads spec §5): a bound Pod shows its containers being
  // created after the create delay, runs and is Ready after the ready delay more, and a Pod being
  // deleted stays Ready and is deleted with grace 0 after the terminate delay (at most the rest
  // of its grace period). Each delay is base + a per-Pod jitter in [0, jitter). kwok's stages
  // use 1 s + up to 5 s for create and ready; these defaults are faster (Ready 1 s after
  // binding, as before the stages existed) and without jitter, so tests stay quick.
  std::chrono::milliseconds pod_create_delay{500};
  std::chrono::milliseconds pod_create_jitter{0};
  std::chrono::milliseconds pod_ready_delay{500};
  std::chrono::milliseconds pod_ready_jitter{0};
  std::chrono::milliseconds pod_terminate_delay{1000};
  std::chrono::milliseconds pod_terminate_jitter{0};

  // Concurrent writers for Pods and Nodes (each blocks on one API request).
  int workers = 8;
  int heartbeat_workers = 2;

  // Only Pods with this schedulerName (or none) are scheduled.
  std::string scheduler_name = "default-scheduler";
};

}  // namespace svcplane::sim
