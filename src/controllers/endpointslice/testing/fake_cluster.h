#pragma once

// A stateful in-memory cluster for controller wiring tests: one object store per kind that is at
// the same time the typed client (Clientset), the informer (SharedInformer + Lister) and the
// factory (InformerFactory). Writes assign uid / resourceVersion / generation like the apiserver,
// return real errors (AlreadyExists, NotFound, Conflict) and are recorded as "verb resource
// ns/name"; informer handlers are called on one delivery thread, in write order, after the write
// returned (as a real informer's would). Drain() waits until every event has been delivered.
//
// Deliberately small: no garbage collection, no watch, no patch, no field selectors.

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/selectors/label_selector.h"
#include "client/informers/interface.h"
#include "client/typed/interface.h"

namespace svcplane::controllers::endpointslice::testing {

// Runs closures in order on one thread.
class Deliverer {
 public:
  Deliverer() : thread_([this] { Loop(); }) {}
  ~Deliverer() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void Post(std::function<void()> fn) {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (stop_) return;
      queue_.push_back(std::move(fn));
    }
    cv_.notify_all();
  }
  // Blocks until everything posted so far has run.
  void Drain() {
    std::unique_lock<std::mutex> l(mu_);
    idle_cv_.wait(l, [&] { return queue_.empty() && !running_; });
  }
  void Stop() {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
    queue_.clear();
    cv_.notify_all();
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> l(mu_);
    while (true) {
      cv_.wait(l, [&] { return stop_ || !queue_.empty(); });
      if (stop_) break;
      auto fn = std::move(queue_.front());
      queue_.pop_front();
      running_ = true;
      l.unlock();
      fn();
      l.lock();
      running_ = false;
      if (queue_.empty()) idle_cv_.notify_all();
    }
    running_ = false;
    idle_cv_.notify_all();
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable idle_cv_;
  std::deque<std::function<void()>> queue_;
  bool running_ = false;
  bool stop_ = false;
  std::thread thread_;  // last: starts after the members above exist
};

class ActionLog {
 public:
  void Record(std::string a) {
    std::lock_guard<std::mutex> l(mu_);
    actions_.push_back(std::move(a));
  }
  std::vector<std::string> Actions() const {
    std::lock_guard<std::mutex> l(mu_);
    return actions_;
  }
  void Clear() {
    std::lock_guard<std::mutex> l(mu_);
    actions_.clear();
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> actions_;
};

class AlwaysSynced final : public client::informers::HandlerRegistration {
 public:
  bool HasSynced() const override { return true; }
};

template <typename T>
class FakeResource final : public client::ResourceClient<T>,
                           public client::informers::SharedInformer<T>,
                           public client::informers::Lister<T> {
 public:
  FakeResource(std::string resource, Deliverer& deliverer, ActionLog& log, int64_t& rv,
               std::mutex& rv_mu)
      : resource_(std::move(resource)), deliverer_(deliverer), log_(log), rv_(rv), rv_mu_(rv_mu) {}

  // ResourceClient.
  Result<client::ObjectPtr<T>> Get(std::string_view ns, std::string_view name,
                                   const client::GetOptions& = {}) override {
    auto obj = LookUp(ns, name, /*cached=*/false);
    if (obj == nullptr) return NotFoundError(NotFoundMessage(name));
    return obj;
  }
  Result<client::ObjectList<T>> List(std::string_view ns,
                                     const client::ListOptions& options = {}) override {
    auto selector = api::selectors::ParseLabelSelector(options.label_selector);
    if (!selector.ok()) return selector.status();
    client::ObjectList<T> out;
    out.items = ListMatching(ns, *selector, /*cached=*/false);
    return out;
  }
  Status Watch(std::string_view, const client::ListOptions&, const client::WatchEventHandler<T>&,
               client::CancelToken&) override {
    return Status(Code::kMethodNotAllowed, "the fake cluster does not watch");
  }
  Result<client::ObjectPtr<T>> Create(const T& obj, const client::WriteOptions& = {}) override {
    T c = obj;
    std::unique_lock<std::mutex> l(mu_);
    if (fail_next_create_) return Take(fail_next_create_);
    if (c.metadata.name.empty()) {
      if (c.metadata.rest->generate_name.empty())
        return InvalidError("name or generateName is required");
      c.metadata.name = c.metadata.rest->generate_name + Suffix(++generated_);
    }
    const std::string key = Key(c.metadata.namespace_, c.metadata.name);
    if (items_.contains(key)) {
      return AlreadyExistsError(resource_ + " \"" + c.metadata.name + "\" already exists");
    }
    c.metadata.uid = resource_ + "-uid-" + std::to_string(++uids_);
    c.metadata.resource_version = NextRv();
    c.metadata.rest->generation = 1;
    if (c.metadata.creation_timestamp.IsZero()) {
      c.metadata.creation_timestamp = api::meta::Time::FromUnix(1700000000);
    }
    auto p = std::make_shared<const T>(std::move(c));
    items_[key] = p;
    l.unlock();
    log_.Record("create " + resource_ + " " + key);
    Notify([p](const client::informers::ResourceEventHandler<T>& h) {
      if (h.on_add) h.on_add(p, false);
    });
    return client::ObjectPtr<T>(p);
  }
  Result<client::ObjectPtr<T>> Update(const T& obj, const client::WriteOptions& = {}) override {
    return DoUpdate(obj, "update");
  }
  Result<client::ObjectPtr<T>> UpdateStatus(const T& obj,
                                            const client::WriteOptions& = {}) override {
    return DoUpdate(obj, "update-status");
  }
  Result<client::ObjectPtr<T>> Patch(std::string_view, std::string_view, client::PatchType,
                                     std::string_view, const client::WriteOptions& = {},
                                     std::string_view = "") override {
    return Status(Code::kMethodNotAllowed, "the fake cluster does not patch");
  }
  Status Delete(std::string_view ns, std::string_view name,
                const client::DeleteOptions& = {}) override {
    std::unique_lock<std::mutex> l(mu_);
    auto it = items_.find(Key(ns, name));
    if (it == items_.end()) return NotFoundError(NotFoundMessage(name));
    auto p = it->second;
    items_.erase(it);
    l.unlock();
    log_.Record("delete " + resource_ + " " + Key(ns, name));
    Notify([p](const client::informers::ResourceEventHandler<T>& h) {
      if (h.on_delete) h.on_delete(p, false);
    });
    return Status::Ok();
  }

  // SharedInformer.
  std::shared_ptr<client::informers::HandlerRegistration> AddEventHandler(
      client::informers::ResourceEventHandler<T> handler) override {
    auto h = std::make_shared<client::informers::ResourceEventHandler<T>>(std::move(handler));
    std::vector<client::ObjectPtr<T>> replay;
    {
      std::lock_guard<std::mutex> l(mu_);
      handlers_.push_back(h);
      for (const auto& [k, v] : items_) replay.push_back(v);
    }
    for (const auto& obj : replay) {
      deliverer_.Post([h, obj] {
        if (h->on_add) h->on_add(obj, true);
      });
    }
    return std::make_shared<AlwaysSynced>();
  }
  // Only the namespace index: callers fall back to scans.
  Status AddIndexer(std::string, client::informers::IndexFunc<T>) override {
    return Status(Code::kMethodNotAllowed, "the fake cluster has no custom indexes");
  }
  Status SetTransform(std::function<client::ObjectPtr<T>(client::ObjectPtr<T>)>) override {
    return Status::Ok();
  }
  const client::informers::Lister<T>& lister() const override { return *this; }
  bool HasSynced() const override { return true; }
  std::string LastSyncResourceVersion() const override {
    std::lock_guard<std::mutex> l(rv_mu_);
    return std::to_string(rv_);
  }

  // Lister.
  client::ObjectPtr<T> Get(std::string_view ns, std::string_view name) const override {
    return LookUp(ns, name);
  }
  std::vector<client::ObjectPtr<T>> List(
      std::string_view ns, const api::selectors::LabelSelector& selector) const override {
    return ListMatching(ns, selector);
  }
  std::vector<client::ObjectPtr<T>> ByIndex(std::string_view index,
                                            std::string_view value) const override {
    if (index != client::informers::kNamespaceIndex) return {};
    return ListMatching(value, api::selectors::LabelSelector());
  }

  // Test helpers.
  void FailNextCreate(Status s) {
    std::lock_guard<std::mutex> l(mu_);
    fail_next_create_ = std::move(s);
  }
  void FailNextUpdate(Status s) {
    std::lock_guard<std::mutex> l(mu_);
    fail_next_update_ = std::move(s);
  }
  size_t Size() const {
    std::lock_guard<std::mutex> l(mu_);
    return items_.size();
  }
  // An informer falling behind: from now on the lister keeps showing the current state and the
  // handlers get nothing, while writes still succeed, until ReleaseCache() delivers the held
  // events and the lister catches up.
  void HoldCache() {
    std::lock_guard<std::mutex> l(mu_);
    frozen_ = items_;
  }
  void ReleaseCache() {
    std::vector<std::function<void()>> held;
    {
      std::lock_guard<std::mutex> l(mu_);
      frozen_.reset();
      held.swap(held_);
    }
    for (auto& fn : held) deliverer_.Post(std::move(fn));
  }

 private:
  using HandlerPtr = std::shared_ptr<client::informers::ResourceEventHandler<T>>;

  static std::string Key(std::string_view ns, std::string_view name) {
    return std::string(ns) + "/" + std::string(name);
  }
  static std::string Suffix(int n) {
    std::string s = std::to_string(n);
    return std::string(s.size() < 5 ? 5 - s.size() : 0, 'x') + s;
  }
  static Status Take(std::optional<Status>& f) {
    Status s = *f;
    f.reset();
    return s;
  }
  std::string NotFoundMessage(std::string_view name) const {
    return resource_ + " \"" + std::string(name) + "\" not found";
  }
  std::string NextRv() {
    std::lock_guard<std::mutex> l(rv_mu_);
    return std::to_string(++rv_);
  }
  // What the lister shows: the held view while the cache is held.
  const std::map<std::string, client::ObjectPtr<T>>& ViewLocked(bool cached) const {
    return cached && frozen_ ? *frozen_ : items_;
  }
  // `cached`: as the lister sees it; otherwise as the server does.
  client::ObjectPtr<T> LookUp(std::string_view ns, std::string_view name,
                              bool cached = true) const {
    std::lock_guard<std::mutex> l(mu_);
    const auto& view = ViewLocked(cached);
    auto it = view.find(Key(ns, name));
    return it == view.end() ? nullptr : it->second;
  }
  std::vector<client::ObjectPtr<T>> ListMatching(std::string_view ns,
                                                 const api::selectors::LabelSelector& sel,
                                                 bool cached = true) const {
    std::lock_guard<std::mutex> l(mu_);
    std::vector<client::ObjectPtr<T>> out;
    for (const auto& [k, v] : ViewLocked(cached)) {
      if (!ns.empty() && v->metadata.namespace_ != ns) continue;
      if (sel.Matches(v->metadata.labels)) out.push_back(v);
    }
    return out;
  }
  Result<client::ObjectPtr<T>> DoUpdate(const T& obj, const char* verb) {
    std::unique_lock<std::mutex> l(mu_);
    if (fail_next_update_) return Take(fail_next_update_);
    const std::string key = Key(obj.metadata.namespace_, obj.metadata.name);
    auto it = items_.find(key);
    if (it == items_.end()) return NotFoundError(NotFoundMessage(obj.metadata.name));
    auto old = it->second;
    if (!obj.metadata.resource_version.empty() &&
        obj.metadata.resource_version != old->metadata.resource_version) {
      return ConflictError("Operation cannot be fulfilled on " + resource_ + " \"" +
                           obj.metadata.name +
                           "\": the object has been modified; please apply your changes to the "
                           "latest version and try again");
    }
    T c = obj;
    c.metadata.uid = old->metadata.uid;
    c.metadata.creation_timestamp = old->metadata.creation_timestamp;
    c.metadata.rest->generate_name = old->metadata.rest->generate_name;
    c.metadata.rest->generation = old->metadata.rest->generation + 1;
    c.metadata.resource_version = NextRv();
    auto p = std::make_shared<const T>(std::move(c));
    it->second = p;
    l.unlock();
    log_.Record(std::string(verb) + " " + resource_ + " " + key);
    Notify([old, p](const client::informers::ResourceEventHandler<T>& h) {
      if (h.on_update) h.on_update(old, p);
    });
    return client::ObjectPtr<T>(p);
  }
  void Notify(std::function<void(const client::informers::ResourceEventHandler<T>&)> fn) {
    std::vector<HandlerPtr> handlers;
    {
      std::lock_guard<std::mutex> l(mu_);
      handlers = handlers_;
      if (frozen_) {
        for (const auto& h : handlers) held_.push_back([h, fn] { fn(*h); });
        return;
      }
    }
    for (const auto& h : handlers) deliverer_.Post([h, fn] { fn(*h); });
  }

  const std::string resource_;
  Deliverer& deliverer_;
  ActionLog& log_;
  int64_t& rv_;
  std::mutex& rv_mu_;
  mutable std::mutex mu_;
  std::map<std::string, client::ObjectPtr<T>> items_;  // guarded by mu_
  std::vector<HandlerPtr> handlers_;                   // guarded by mu_
  std::optional<Status> fail_next_create_;             // guarded by mu_
  std::optional<Status> fail_next_update_;             // guarded by mu_
  // Set while the cache is held (HoldCache): the lister's view and the undelivered events.
  std::optional<std::map<std::string, client::ObjectPtr<T>>> frozen_;  // guarded by mu_
  std::vector<std::function<void()>> held_;                            // guarded by mu_
  int generated_ = 0;                                                  // guarded by mu_
  int uids_ = 0;                                                       // guarded by mu_
};

class FakeCluster final : public client::Clientset, public client::informers::InformerFactory {
 public:
  ~FakeCluster() override { deliverer_.Stop(); }

