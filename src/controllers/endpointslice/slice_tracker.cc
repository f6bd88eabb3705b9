#include "controllers/endpointslice/slice_tracker.h"

#include <unordered_set>

#include "controllers/endpointslice/utils.h"

namespace svcplane::controllers::endpointslice {

std::string SliceTracker::KeyOf(const api::discovery::v1::EndpointSlice& slice) {
  return ServiceKeyForSlice(slice);
}

void SliceTracker::Update(const api::discovery::v1::EndpointSlice& slice) {
  std::lock_guard lock(mu_);
  services_[KeyOf(slice)].generation_by_slice_uid[slice.metadata.uid] =
      slice.metadata.rest->generation;
}

void SliceTracker::ExpectDeletion(const api::discovery::v1::EndpointSlice& slice) {
  std::lock_guard lock(mu_);
  services_[KeyOf(slice)].generation_by_slice_uid[slice.metadata.uid] = kDeletionExpected;
}

bool SliceTracker::ShouldSync(const api::discovery::v1::EndpointSlice& slice) const {
  std::lock_guard lock(mu_);
  auto svc = services_.find(KeyOf(slice));
  if (svc == services_.end()) return true;
  auto it = svc->second.generation_by_slice_uid.find(slice.metadata.uid);
  if (it == svc->second.generation_by_slice_uid.end()) return true;
  return slice.metadata.rest->generation > it->second;
}

bool SliceTracker::Has(const api::discovery::v1::EndpointSlice& slice) const {
  std::lock_guard lock(mu_);
  auto svc = services_.find(KeyOf(slice));
  return svc != services_.end() && svc->second.generation_by_slice_uid.count(slice.metadata.uid);
}

bool SliceTracker::HandleDeletion(const api::discovery::v1::EndpointSlice& slice) {
  std::lock_guard lock(mu_);
  auto svc = services_.find(KeyOf(slice));
  if (svc == services_.end()) return true;
  auto& gens = svc->second.generation_by_slice_uid;
  auto it = gens.find(slice.metadata.uid);
  if (it == gens.end()) return true;
  bool expected = it->second == kDeletionExpected;
  gens.erase(it);
  return expected;
}

bool SliceTracker::StaleSlices(
    const api::core::v1::Service& service,
    const std::vector<std::shared_ptr<const api::discovery::v1::EndpointSlice>>& slices) {
  std::lock_guard lock(mu_);
  const std::string key = service.metadata.namespace_ + "/" + service.metadata.name;
  auto svc = services_.find(key);
  if (svc == services_.end()) {
    if (!service.metadata.uid.empty()) services_[key].service_uid = service.metadata.uid;
    return false;
  }
  ServiceRecord& rec = svc->second;
  // A re-created Service (new UID) must not inherit the expectations of its predecessor.
  if (!rec.service_uid.empty() && !service.metadata.uid.empty() &&
      rec.service_uid != service.metadata.uid) {
    rec.generation_by_slice_uid.clear();
  }
  if (!service.metadata.uid.empty()) rec.service_uid = service.metadata.uid;

  std::unordered_set<std::string_view> provided;
  for (const auto& s : slices) {
    provided.insert(s->metadata.uid);
    auto it = rec.generation_by_slice_uid.find(s->metadata.uid);
    if (it == rec.generation_by_slice_uid.end()) continue;
    if (it->second == kDeletionExpected || it->second > s->metadata.rest->generation) return true;
  }
  for (const auto& [uid, gen] : rec.generation_by_slice_uid) {
    if (gen != kDeletionExpected && !provided.count(uid)) return true;
  }
  return false;
}

void SliceTracker::DeleteService(const std::string& ns, const std::string& name) {
  std::lock_guard lock(mu_);
  services_.erase(ns + "/" + name);
}

}  // namespace svcplane::controllers::endpointslice
