#pragma once

// The one in-memory fake of client/typed for tests that cannot (client/ must not link
// apiserver/) or should not (fault injection, exact call records) use the loopback
// MemoryClientset: client-go's fake clientset + ObjectTracker, cut down to what our tests need.
// Objects are copied on the way in and shared read-only on the way out; resourceVersions are
// checked on Update, as the API server does. Every call is recorded as an Action, and a reactor
// can fail any call with a chosen Status. For reflector tests, List and Watch can be scripted
// instead (AddList/AddWatch), as client-go's list and watch reactors.

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "api/codec/json.h"
#include "base/uuid.h"
#include "client/typed/interface.h"

namespace svcplane::client::testing {

struct Action {
  std::string verb;  // "get", "list", "create", "update", "patch", "delete"
  std::string ns;
  std::string name;
  std::string body;  // the patch body for "patch"; empty otherwise
};

// Returns a Status to fail the call (the store is not touched), or nullopt to let it through.
using Reactor = std::function<std::optional<Status>(const Action&)>;

// RFC 7386 JSON merge patch of `doc` with `patch`. Strategic merge patches of the flat fields
// our clients patch (Event count/lastTimestamp/message) merge the same way.
Result<std::string> ApplyMergePatch(std::string_view doc, std::string_view patch);

template <typename T>
class FakeResourceClient final : public ResourceClient<T> {
 public:
  using ListFn = std::function<Result<ObjectList<T>>(const ListOptions&)>;
  using WatchFn =
      std::function<Status(const ListOptions&, const WatchEventHandler<T>&, CancelToken&)>;

  Result<ObjectPtr<T>> Get(std::string_view ns, std::string_view name,
                           const GetOptions& = {}) override {
    std::lock_guard<std::mutex> l(mu_);
    if (auto st = RecordLocked({"get", std::string(ns), std::string(name), {}})) return *st;
    auto it = objects_.find(Key(ns, name));
    if (it == objects_.end()) return NotFound(name);
    return it->second;
  }

  // Unscripted: the stored objects. Scripted (after any AddList/AddWatch): the next scripted
  // answer, Unavailable once the script ran out.
  Result<ObjectList<T>> List(std::string_view ns, const ListOptions& options = {}) override {
    std::unique_lock<std::mutex> l(mu_);
    list_calls_.push_back(options);
    if (auto st = RecordLocked({"list", std::string(ns), {}, {}})) return *st;
    if (scripted_) {
      if (lists_.empty()) return UnavailableError("fake: no scripted list");
      ListFn fn = std::move(lists_.front());
      lists_.pop_front();
      l.unlock();
      return fn(options);
    }
    ObjectList<T> list;
    for (const auto& [key, obj] : objects_) {
      if (ns.empty() || key.first == ns) list.items.push_back(obj);
    }
    list.resource_version = std::to_string(rv_);
    return list;
  }