  FakeResource<api::core::v1::Namespace>& Namespaces() override { return namespaces_; }
  FakeResource<api::core::v1::Service>& Services() override { return services_; }
  FakeResource<api::core::v1::Pod>& Pods() override { return pods_; }
  FakeResource<api::core::v1::Node>& Nodes() override { return nodes_; }
  FakeResource<api::core::v1::Endpoints>& Endpoints() override { return endpoints_; }
  FakeResource<api::core::v1::Event>& Events() override { return events_; }
  FakeResource<api::discovery::v1::EndpointSlice>& EndpointSlices() override { return slices_; }
  FakeResource<api::coordination::v1::Lease>& Leases() override { return leases_; }
  FakeResource<api::apps::v1::Deployment>& Deployments() override { return deployments_; }
  FakeResource<api::apps::v1::ReplicaSet>& ReplicaSets() override { return replica_sets_; }

  void Start() override {}
  bool WaitForCacheSync(std::chrono::milliseconds) override { return true; }
  void Shutdown() override { deliverer_.Stop(); }

  // Waits until every informer event so far has reached the handlers.
  void Drain() { deliverer_.Drain(); }
  std::vector<std::string> Actions() const { return log_.Actions(); }
  void ClearActions() { log_.Clear(); }

 private:
  // Declared first: the resources hold references to them.
  Deliverer deliverer_;
  ActionLog log_;
  std::mutex rv_mu_;
  int64_t rv_ = 1000;

