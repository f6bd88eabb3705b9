#include "controllers/endpoints/reconciler.h"

#include <utility>

#include "controllers/endpointslice/utils.h"

namespace svcplane::controllers::endpoints {
namespace {

bool IsHeadless(const Service& service) {
  return service.spec.cluster_ip.empty() || service.spec.cluster_ip == "None";
}

api::meta::StringMap WithoutControllerLabels(const api::meta::StringMap& labels) {
  api::meta::StringMap out = labels;
  out.erase(std::string(kHeadlessLabel));
  out.erase(std::string(kManagedByLabel));
  return out;
}

// §8.4: an Endpoints above capacity always needs a write; otherwise the annotation must be absent.
bool CapacityAnnotationSetCorrectly(const Endpoints& current) {
  if (CountAddresses(current.subsets) > kMaxCapacity) return false;
  return !current.metadata.annotations.contains(kOverCapacityAnnotation);
}

std::string Key(const std::string& ns, const std::string& name) { return ns + "/" + name; }

}  // namespace

std::vector<EndpointSubset> DesiredSubsets(const Service& service,
                                           const std::vector<std::shared_ptr<const Pod>>& pods) {
  const bool publish = service.spec.publish_not_ready_addresses;
  std::vector<EndpointSubset> subsets;
  for (const auto& pod_ptr : pods) {
    const Pod& pod = *pod_ptr;
    if (!ShouldPodBeInEndpoints(pod, publish)) continue;
    auto address = PodToEndpointAddress(pod, service);
    if (!address) continue;  // no IP of the Service's family
    const bool ready = publish || endpointslice::PodIsReady(pod);
    auto add = [&](std::vector<EndpointPort> ports) {
      EndpointSubset s;
      (ready ? s.addresses : s.not_ready_addresses).push_back(*address);
      s.ports = std::move(ports);
      subsets.push_back(std::move(s));
    };
    if (service.spec.ports.empty()) {
      // Only headless Services publish port-less addresses.
      if (service.spec.cluster_ip == "None") add({});
      continue;
    }
    for (const auto& sp : service.spec.ports) {
      auto number = endpointslice::FindPort(pod, sp);
      if (!number) continue;  // this port does not resolve on this pod
      EndpointPort port;
      port.name = sp.name;
      port.port = *number;
      port.protocol = sp.protocol.empty() ? std::string("TCP") : sp.protocol;
      port.app_protocol = sp.app_protocol;
      add({std::move(port)});
    }
  }
  return RepackSubsets(subsets);
}

Result<EndpointsPlan> Reconciler::Plan(const std::string& ns, const std::string& name,
                                       const Service* service,
                                       const std::vector<std::shared_ptr<const Pod>>& pods,
                                       const Endpoints* current) {
  EndpointsPlan plan;
  plan.ns = ns;
  plan.name = name;
  const std::string key = Key(ns, name);
  if (service == nullptr) {
    // §4.2.1: unconditional delete; forget everything about the key.
    Forget(key);
    plan.action = EndpointsPlan::Action::kDelete;
    return plan;
  }
  if (service->spec.type == "ExternalName") return plan;
  // An empty selector is "no selector" in our API model (api-types §1): Endpoints managed by
  // someone else are left alone.
  if (service->spec.selector.empty()) return plan;

  auto trigger = trigger_times_.Compute(key, *service, pods);
  std::vector<EndpointSubset> subsets = DesiredSubsets(*service, pods);

  if (current != nullptr) {
    std::lock_guard<std::mutex> l(mu_);
    auto it = stale_rv_.find(key);
    if (it != stale_rv_.end() && it->second == current->metadata.resource_version) {
      return ConflictError("endpoints informer cache is out of date, resource version " +
                           it->second + " already processed for endpoints " + key);
    }
  }

  // §8: skip when the object already says what we would write.
  if (current != nullptr && SubsetsEqualIgnoreResourceVersion(current->subsets, subsets) &&
      WithoutControllerLabels(current->metadata.labels) == service->metadata.labels &&
      CapacityAnnotationSetCorrectly(*current)) {
    return plan;
  }

  Endpoints out;
  if (current != nullptr) {
    out = *current;
    plan.action = EndpointsPlan::Action::kUpdate;
  } else {
    out.metadata.name = name;
    out.metadata.namespace_ = ns;
    plan.action = EndpointsPlan::Action::kCreate;
  }
  out.kind = "Endpoints";
  out.api_version = "v1";
  out.subsets = std::move(subsets);
  out.metadata.labels = service->metadata.labels;
  if (IsHeadless(*service)) {
    out.metadata.labels[std::string(kHeadlessLabel)] = "";
  } else {
    out.metadata.labels.erase(std::string(kHeadlessLabel));
  }
  out.metadata.labels[std::string(kManagedByLabel)] = std::string(kManagedByValue);

  auto& annotations = out.metadata.annotations;
  if (trigger) {
    annotations[std::string(kTriggerTimeAnnotation)] = endpointslice::FormatRFC3339Nano(*trigger);
  } else {
    annotations.erase(std::string(kTriggerTimeAnnotation));
  }
  plan.truncated = TruncateSubsets(&out.subsets, kMaxCapacity);
  if (plan.truncated) {
    annotations[std::string(kOverCapacityAnnotation)] = std::string(kTruncated);
  } else {
    annotations.erase(std::string(kOverCapacityAnnotation));
  }
  for (const auto& s : out.subsets) {
    plan.ready += static_cast<int>(s.addresses.size());
    plan.not_ready += static_cast<int>(s.not_ready_addresses.size());
  }
  plan.object = std::move(out);
  return plan;
}

ApplyResult Reconciler::Apply(const EndpointsPlan& plan, EndpointsWriter& writer) {
  ApplyResult result;
  const std::string key = Key(plan.ns, plan.name);
  switch (plan.action) {
    case EndpointsPlan::Action::kNone:
      return result;
    case EndpointsPlan::Action::kDelete: {
      Status s = writer.Delete(plan.ns, plan.name);
      if (!s.ok() && s.code() != Code::kNotFound) result.status = std::move(s);
      return result;
    }
    case EndpointsPlan::Action::kCreate: {
      auto created = writer.Create(plan.object);
      if (created.ok()) {
        std::lock_guard<std::mutex> l(mu_);
        stale_rv_[key] = kAwaitingCreate;
        return result;
      }
      if (created.status().code() == Code::kForbidden) {
        for (const auto& cause : created.status().causes()) {
          // The namespace is going away; its deletion removes everything anyway.
          if (cause.type == "NamespaceTerminating") return result;
        }
      }
      result.status = created.status();
      result.events.push_back(
          {"Warning", "FailedToCreateEndpoint",
           "Failed to create endpoint for service " + key + ": " + created.status().ToString()});
      return result;
    }
    case EndpointsPlan::Action::kUpdate: {
      auto updated = writer.Update(plan.object);
      if (!updated.ok()) {
        result.status = updated.status();
        result.events.push_back(
            {"Warning", "FailedToUpdateEndpoint",
             "Failed to update endpoint " + key + ": " + updated.status().ToString()});
        return result;
      }
      const std::string& old_rv = plan.object.metadata.resource_version;
      if (updated->metadata.resource_version != old_rv) {
        std::lock_guard<std::mutex> l(mu_);
        stale_rv_[key] = old_rv;
      }
      return result;
    }
  }
  return result;
}

bool Reconciler::CacheBehind(const std::string& key, const Endpoints* current) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = stale_rv_.find(key);
  if (it == stale_rv_.end()) return false;
  if (current == nullptr) return it->second == kAwaitingCreate;
  return it->second == current->metadata.resource_version;
}

void Reconciler::ObserveDeletion(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  stale_rv_.erase(key);
}

void Reconciler::Forget(const std::string& key) {
  trigger_times_.Delete(key);
  std::lock_guard<std::mutex> l(mu_);
  stale_rv_.erase(key);
}

}  // namespace svcplane::controllers::endpoints
