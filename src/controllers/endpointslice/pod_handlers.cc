#include "controllers/endpointslice/pod_handlers.h"

#include <algorithm>
#include <iterator>

#include "api/selectors/label_selector.h"
#include "controllers/endpointslice/utils.h"

namespace svcplane::controllers::endpointslice {

PodChange ComparePods(const api::core::v1::Pod& old_pod, const api::core::v1::Pod& new_pod) {
  PodChange c;
  c.pod_changed = old_pod.metadata.deletion_timestamp.has_value() !=
                      new_pod.metadata.deletion_timestamp.has_value() ||
                  PodIsReady(old_pod) != PodIsReady(new_pod) ||
                  old_pod.status.pod_ips.size() != new_pod.status.pod_ips.size();
  for (size_t i = 0; !c.pod_changed && i < new_pod.status.pod_ips.size(); ++i) {
    c.pod_changed = old_pod.status.pod_ips[i].ip != new_pod.status.pod_ips[i].ip;
  }
  // Objects written without podIPs still carry podIP.
  c.pod_changed = c.pod_changed || old_pod.status.pod_ip != new_pod.status.pod_ip;
  c.labels_changed = old_pod.metadata.labels != new_pod.metadata.labels ||
                     old_pod.spec.hostname != new_pod.spec.hostname ||
                     old_pod.spec.subdomain != new_pod.spec.subdomain;
  return c;
}

std::vector<std::string> ServicesSelecting(
    const client::informers::Lister<api::core::v1::Service>& services, const std::string& ns,
    const api::meta::StringMap& labels) {
  std::vector<std::string> out;
  for (const auto& svc : services.List(ns)) {
    if (svc->spec.selector.empty()) continue;  // no selector: endpoints managed elsewhere
    if (!api::selectors::SelectorFromSet(svc->spec.selector).Matches(labels)) continue;
    out.push_back(svc->metadata.namespace_ + "/" + svc->metadata.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> ServicesForPodEvent(
    const client::informers::Lister<api::core::v1::Service>& services,
    const api::core::v1::Pod* old_pod, const api::core::v1::Pod& pod) {
  const std::string& ns = pod.metadata.namespace_;
  if (old_pod == nullptr) return ServicesSelecting(services, ns, pod.metadata.labels);
  if (old_pod->metadata.resource_version == pod.metadata.resource_version) return {};  // resync
  PodChange c = ComparePods(*old_pod, pod);
  if (!c.pod_changed && !c.labels_changed) return {};
  std::vector<std::string> now = ServicesSelecting(services, ns, pod.metadata.labels);
  if (!c.labels_changed) return now;
  std::vector<std::string> before = ServicesSelecting(services, ns, old_pod->metadata.labels);
  std::vector<std::string> out;
  if (c.pod_changed) {
    std::set_union(now.begin(), now.end(), before.begin(), before.end(), std::back_inserter(out));
  } else {
    // Literal upstream: only Services that gained or lost the Pod.
    std::set_symmetric_difference(now.begin(), now.end(), before.begin(), before.end(),
                                  std::back_inserter(out));
  }
  return out;
}

}  // namespace svcplane::controllers::endpointslice
