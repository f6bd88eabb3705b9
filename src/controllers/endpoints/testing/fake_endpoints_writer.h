#pragma once

// A stateful in-memory EndpointsWriter: keeps what it is given (copies in and out), assigns
// resourceVersions like the apiserver, returns real errors (AlreadyExists, NotFound, Conflict)
// and records every write as "verb ns/name" (client-go fake clientset style).

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "controllers/endpoints/reconciler.h"

namespace svcplane::controllers::endpoints::testing {

class FakeEndpointsWriter final : public EndpointsWriter {
 public:
  Result<Endpoints> Create(const Endpoints& e) override {
    if (fail_next_) return Take();
    const std::string key = e.metadata.namespace_ + "/" + e.metadata.name;
    if (store_.contains(key)) return AlreadyExistsError("endpoints \"" + e.metadata.name + "\"");
    Endpoints c = e;
    c.metadata.resource_version = std::to_string(++rv_);
    store_[key] = std::make_shared<const Endpoints>(c);
    actions_.push_back("create " + key);
    return c;
  }
  Result<Endpoints> Update(const Endpoints& e) override {
    if (fail_next_) return Take();
    const std::string key = e.metadata.namespace_ + "/" + e.metadata.name;
    auto it = store_.find(key);
    if (it == store_.end()) return NotFoundError("endpoints \"" + e.metadata.name + "\"");
    if (!e.metadata.resource_version.empty() &&
        e.metadata.resource_version != it->second->metadata.resource_version) {
      return ConflictError("the object has been modified");
    }
    Endpoints c = e;
    c.metadata.resource_version = std::to_string(++rv_);
    it->second = std::make_shared<const Endpoints>(c);
    actions_.push_back("update " + key);
    return c;
  }
  Status Delete(const std::string& ns, const std::string& name) override {
    const std::string key = ns + "/" + name;
    actions_.push_back("delete " + key);
    if (store_.erase(key) == 0) return NotFoundError("endpoints \"" + name + "\" not found");
    return Status::Ok();
  }

  std::shared_ptr<const Endpoints> Seed(Endpoints e) {
    e.metadata.resource_version = std::to_string(++rv_);
    auto p = std::make_shared<const Endpoints>(std::move(e));
    store_[p->metadata.namespace_ + "/" + p->metadata.name] = p;
    return p;
  }
  std::shared_ptr<const Endpoints> Get(const std::string& ns, const std::string& name) const {
    auto it = store_.find(ns + "/" + name);
    return it == store_.end() ? nullptr : it->second;
  }
  const std::vector<std::string>& Actions() const { return actions_; }
  void ClearActions() { actions_.clear(); }
  void FailNext(Status s) { fail_next_ = std::move(s); }

 private:
  Status Take() {
    Status s = *fail_next_;
    fail_next_.reset();
    return s;
  }
  std::map<std::string, std::shared_ptr<const Endpoints>> store_;
  std::vector<std::string> actions_;
  std::optional<Status> fail_next_;
  int rv_ = 100;
};

}  // namespace svcplane::controllers::endpoints::testing