  // Unscripted: MethodNotAllowed. Scripted: the next scripted watch, or, once the script ran
  // out, a quiet watch that ends when cancelled.
  Status Watch(std::string_view, const ListOptions& options, const WatchEventHandler<T>& handler,
               CancelToken& cancel) override {
    WatchFn fn;
    {
      std::lock_guard<std::mutex> l(mu_);
      watch_calls_.push_back(options);
      if (!scripted_) return Status(Code::kMethodNotAllowed, "the fake client does not watch");
      if (!watches_.empty()) {
        fn = std::move(watches_.front());
        watches_.pop_front();
      }
    }
    if (fn) return fn(options, handler, cancel);
    while (!cancel.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return Status::Ok();
  }

  Result<ObjectPtr<T>> Create(const T& obj, const WriteOptions& = {}) override {
    std::lock_guard<std::mutex> l(mu_);
    T copy = obj;
    if (copy.metadata.name.empty() && !copy.metadata.rest->generate_name.empty()) {
      copy.metadata.name = copy.metadata.rest->generate_name + RandomNameSuffix();
    }
    const auto& m = copy.metadata;
    if (auto st = RecordLocked({"create", m.namespace_, m.name, {}})) return *st;
    auto key = Key(m.namespace_, m.name);
    if (objects_.count(key)) {
      return AlreadyExistsError(Resource() + " \"" + m.name + "\" already exists");
    }
    copy.metadata.uid = NewUuid();
    return StoreLocked(std::move(copy));
  }

  Result<ObjectPtr<T>> Update(const T& obj, const WriteOptions& = {}) override {
    std::lock_guard<std::mutex> l(mu_);
    const auto& m = obj.metadata;
    if (auto st = RecordLocked({"update", m.namespace_, m.name, {}})) return *st;
    auto it = objects_.find(Key(m.namespace_, m.name));
    if (it == objects_.end()) return NotFound(m.name);
    if (!m.resource_version.empty() &&
        m.resource_version != it->second->metadata.resource_version) {
      return ConflictError("Operation cannot be fulfilled on " + Resource() + " \"" + m.name +
                           "\": the object has been modified; please apply your changes to the "
                           "latest version and try again");
    }
    T copy = obj;
    copy.metadata.uid = it->second->metadata.uid;
    return StoreLocked(std::move(copy));
  }

  Result<ObjectPtr<T>> UpdateStatus(const T& obj, const WriteOptions& options = {}) override {
    return Update(obj, options);
  }

  Result<ObjectPtr<T>> Patch(std::string_view ns, std::string_view name, PatchType,
                             std::string_view body, const WriteOptions& = {},
                             std::string_view = "") override {
    std::lock_guard<std::mutex> l(mu_);
    if (auto st = RecordLocked({"patch", std::string(ns), std::string(name), std::string(body)})) {
      return *st;
    }
    auto it = objects_.find(Key(ns, name));
    if (it == objects_.end()) return NotFound(name);
    auto merged = ApplyMergePatch(api::codec::EncodeJson(*it->second), body);
    if (!merged.ok()) return merged.status();
    auto decoded = api::codec::DecodeJson<T>(*merged);
    if (!decoded.ok()) return decoded.status();
    return StoreLocked(std::move(*decoded));
  }

  Status Delete(std::string_view ns, std::string_view name, const DeleteOptions& = {}) override {
    std::lock_guard<std::mutex> l(mu_);
    if (auto st = RecordLocked({"delete", std::string(ns), std::string(name), {}})) return *st;
    if (objects_.erase(Key(ns, name)) == 0) return NotFound(name);
    return Status::Ok();
  }

  // Test helpers: none of them records an action or consults the reactor.

  // Queue one answer for List / one run of Watch; from then on both verbs are scripted.
  void AddList(ListFn fn) {
    std::lock_guard<std::mutex> l(mu_);
    scripted_ = true;
    lists_.push_back(std::move(fn));
  }
  void AddWatch(WatchFn fn) {
    std::lock_guard<std::mutex> l(mu_);
    scripted_ = true;
    watches_.push_back(std::move(fn));
  }
  // The options of every List / Watch call so far.
  std::vector<ListOptions> list_calls() const {
    std::lock_guard<std::mutex> l(mu_);
    return list_calls_;
  }
  std::vector<ListOptions> watch_calls() const {
    std::lock_guard<std::mutex> l(mu_);
    return watch_calls_;
  }
  void SetReactor(Reactor reactor) {
    std::lock_guard<std::mutex> l(mu_);
    reactor_ = std::move(reactor);
  }
  std::vector<Action> Actions() const {
    std::lock_guard<std::mutex> l(mu_);
    return actions_;
  }
  void ClearActions() {
    std::lock_guard<std::mutex> l(mu_);
    actions_.clear();
  }
  // Stores `obj` as is, with a new resourceVersion (a write by someone else).
  ObjectPtr<T> Put(T obj) {
    std::lock_guard<std::mutex> l(mu_);
    return StoreLocked(std::move(obj));
  }
  ObjectPtr<T> Peek(std::string_view ns, std::string_view name) const {
    std::lock_guard<std::mutex> l(mu_);
    auto it = objects_.find(Key(ns, name));
    return it == objects_.end() ? nullptr : it->second;
  }
  std::vector<ObjectPtr<T>> All() const {
    std::lock_guard<std::mutex> l(mu_);
    std::vector<ObjectPtr<T>> out;
    for (const auto& [key, obj] : objects_) out.push_back(obj);
    return out;
  }

 private:
  using ObjKey = std::pair<std::string, std::string>;
  static ObjKey Key(std::string_view ns, std::string_view name) {
    return {std::string(ns), std::string(name)};
  }
  static std::string Resource() {
    if constexpr (std::is_same_v<T, api::coordination::v1::Lease>) {
      return "leases.coordination.k8s.io";
    } else if constexpr (std::is_same_v<T, api::core::v1::Event>) {
      return "events";
    } else {
      return "objects";
    }
  }
  static Status NotFound(std::string_view name) {
    return NotFoundError(Resource() + " \"" + std::string(name) + "\" not found");
  }

  std::optional<Status> RecordLocked(Action action) {
    actions_.push_back(action);
    if (reactor_) return reactor_(action);
    return std::nullopt;
  }

  ObjectPtr<T> StoreLocked(T obj) {
    obj.metadata.resource_version = std::to_string(++rv_);
    auto ptr = std::make_shared<const T>(std::move(obj));
    objects_[Key(ptr->metadata.namespace_, ptr->metadata.name)] = ptr;
    return ptr;
  }

  mutable std::mutex mu_;
  // Guarded by mu_.
  std::map<ObjKey, ObjectPtr<T>> objects_;
  std::vector<Action> actions_;
  Reactor reactor_;
  int64_t rv_ = 0;
  bool scripted_ = false;
  std::deque<ListFn> lists_;
  std::deque<WatchFn> watches_;
  std::vector<ListOptions> list_calls_;
  std::vector<ListOptions> watch_calls_;
};

// A Clientset of fakes, one per kind.
class FakeClientset final : public Clientset {
 public:
  FakeResourceClient<api::core::v1::Namespace>& Namespaces() override { return namespaces_; }
  FakeResourceClient<api::core::v1::Service>& Services() override { return services_; }
  FakeResourceClient<api::core::v1::Pod>& Pods() override { return pods_; }
  FakeResourceClient<api::core::v1::Node>& Nodes() override { return nodes_; }
  FakeResourceClient<api::core::v1::Endpoints>& Endpoints() override { return endpoints_; }
  FakeResourceClient<api::core::v1::Event>& Events() override { return events_; }
  FakeResourceClient<api::discovery::v1::EndpointSlice>& EndpointSlices() override {
    return endpoint_slices_;
  }
  FakeResourceClient<api::coordination::v1::Lease>& Leases() override { return leases_; }
  FakeResourceClient<api::rbac::v1::Role>& Roles() override { return roles_; }
  FakeResourceClient<api::rbac::v1::ClusterRole>& ClusterRoles() override { return cluster_roles_; }
  FakeResourceClient<api::rbac::v1::RoleBinding>& RoleBindings() override { return role_bindings_; }
  FakeResourceClient<api::rbac::v1::ClusterRoleBinding>& ClusterRoleBindings() override {
    return cluster_role_bindings_;
  }
  FakeResourceClient<api::apps::v1::Deployment>& Deployments() override { return deployments_; }
  FakeResourceClient<api::apps::v1::ReplicaSet>& ReplicaSets() override { return replica_sets_; }

 private:
  FakeResourceClient<api::core::v1::Namespace> namespaces_;
  FakeResourceClient<api::core::v1::Service> services_;
  FakeResourceClient<api::core::v1::Pod> pods_;
  FakeResourceClient<api::core::v1::Node> nodes_;
  FakeResourceClient<api::core::v1::Endpoints> endpoints_;
  FakeResourceClient<api::core::v1::Event> events_;
  FakeResourceClient<api::discovery::v1::EndpointSlice> endpoint_slices_;
  FakeResourceClient<api::coordination::v1::Lease> leases_;
  FakeResourceClient<api::rbac::v1::Role> roles_;
  FakeResourceClient<api::rbac::v1::ClusterRole> cluster_roles_;
  FakeResourceClient<api::rbac::v1::RoleBinding> role_bindings_;
  FakeResourceClient<api::rbac::v1::ClusterRoleBinding> cluster_role_bindings_;
  FakeResourceClient<api::apps::v1::Deployment> deployments_;
  FakeResourceClient<api::apps::v1::ReplicaSet> replica_sets_;
};

}  // namespace svcplane::client::testing
