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

namespace {

std::string IndexValue(const std::string& ns, const std::string& key, const std::string& value) {
  return ns + "/" + key + "=" + value;
}

std::vector<std::string> PairValues(const std::string& ns, const api::meta::StringMap& m) {
  std::vector<std::string> out;
  out.reserve(m.size());
  for (const auto& [k, v] : m) out.push_back(IndexValue(ns, k, v));
  return out;
}

bool Ok(const Status& s) { return s.ok() || s.code() == Code::kAlreadyExists; }

}  // namespace

SelectionIndexes AddSelectionIndexes(
    client::informers::SharedInformer<api::core::v1::Pod>& pods,
    client::informers::SharedInformer<api::core::v1::Service>& services) {
  SelectionIndexes out;
  out.pods = Ok(pods.AddIndexer(kPodLabelIndex, [](const api::core::v1::Pod& p) {
    return PairValues(p.metadata.namespace_, p.metadata.labels);
  }));
  out.services = Ok(services.AddIndexer(kServiceSelectorIndex, [](const api::core::v1::Service& s) {
    return PairValues(s.metadata.namespace_, s.spec.selector);
  }));
  return out;
}

bool AddSliceServiceIndex(
    client::informers::SharedInformer<api::discovery::v1::EndpointSlice>& slices) {
  return Ok(slices.AddIndexer(kSliceServiceIndex, [](const api::discovery::v1::EndpointSlice& s) {
    std::string key = ServiceKeyForSlice(s);
    return key.empty() ? std::vector<std::string>{} : std::vector<std::string>{key};
  }));
}

std::vector<client::ObjectPtr<api::discovery::v1::EndpointSlice>> SlicesLabelledFor(
    const client::informers::Lister<api::discovery::v1::EndpointSlice>& slices, bool indexed,
    const std::string& ns, const std::string& name, std::string_view managed_by) {
  if (!indexed) {
    return slices.List(ns, api::selectors::SelectorFromSet(
                               {{std::string(kServiceNameLabel), name},
                                {std::string(kManagedByLabel), std::string(managed_by)}}));
  }
  std::vector<client::ObjectPtr<api::discovery::v1::EndpointSlice>> out;
  for (auto& s : slices.ByIndex(kSliceServiceIndex, ns + "/" + name)) {
    auto it = s->metadata.labels.find(kManagedByLabel);
    if (it != s->metadata.labels.end() && it->second == managed_by) out.push_back(std::move(s));
  }
  return out;
}

std::vector<client::ObjectPtr<api::core::v1::Pod>> PodsForService(
    const client::informers::Lister<api::core::v1::Pod>& pods, const api::core::v1::Service& svc,
    const SelectionIndexes& indexes) {
  const auto& selector = svc.spec.selector;
  if (selector.empty()) return {};
  if (!indexes.pods) {
    return pods.List(svc.metadata.namespace_, api::selectors::SelectorFromSet(selector));
  }
  // Every selected Pod carries the selector's first pair; check the rest on that bucket.
  const auto& [key, value] = *selector.begin();
  auto candidates = pods.ByIndex(kPodLabelIndex, IndexValue(svc.metadata.namespace_, key, value));
  std::vector<client::ObjectPtr<api::core::v1::Pod>> out;
  out.reserve(candidates.size());
  for (auto& p : candidates) {
    bool match = true;
    for (const auto& [k, v] : selector) {
      auto it = p->metadata.labels.find(k);
      if (it == p->metadata.labels.end() || it->second != v) {
        match = false;
        break;
      }
    }
    if (match) out.push_back(std::move(p));
  }
  return out;
}

std::vector<std::string> ServicesSelecting(
    const client::informers::Lister<api::core::v1::Service>& services, const std::string& ns,
    const api::meta::StringMap& labels, const SelectionIndexes& indexes) {
  std::vector<client::ObjectPtr<api::core::v1::Service>> candidates;
  if (indexes.services) {
    // A Service selecting these labels has every selector pair among them: look up each label.
    for (const auto& value : PairValues(ns, labels)) {
      auto bucket = services.ByIndex(kServiceSelectorIndex, value);
      candidates.insert(candidates.end(), bucket.begin(), bucket.end());
    }
  } else {
    candidates = services.List(ns);
  }
  std::vector<std::string> out;
  for (const auto& svc : candidates) {
    if (svc->spec.selector.empty()) continue;  // no selector: endpoints managed elsewhere
    if (!api::selectors::SelectorFromSet(svc->spec.selector).Matches(labels)) continue;
    out.push_back(svc->metadata.namespace_ + "/" + svc->metadata.name);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> ServicesForPodEvent(
    const client::informers::Lister<api::core::v1::Service>& services,
    const api::core::v1::Pod* old_pod, const api::core::v1::Pod& pod,
    const SelectionIndexes& indexes) {
  const std::string& ns = pod.metadata.namespace_;
  if (old_pod == nullptr) return ServicesSelecting(services, ns, pod.metadata.labels, indexes);
  if (old_pod->metadata.resource_version == pod.metadata.resource_version) return {};  // resync
  PodChange c = ComparePods(*old_pod, pod);
  if (!c.pod_changed && !c.labels_changed) return {};
  std::vector<std::string> now = ServicesSelecting(services, ns, pod.metadata.labels, indexes);
  if (!c.labels_changed) return now;
  std::vector<std::string> before =
      ServicesSelecting(services, ns, old_pod->metadata.labels, indexes);
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
