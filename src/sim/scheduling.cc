#include "sim/scheduling.h"

#include <algorithm>
#include <limits>

#include "sim/node_factory.h"

namespace svcplane::sim {

namespace core = api::core::v1;

bool NodeIsReady(const core::Node& node) {
  for (const core::NodeCondition& c : node.status.conditions) {
    if (c.type == "Ready") return c.status == "True";
  }
  return false;
}

bool Fits(const core::Pod& pod, const core::Node& node) {
  if (node.spec.unschedulable || node.metadata.deletion_timestamp || !NodeIsReady(node)) {
    return false;
  }
  for (const core::Taint& t : node.spec.taints) {
    if (t.key == kKwokNodeKey) continue;
    if (t.effect == "NoSchedule" || t.effect == "NoExecute") return false;
  }
  for (const auto& [key, value] : pod.spec.rest->node_selector) {
    auto it = node.metadata.labels.find(key);
    if (it == node.metadata.labels.end() || it->second != value) return false;
  }
  return true;
}

bool NeedsScheduling(const core::Pod& pod, const std::string& scheduler_name) {
  if (!pod.spec.node_name.empty() || pod.metadata.deletion_timestamp) return false;
  if (pod.status.phase == "Succeeded" || pod.status.phase == "Failed") return false;
  return pod.spec.rest->scheduler_name.empty() || pod.spec.rest->scheduler_name == scheduler_name;
}

int PodPlacer::Pick(const core::Pod& pod,
                    const std::vector<std::shared_ptr<const core::Node>>& nodes) {
  int best = -1;
  int64_t best_load = std::numeric_limits<int64_t>::max();
  const size_t n = nodes.size();
  const size_t to_score = std::max<size_t>(100, n / 10);
  size_t scored = 0;
  for (size_t k = 0; k < n && scored < to_score; ++k) {
    size_t i = (next_ + k) % n;
    const core::Node& node = *nodes[i];
    if (!Fits(pod, node)) continue;
    ++scored;
    int64_t load = Load(node.metadata.name);
    if (load < best_load) {
      best = static_cast<int>(i);
      best_load = load;
    }
  }
  if (best < 0) return -1;
  next_ = static_cast<uint64_t>(best) + 1;
  Move(pod.metadata.namespace_ + "/" + pod.metadata.name, nodes[best]->metadata.name);
  return best;
}

void PodPlacer::Observe(const std::string& pod_key, const std::string& node_name) {
  // An unbound Pod we assumed keeps its assumption until the binding shows up.
  if (node_name.empty() && node_of_.count(pod_key)) return;
  Move(pod_key, node_name);
}

void PodPlacer::Move(const std::string& pod_key, const std::string& node_name) {
  auto it = node_of_.find(pod_key);
  if (it != node_of_.end()) {
    if (it->second == node_name) return;
    --load_[it->second];
    node_of_.erase(it);
  }
  if (node_name.empty()) return;
  node_of_[pod_key] = node_name;
  ++load_[node_name];
}

int64_t PodPlacer::Load(const std::string& node_name) const {
  auto it = load_.find(node_name);
  return it == load_.end() ? 0 : it->second;
}

}  // namespace svcplane::sim
