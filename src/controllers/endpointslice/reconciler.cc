#include "controllers/endpointslice/reconciler.h"

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "controllers/endpointslice/internal/family_planner.h"
#include "controllers/endpointslice/internal/service_state.h"
#include "controllers/endpointslice/utils.h"

namespace svcplane::controllers::endpointslice {
namespace {

using internal::FamilyPlan;
using internal::FamilyState;
using internal::ServiceKey;
using internal::ServiceState;
using internal::SlicePtr;
using internal::SliceRec;

void SetTriggerTime(EndpointSlice& slice, const std::optional<std::string>& trigger) {
  if (trigger) {
    slice.metadata.annotations[std::string(kTriggerTimeAnnotation)] = *trigger;
  } else {
    auto it = slice.metadata.annotations.find(kTriggerTimeAnnotation);
    if (it != slice.metadata.annotations.end()) slice.metadata.annotations.erase(it);
  }
}

std::string JoinErrors(const std::vector<std::string>& errs) {
  if (errs.size() == 1) return errs[0];
  std::string out = "[";
  for (size_t i = 0; i < errs.size(); ++i) {
    if (i) out += ", ";
    out += errs[i];
  }
  return out + "]";
}

}  // namespace

Reconciler::Reconciler(ReconcilerOptions options, TopologyCache* topology)
    : options_(options),
      topology_(topology),
      node_zones_(std::make_unique<internal::NodeZoneCache>()) {
  SVC_CHECK(options_.max_endpoints_per_slice >= 1 &&
            options_.max_endpoints_per_slice <= kMaxMaxEndpointsPerSlice)
      << "max_endpoints_per_slice must be in 1..1000, got " << options_.max_endpoints_per_slice;
}

Reconciler::~Reconciler() = default;

std::shared_ptr<ServiceState> Reconciler::StateFor(const Service& service) {
  std::lock_guard lock(mu_);
  auto& st = states_[ServiceKey(service)];
  if (!st) st = std::make_shared<ServiceState>();
  return st;
}

void Reconciler::Forget(const std::string& ns, const std::string& name) {
  std::lock_guard lock(mu_);
  states_.erase(ns + "/" + name);
}

SlicePlan Reconciler::Plan(const std::shared_ptr<const Service>& service_ptr,
                           const std::vector<std::shared_ptr<const Pod>>& pods,
                           const std::vector<std::shared_ptr<const Node>>& nodes,
                           const std::vector<SlicePtr>& existing_slices,
                           std::optional<int64_t> trigger_time_unix_nanos) {
  const Service& service = *service_ptr;
  const std::string service_key = ServiceKey(service);
  std::shared_ptr<ServiceState> st =
      options_.incremental ? StateFor(service) : std::make_shared<ServiceState>();
  std::lock_guard state_lock(st->mu);

  // 1. Bring the memo up to date with the inputs.
  const bool zones_changed = internal::UpdateNodes(*st, node_zones_->Get(nodes));
  if (!st->service || zones_changed ||
      (st->service != service_ptr && !internal::SameEndpointInputs(*st->service, service))) {
    internal::ResetState(*st, service_ptr);
  }
  st->service = service_ptr;
  internal::UpdatePods(*st, service, pods);

  SlicePlan plan;
  const size_t families = st->families.size();
  std::vector<std::vector<SlicePtr>> owned(families), not_owned(families);
  for (const auto& s : existing_slices) {
    size_t f = 0;
    while (f < families && st->families[f].address_type != s->address_type) ++f;
    if (f == families) {
      plan.to_delete_unsupported.push_back(s);
      if (topology_ != nullptr) topology_->RemoveHints(service_key, s->address_type);
      continue;
    }
    (OwnedBy(*s, service) ? owned : not_owned)[f].push_back(s);
  }
  const uint64_t epoch = ++st->epoch;
  for (size_t f = 0; f < families; ++f) internal::UpdateSlices(st->families[f], owned[f], epoch);

  // 2. Plan each address type (§5), then hints (§10, §11).
  const bool topology_on = topology_ != nullptr && TopologyHintsEnabled(service);
  const bool traffic_on = TrafficDistributionUsable(service);
  const int max = options_.max_endpoints_per_slice;
  plan.metrics.topology_label = topology_on ? "Auto" : "Disabled";
  plan.metrics.traffic_distribution_label = traffic_on ? *service.spec.traffic_distribution : "";
  for (size_t f = 0; f < families; ++f) {
    FamilyState& fs = st->families[f];
    FamilyPlan fp = internal::PlanFamily(service, fs, options_, &fs.suspects);
    fs.ClearChanged();
    plan.metrics.endpoints_added += fp.added;
    plan.metrics.endpoints_removed += fp.removed;
    plan.metrics.rebalance_moves += fp.moves;
    plan.metrics.endpoints_desired += static_cast<int>(fs.desired.size());
    fp.to_delete.insert(fp.to_delete.end(), not_owned[f].begin(), not_owned[f].end());

    // §5.3.2: a Service without endpoints keeps exactly one empty slice per address type.
    const size_t existing = owned[f].size() + not_owned[f].size();
    if (existing == fp.to_delete.size() && fp.to_create.empty()) {
      EndpointSlice placeholder = NewSlice(service, {}, fs.address_type);
      if (fp.to_delete.size() == 1 && PlaceholderEqual(*fp.to_delete[0], placeholder)) {
        fp.to_delete.clear();
        ++plan.unchanged;
      } else {
        fp.to_create.push_back(std::move(placeholder));
      }
      plan.metrics.slices_desired += 1;
    } else {
      for (const auto& [g, info] : fs.groups)
        plan.metrics.slices_desired += (info.count + max - 1) / max;
    }

    SliceInfo info;
    info.service_key = service_key;
    info.address_type = fs.address_type;
    info.to_create = std::move(fp.to_create);
    info.to_update = std::move(fp.to_update);
    const bool need_all_unchanged = topology_on || traffic_on;
    for (SliceRec* rec : fp.unchanged) {
      if (need_all_unchanged || rec->has_hints) info.unchanged.push_back(rec->obj);
    }
    std::vector<const EndpointSlice*> offered;
    for (const auto& s : info.unchanged) offered.push_back(s.get());
    if (topology_on) {
      auto events = topology_->AddHints(info);
      plan.events.insert(plan.events.end(), events.begin(), events.end());
    } else {
      if (topology_ != nullptr) {
        if (topology_->HasPopulatedHints(service_key)) {
          plan.events.push_back(
              Event{"Warning", "TopologyAwareHintsDisabled",
                    "Topology Aware Hints has been disabled, addressType: " + fs.address_type});
        }
        topology_->RemoveHints(service_key, fs.address_type);
      }
      if (!traffic_on) RemoveHintsFromSlices(info);
    }
    if (traffic_on) ReconcileTrafficDistributionHints(*service.spec.traffic_distribution, info);

    // Remember which slices stay as they are: only those can be skipped next time.
    for (auto& [ptr, rec] : fs.slices) rec.clean = false;
    for (SliceRec* rec : fp.unchanged) rec->clean = true;
    std::unordered_set<const EndpointSlice*> still(info.unchanged.size());
    for (const auto& s : info.unchanged) still.insert(s.get());
    int moved_out = 0;
    for (const EndpointSlice* s : offered) {
      if (!still.count(s)) {
        fs.slices.at(s).clean = false;
        ++moved_out;
      }
    }
    plan.unchanged += static_cast<int>(fp.unchanged.size()) - moved_out;

    for (auto& s : info.to_create) plan.to_create.push_back(std::move(s));
    for (auto& s : info.to_update) plan.to_update.push_back(std::move(s));
    plan.to_delete.insert(plan.to_delete.end(), fp.to_delete.begin(), fp.to_delete.end());
  }

  // 3. Finalize (§5.3.4): turn delete+create pairs into updates, stamp the trigger time.
  for (size_t i = 0; i < plan.to_delete.size() && !plan.to_create.empty();) {
    EndpointSlice& last = plan.to_create.back();
    const EndpointSlice& doomed = *plan.to_delete[i];
    if (doomed.address_type == last.address_type && OwnedBy(doomed, service)) {
      last.metadata.name = doomed.metadata.name;
      plan.to_update.push_back(std::move(last));
      plan.to_create.pop_back();
      plan.to_delete.erase(plan.to_delete.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  std::optional<std::string> trigger;
  if (trigger_time_unix_nanos) trigger = FormatRFC3339Nano(*trigger_time_unix_nanos);
  for (auto& s : plan.to_create) SetTriggerTime(s, trigger);
  for (auto& s : plan.to_update) SetTriggerTime(s, trigger);

  plan.metrics.slices_actual =
      static_cast<int>(existing_slices.size() + plan.to_create.size()) -
      static_cast<int>(plan.to_delete.size() + plan.to_delete_unsupported.size());
  if (plan.metrics.slices_desired == 0) plan.metrics.slices_desired = 1;

  std::vector<std::string> errs;
  for (uint32_t idx : st->memos_with_errors) errs.push_back(st->memo_pool[idx].error);
  std::sort(errs.begin(), errs.end());
  if (!errs.empty()) plan.deferred_error = NotFoundError(JoinErrors(errs));
  return plan;
}

Status Reconciler::Apply(const Service& service, const SlicePlan& plan, SliceWriter& writer,
                         SliceTracker* tracker) const {
  const std::string svc = ServiceKey(service);
  std::vector<std::string> errs;
  for (const auto& s : plan.to_delete_unsupported) {
    Status st = writer.Delete(s->metadata.namespace_, s->metadata.name);
    if (!st.ok() && st.code() != Code::kNotFound) {
      errs.push_back("error deleting " + s->metadata.name + " EndpointSlice for Service " + svc +
                     ": " + st.message());
      continue;
    }
    if (tracker != nullptr) tracker->ExpectDeletion(*s);
  }
  if (!service.metadata.deletion_timestamp) {
    for (const auto& s : plan.to_create) {
      auto created = writer.Create(s);
      if (!created.ok()) {
        for (const auto& cause : created.status().causes()) {
          // The namespace is going away; the slices would be deleted anyway.
          if (cause.type == "NamespaceTerminating") return Status::Ok();
        }
        return Status(created.status().code(), "failed to create EndpointSlice for Service " + svc +
                                                   ": " + created.status().message());
      }
      if (tracker != nullptr) tracker->Update(*created);
    }
  }
  for (const auto& s : plan.to_update) {
    auto updated = writer.Update(s);
    if (!updated.ok()) {
      return Status(updated.status().code(), "failed to update " + s.metadata.name +
                                                 " EndpointSlice for Service " + svc + ": " +
                                                 updated.status().message());
    }
    if (tracker != nullptr) tracker->Update(*updated);
  }
  for (const auto& s : plan.to_delete) {
    Status st = writer.Delete(s->metadata.namespace_, s->metadata.name);
    if (!st.ok() && st.code() != Code::kNotFound) {
      return Status(st.code(), "failed to delete " + s->metadata.name +
                                   " EndpointSlice for Service " + svc + ": " + st.message());
    }
    if (tracker != nullptr) tracker->ExpectDeletion(*s);
  }
  if (!plan.deferred_error.ok()) errs.push_back(plan.deferred_error.message());
  if (errs.empty()) return Status::Ok();
  return Status(plan.deferred_error.ok() ? Code::kInternal : plan.deferred_error.code(),
                JoinErrors(errs));
}

}  // namespace svcplane::controllers::endpointslice
