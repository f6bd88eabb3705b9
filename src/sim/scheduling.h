#pragma once

// The simulator's scheduler, pure part: which node an unscheduled Pod goes to.
// Like kwok's setups with kube-scheduler, Pods need no toleration of kwok's NoSchedule taint
// when this scheduler binds them: it ignores that one taint (and only that one), so the
// examples run unchanged. Any other NoSchedule/NoExecute taint, unschedulable nodes and nodes
// not Ready=True are skipped; nodeSelector must match the node's labels.

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/types.h"

namespace svcplane::sim {

bool NodeIsReady(const api::core::v1::Node& node);
// Whether this scheduler may place `pod` on `node` (see the header comment).
bool Fits(const api::core::v1::Pod& pod, const api::core::v1::Node& node);
// A Pod the simulator schedules: no nodeName, our schedulerName (or none), not being deleted.
bool NeedsScheduling(const api::core::v1::Pod& pod, const std::string& scheduler_name);

// Least-loaded placement with round-robin among equals. Like kube-scheduler's
// percentageOfNodesToScore, a pick scores at most max(100, nodes/10) feasible nodes, starting
// where the last pick stopped, so one pick stays cheap at 5,000 nodes. Counts Pods per node
// (assumed on Pick, confirmed or moved by Observe). Not thread-safe: the simulator guards it.
class PodPlacer {
 public:
  // Index of the chosen node in `nodes`, or -1 if none fits; counts the Pod on it.
  int Pick(const api::core::v1::Pod& pod,
           const std::vector<std::shared_ptr<const api::core::v1::Node>>& nodes);
  // The informer saw `pod_key` on `node_name` ("" when unbound or deleted).
  void Observe(const std::string& pod_key, const std::string& node_name);
  // The Pod is gone, or its binding failed.
  void Forget(const std::string& pod_key) { Move(pod_key, ""); }
  int64_t Load(const std::string& node_name) const;

 private:
  void Move(const std::string& pod_key, const std::string& node_name);

  std::unordered_map<std::string, std::string> node_of_;  // pod key -> node
  std::unordered_map<std::string, int64_t> load_;         // node -> Pods
  uint64_t next_ = 0;                                     // round-robin start
};

}  // namespace svcplane::sim