  FakeResource<api::core::v1::Namespace> namespaces_{"namespaces", deliverer_, log_, rv_, rv_mu_};
  FakeResource<api::core::v1::Service> services_{"services", deliverer_, log_, rv_, rv_mu_};
  FakeResource<api::core::v1::Pod> pods_{"pods", deliverer_, log_, rv_, rv_mu_};
  FakeResource<api::core::v1::Node> nodes_{"nodes", deliverer_, log_, rv_, rv_mu_};
  FakeResource<api::core::v1::Endpoints> endpoints_{"endpoints", deliverer_, log_, rv_, rv_mu_};
  FakeResource<api::core::v1::Event> events_{"events", deliverer_, log_, rv_, rv_mu_};
  FakeResource<api::discovery::v1::EndpointSlice> slices_{"endpointslices", deliverer_, log_, rv_,
                                                          rv_mu_};
  FakeResource<api::coordination::v1::Lease> leases_{"leases", deliverer_, log_, rv_, rv_mu_};
  FakeResource<api::apps::v1::Deployment> deployments_{"deployments", deliverer_, log_, rv_,
                                                       rv_mu_};
  FakeResource<api::apps::v1::ReplicaSet> replica_sets_{"replicasets", deliverer_, log_, rv_,
                                                        rv_mu_};
};

}  // namespace svcplane::controllers::endpointslice::testing
