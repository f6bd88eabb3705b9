#include "controllers/mirroring/reconciler.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>

#include "api/meta/controller_ref.h"
#include "controllers/endpoints/utils.h"
#include "controllers/endpointslice/utils.h"

namespace svcplane::controllers::mirroring {
namespace {

using api::discovery::v1::Endpoint;
using api::discovery::v1::EndpointPort;
using endpointslice::kManagedByLabel;
using endpointslice::kServiceNameLabel;
using GroupKey = std::pair<std::string, uint64_t>;  // (address type, port map key)

std::string_view LabelValue(const api::meta::StringMap& m, std::string_view key) {
  auto it = m.find(key);
  return it == m.end() ? std::string_view() : std::string_view(it->second);
}

// One desired slice: an address type, a port list and the endpoints (deduplicated by key).
struct Group {
  std::string address_type;
  std::vector<EndpointPort> ports;
  std::vector<Endpoint> endpoints;
  std::unordered_map<std::string, size_t> index;  // EndpointKey -> position
};

std::vector<EndpointPort> ConvertPorts(const std::vector<api::core::v1::EndpointPort>& ports) {
  std::vector<EndpointPort> out;
  out.reserve(ports.size());
  for (const auto& p : ports) {
    EndpointPort e;
    e.name = p.name;
    e.port = p.port;
    e.protocol = p.protocol;
    e.app_protocol = p.app_protocol;
    out.push_back(std::move(e));
  }
  return out;
}

Endpoint AddressToEndpoint(const api::core::v1::EndpointAddress& a, std::string ip, bool ready) {
  Endpoint e;
  e.addresses.push_back(std::move(ip));
  e.conditions.ready = ready;  // serving / terminating stay null
  e.target_ref = a.target_ref;
  e.node_name = a.node_name;
  if (!a.hostname.empty()) e.hostname = a.hostname;
  return e;
}

api::meta::StringMap MirroredAnnotations(const Endpoints& endpoints) {
  api::meta::StringMap out = endpoints.metadata.annotations;
  out.erase(std::string(endpoints::kTriggerTimeAnnotation));
  out.erase(std::string(kLastAppliedAnnotation));
  return out;
}

api::meta::StringMap WithoutMirrorLabels(const api::meta::StringMap& labels) {
  api::meta::StringMap out = labels;
  out.erase(std::string(kManagedByLabel));
  out.erase(std::string(kServiceNameLabel));
  return out;
}

// §6: a freshly built slice (name set when it replaces `name`, else generateName).
EndpointSlice NewSlice(const Endpoints& endpoints, const Group& group, const std::string& name) {
  EndpointSlice s;
  s.kind = "EndpointSlice";
  s.api_version = "discovery.k8s.io/v1";
  s.metadata.namespace_ = endpoints.metadata.namespace_;
  if (name.empty()) {
    std::string prefix = endpoints.metadata.name + "-";
    s.metadata.rest->generate_name = prefix.size() > 253 ? endpoints.metadata.name : prefix;
  } else {
    s.metadata.name = name;
  }
  s.metadata.labels = endpoints.metadata.labels;
  s.metadata.labels[std::string(kServiceNameLabel)] = endpoints.metadata.name;
  s.metadata.labels[std::string(kManagedByLabel)] = std::string(kControllerName);
  s.metadata.annotations = MirroredAnnotations(endpoints);
  s.metadata.owner_references.push_back(
      api::meta::NewControllerRef(endpoints.metadata, "v1", "Endpoints"));
  s.address_type = group.address_type;
  s.ports = group.ports;
  s.endpoints = group.endpoints;
  return s;
}

struct Totals {
  int added = 0;
  int updated = 0;
  int removed = 0;
};

Totals TotalChanges(const EndpointSlice& existing, const Group& desired) {
  Totals t;
  std::unordered_map<std::string, const Endpoint*> have;
  for (const auto& e : existing.endpoints) have.emplace(endpointslice::EndpointKey(e), &e);
  for (const auto& e : desired.endpoints) {
    auto it = have.find(endpointslice::EndpointKey(e));
    if (it == have.end()) {
      ++t.added;
      continue;
    }
    if (endpointslice::EndpointChangedBeyondKey(*it->second, e)) ++t.updated;
    have.erase(it);
  }
  t.removed = static_cast<int>(have.size());
  return t;
}

// §5.1: the desired groups in first-seen order; addresses beyond the per-subset maximum and
// invalid IPs are counted and reported.
std::vector<Group> DesiredGroups(const Endpoints& endpoints, int max, MirrorPlan* plan) {
  std::vector<Group> groups;
  std::map<GroupKey, size_t> by_key;
  int invalid = 0, skipped = 0;
  auto group_for = [&](const std::vector<EndpointPort>& ports, std::string_view type) -> Group& {
    GroupKey key{std::string(type), endpointslice::PortMapKey(ports)};
    auto [it, inserted] = by_key.emplace(key, groups.size());
    if (inserted) groups.push_back(Group{std::string(type), ports, {}, {}});
    return groups[it->second];
  };
  for (const auto& subset : endpoints::RepackSubsets(endpoints.subsets)) {
    std::vector<EndpointPort> ports = ConvertPorts(subset.ports);
    // Both families get a group, so that an emptied family's old slice is deleted.
    group_for(ports, endpointslice::kAddressTypeIPv4);
    group_for(ports, endpointslice::kAddressTypeIPv6);
    const int total = static_cast<int>(subset.addresses.size() + subset.not_ready_addresses.size());
    int accepted = 0;
    auto take = [&](const std::vector<api::core::v1::EndpointAddress>& list, bool ready) {
      for (const auto& a : list) {
        if (accepted >= max) return;
        std::string canonical;
        auto family = endpointslice::AddressFamily(a.ip, &canonical);
        if (!family) {
          ++invalid;
          continue;
        }
        ++accepted;
        Group& g = group_for(ports, *family);
        Endpoint e = AddressToEndpoint(a, std::move(canonical), ready);
        std::string key = endpointslice::EndpointKey(e);
        if (g.index.emplace(std::move(key), g.endpoints.size()).second) {
          g.endpoints.push_back(std::move(e));
        }
      }
    };
    take(subset.addresses, true);
    take(subset.not_ready_addresses, false);
    skipped += total - accepted;
  }
  plan->metrics.addresses_skipped = skipped;
  if (invalid > 0) {
    plan->events.push_back({"Warning", "InvalidIPAddress",
                            "Skipped " + std::to_string(invalid) +
                                " invalid IP addresses when mirroring to EndpointSlices"});
  }
  if (skipped > invalid) {
    plan->events.push_back(
        {"Warning", "TooManyAddressesToMirror",
         "A max of " + std::to_string(max) +
             " addresses can be mirrored to EndpointSlices per Endpoints subset. " +
             std::to_string(skipped) + " addresses were skipped"});
  }
  return groups;
}

// §5.3.1: a create and a delete of the same address type become one update of the deleted name.
void Recycle(MirrorPlan* plan) {
  for (size_t i = 0; i < plan->to_create.size();) {
    auto del = std::find_if(plan->to_delete.begin(), plan->to_delete.end(), [&](const SlicePtr& s) {
      return s->address_type == plan->to_create[i].address_type;
    });
    if (del == plan->to_delete.end()) {
      ++i;
      continue;
    }
    EndpointSlice s = std::move(plan->to_create[i]);
    s.metadata.name = (*del)->metadata.name;
    s.metadata.rest->generate_name.clear();
    plan->to_update.push_back(std::move(s));
    plan->to_create.erase(plan->to_create.begin() + static_cast<std::ptrdiff_t>(i));
    plan->to_delete.erase(del);
  }
}

}  // namespace

bool ShouldMirror(const Endpoints& endpoints) {
  if (LabelValue(endpoints.metadata.labels, kSkipMirrorLabel) == "true") return false;
  return !endpoints.metadata.annotations.contains(kLeaderAnnotation);
}

bool ManagedByMirroring(const EndpointSlice& slice) {
  return LabelValue(slice.metadata.labels, kManagedByLabel) == kControllerName;
}

std::vector<SlicePtr> MirroredSlices(const Endpoints& endpoints, const std::vector<SlicePtr>& all) {
  std::vector<SlicePtr> out;
  for (const auto& s : all) {
    if (s->metadata.namespace_ != endpoints.metadata.namespace_) continue;
    if (LabelValue(s->metadata.labels, kServiceNameLabel) != endpoints.metadata.name) continue;
    if (!s->metadata.labels.contains(kServiceNameLabel) || !ManagedByMirroring(*s)) continue;
    out.push_back(s);
  }
  return out;
}

std::vector<std::string> EndpointsToSyncForSliceChange(const EndpointSlice* old_slice,
                                                       const EndpointSlice& new_slice,
                                                       bool tracker_should_sync) {
  std::vector<std::string> out;
  auto push = [&](const EndpointSlice& s) {
    std::string key = endpointslice::ServiceKeyForSlice(s);
    if (!key.empty() && std::find(out.begin(), out.end(), key) == out.end()) out.push_back(key);
  };
  if (old_slice == nullptr) {
    if (ManagedByMirroring(new_slice) && tracker_should_sync) push(new_slice);
    return out;
  }
  if (LabelValue(old_slice->metadata.labels, kServiceNameLabel) !=
      LabelValue(new_slice.metadata.labels, kServiceNameLabel)) {
    push(new_slice);
    push(*old_slice);
    return out;
  }
  const bool managed_changed = ManagedByMirroring(*old_slice) != ManagedByMirroring(new_slice);
  if (managed_changed || (ManagedByMirroring(new_slice) && tracker_should_sync)) push(new_slice);
  return out;
}

MirrorPlan Plan(const Endpoints& endpoints, const std::vector<SlicePtr>& existing,
                const MirroringOptions& options) {
  MirrorPlan plan;
  const int max = std::clamp(options.max_endpoints_per_subset, 1, 1000);
  std::vector<Group> groups = DesiredGroups(endpoints, max, &plan);

  std::map<GroupKey, std::vector<SlicePtr>> existing_by_group;
  for (const auto& s : existing) {
    GroupKey key{s->address_type,
                 endpointslice::PortMapKey(s->ports.value_or(std::vector<EndpointPort>{}))};
    existing_by_group[key].push_back(s);
  }
  const api::meta::StringMap annotations = MirroredAnnotations(endpoints);
  auto remove_all = [&](const std::vector<SlicePtr>& slices) {
    for (const auto& s : slices) {
      plan.metrics.endpoints_removed += static_cast<int>(s->endpoints.size());
      plan.to_delete.push_back(s);
    }
  };
  for (const Group& g : groups) {
    auto it = existing_by_group.find(GroupKey{g.address_type, endpointslice::PortMapKey(g.ports)});
    std::vector<SlicePtr> have;
    if (it != existing_by_group.end()) {
      have = std::move(it->second);
      existing_by_group.erase(it);
    }
    const int n = static_cast<int>(g.endpoints.size());
    if (n == 0) {
      remove_all(have);
      continue;
    }
    plan.metrics.endpoints_desired += n;
    plan.metrics.slices_desired += (n + max - 1) / max;
    if (have.empty()) {
      plan.metrics.endpoints_added += n;
      plan.to_create.push_back(NewSlice(endpoints, g, ""));
      continue;
    }
    // Keep the first slice of the group; any other is a leftover.
    for (size_t i = 1; i < have.size(); ++i) plan.to_delete.push_back(have[i]);
    const EndpointSlice& kept = *have[0];
    Totals t = TotalChanges(kept, g);
    plan.metrics.endpoints_added += t.added;
    plan.metrics.endpoints_updated += t.updated;
    plan.metrics.endpoints_removed += t.removed;
    if (t.added == 0 && t.updated == 0 && t.removed == 0 &&
        endpoints.metadata.labels == WithoutMirrorLabels(kept.metadata.labels) &&
        annotations == kept.metadata.annotations) {
      continue;
    }
    plan.to_update.push_back(NewSlice(endpoints, g, kept.metadata.name));
  }
  for (const auto& [key, slices] : existing_by_group) remove_all(slices);

  Recycle(&plan);
  plan.metrics.slices_actual = static_cast<int>(existing.size() + plan.to_create.size()) -
                               static_cast<int>(plan.to_delete.size());
  return plan;
}

MirrorPlan PlanCleanup(const std::vector<SlicePtr>& existing) {
  MirrorPlan plan;
  for (const auto& s : existing) {
    plan.metrics.endpoints_removed += static_cast<int>(s->endpoints.size());
    plan.to_delete.push_back(s);
  }
  return plan;
}

Status Apply(const std::string& ns, const std::string& name, bool endpoints_terminating,
             const MirrorPlan& plan, endpointslice::SliceWriter& writer,
             endpointslice::SliceTracker* tracker) {
  const std::string key = ns + "/" + name;
  if (!endpoints_terminating) {
    for (const auto& s : plan.to_create) {
      auto created = writer.Create(s);
      if (!created.ok()) {
        for (const auto& cause : created.status().causes()) {
          if (cause.type == "NamespaceTerminating") return Status::Ok();
        }
        return Status(created.status().code(), "failed to create EndpointSlice for Endpoints " +
                                                   key + ": " + created.status().message());
      }
      if (tracker != nullptr) tracker->Update(*created);
    }
  }
  for (const auto& s : plan.to_update) {
    auto updated = writer.Update(s);
    if (!updated.ok()) {
      return Status(updated.status().code(), "failed to update " + s.metadata.name +
                                                 " EndpointSlice for Endpoints " + key + ": " +
                                                 updated.status().message());
    }
    if (tracker != nullptr) tracker->Update(*updated);
  }
  for (const auto& s : plan.to_delete) {
    Status st = writer.Delete(s->metadata.namespace_, s->metadata.name);
    if (!st.ok()) {
      return Status(st.code(), "failed to delete " + s->metadata.name +
                                   " EndpointSlice for Endpoints " + key + ": " + st.message());
    }
    if (tracker != nullptr) tracker->ExpectDeletion(*s);
  }
  return Status::Ok();
}

Status ApplyCleanup(const std::string& ns, const std::string& name, const MirrorPlan& plan,
                    endpointslice::SliceWriter& writer, endpointslice::SliceTracker* tracker) {
  int failed = 0;
  Status first;
  for (const auto& s : plan.to_delete) {
    Status st = writer.Delete(s->metadata.namespace_, s->metadata.name);
    if (!st.ok()) {
      if (failed++ == 0) first = st;
      continue;
    }
    if (tracker != nullptr) tracker->ExpectDeletion(*s);
  }
  if (failed == 0) return Status::Ok();
  return Status(first.code(), "error(s) deleting " + std::to_string(failed) + "/" +
                                  std::to_string(plan.to_delete.size()) + " EndpointSlices for " +
                                  ns + "/" + name + " Endpoints, including: " + first.message());
}

}  // namespace svcplane::controllers::mirroring
