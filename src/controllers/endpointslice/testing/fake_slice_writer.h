#pragma once

// A stateful in-memory SliceWriter: stores what it is given (deep copies in and out), assigns
// names, UIDs, generations and resourceVersions the way the apiserver does, returns real errors
// (NotFound, AlreadyExists, Conflict) and records every write.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "controllers/endpointslice/reconciler.h"

namespace svcplane::controllers::endpointslice::testing {

class FakeSliceWriter final : public SliceWriter {
 public:
  struct Action {
    std::string verb;  // "create" | "update" | "delete"
    std::string name;
    bool operator==(const Action&) const = default;
  };

  Result<api::discovery::v1::EndpointSlice> Create(
      const api::discovery::v1::EndpointSlice& slice) override {
    if (fail_next_create_) return TakeFailure(fail_next_create_);
    api::discovery::v1::EndpointSlice c = slice;
    if (c.metadata.name.empty())
      c.metadata.name = c.metadata.rest->generate_name + Suffix(++names_);
    if (store_.count(c.metadata.name)) {
      return AlreadyExistsError("endpointslices \"" + c.metadata.name + "\" already exists");
    }
    c.metadata.uid = "uid-" + std::to_string(++uids_);
    c.metadata.rest->generation = 1;
    c.metadata.resource_version = std::to_string(++rv_);
    store_[c.metadata.name] = std::make_shared<const api::discovery::v1::EndpointSlice>(c);
    actions_.push_back({"create", c.metadata.name});
    return c;
  }

  Result<api::discovery::v1::EndpointSlice> Update(
      const api::discovery::v1::EndpointSlice& slice) override {
    if (fail_next_update_) return TakeFailure(fail_next_update_);
    auto it = store_.find(slice.metadata.name);
    if (it == store_.end()) {
      return NotFoundError("endpointslices \"" + slice.metadata.name + "\" not found");
    }
    if (!slice.metadata.resource_version.empty() &&
        slice.metadata.resource_version != it->second->metadata.resource_version) {
      return ConflictError("the object has been modified");
    }
    api::discovery::v1::EndpointSlice c = slice;
    c.metadata.uid = it->second->metadata.uid;
    c.metadata.rest->generate_name = it->second->metadata.rest->generate_name;
    c.metadata.rest->generation = it->second->metadata.rest->generation + 1;
    c.metadata.resource_version = std::to_string(++rv_);
    it->second = std::make_shared<const api::discovery::v1::EndpointSlice>(c);
    actions_.push_back({"update", c.metadata.name});
    return c;
  }

  Status Delete(const std::string& ns, const std::string& name) override {
    (void)ns;
    auto it = store_.find(name);
    if (it == store_.end()) return NotFoundError("endpointslices \"" + name + "\" not found");
    store_.erase(it);
    actions_.push_back({"delete", name});
    return Status::Ok();
  }

  // Puts an object straight into the store (as if another writer or an earlier run made it).
  std::shared_ptr<const api::discovery::v1::EndpointSlice> Seed(
      api::discovery::v1::EndpointSlice slice) {
    if (slice.metadata.name.empty()) slice.metadata.name = "seed-" + std::to_string(++names_);
    if (slice.metadata.uid.empty()) slice.metadata.uid = "uid-" + std::to_string(++uids_);
    if (slice.metadata.rest->generation == 0) slice.metadata.rest->generation = 1;
    slice.metadata.resource_version = std::to_string(++rv_);
    auto p = std::make_shared<const api::discovery::v1::EndpointSlice>(std::move(slice));
    store_[p->metadata.name] = p;
    return p;
  }

  // The stored slices in name order, as an informer cache would hand them out.
  std::vector<std::shared_ptr<const api::discovery::v1::EndpointSlice>> Slices() const {
    std::vector<std::shared_ptr<const api::discovery::v1::EndpointSlice>> out;
    for (const auto& [name, s] : store_) out.push_back(s);
    return out;
  }

  const std::vector<Action>& Actions() const { return actions_; }
  void ClearActions() { actions_.clear(); }
  int Count(const std::string& verb) const {
    int n = 0;
    for (const auto& a : actions_) n += a.verb == verb ? 1 : 0;
    return n;
  }
  void FailNextCreate(Status s) { fail_next_create_ = std::move(s); }
  void FailNextUpdate(Status s) { fail_next_update_ = std::move(s); }

 private:
  static Status TakeFailure(std::optional<Status>& f) {
    Status s = *f;
    f.reset();
    return s;
  }
  static std::string Suffix(int n) {
    // Five characters, like the apiserver's random suffix, but deterministic.
    std::string s = std::to_string(n);
    return std::string(s.size() < 5 ? 5 - s.size() : 0, 'x') + s;
  }

  std::map<std::string, std::shared_ptr<const api::discovery::v1::EndpointSlice>> store_;
  std::vector<Action> actions_;
  std::optional<Status> fail_next_create_;
  std::optional<Status> fail_next_update_;
  int names_ = 0;
  int uids_ = 0;
  int rv_ = 0;
};

}  // namespace svcplane::controllers::endpointslice::testing
