#include "apiserver/loopback/loopback_clientset.h"

#include <thread>
#include <utility>

#include <boost/json/parse.hpp>

#include "api/selectors/field_labels.h"
#include "api/selectors/field_selector.h"
#include "api/selectors/label_selector.h"
#include "apiserver/registry/apply.h"
#include "apiserver/registry/binding.h"
#include "base/check.h"

namespace svcplane::apiserver::loopback {
namespace {

using namespace api::core::v1;
using api::apps::v1::Deployment;
using api::apps::v1::ReplicaSet;
using api::coordination::v1::Lease;
using api::discovery::v1::EndpointSlice;
using api::rbac::v1::ClusterRole;
using api::rbac::v1::ClusterRoleBinding;
using api::rbac::v1::Role;
using api::rbac::v1::RoleBinding;
using client::ObjectPtr;

// client::ListOptions -> registry::ListQuery, validated as the REST layer validates the query.
Result<registry::ListQuery> ToQuery(const client::ListOptions& o, const api::ResourceInfo& info) {
  registry::ListQuery q;
  if (!o.label_selector.empty()) {
    auto sel = api::selectors::ParseLabelSelector(o.label_selector);
    if (!sel.ok()) return sel.status();
    q.label = std::move(*sel);
  }
  if (!o.field_selector.empty()) {
    auto sel = api::selectors::ParseFieldSelector(o.field_selector);
    if (!sel.ok()) return sel.status();
    auto converted = api::selectors::ConvertFieldLabels(info.resource, *sel);
    if (!converted.ok()) return converted.status();
    q.field = std::move(*converted);
  }
  q.limit = o.limit > 0 ? static_cast<size_t>(o.limit) : 0;
  q.continue_token = o.continue_token;
  q.resource_version = o.resource_version;
  if (!o.resource_version_match.empty()) {
    if (o.resource_version_match != "Exact" && o.resource_version_match != "NotOlderThan") {
      return BadRequestError("unsupported resourceVersionMatch \"" + o.resource_version_match +
                             "\"");
    }
    if (o.resource_version.empty()) {
      return BadRequestError(
          "resourceVersionMatch is forbidden unless resourceVersion is provided");
    }
    q.exact = o.resource_version_match == "Exact";
  }
  if (!q.continue_token.empty() && !q.resource_version.empty() && q.resource_version != "0") {
    return BadRequestError("specifying resource version is not allowed when using continue");
  }
  return q;
}

Result<registry::Subresource> ToSubresource(std::string_view sub, const api::ResourceInfo& info) {
  if (sub.empty()) return registry::Subresource::kNone;
  if (!info.HasSubresource(sub)) {
    return NotFoundError("the server could not find the requested resource");
  }
  if (sub == "status") return registry::Subresource::kStatus;
  if (sub == "finalize") return registry::Subresource::kFinalize;
  return NotFoundError("the server could not find the requested resource");
}

template <typename T>
class LoopbackResourceClient final : public client::ResourceClient<T> {
 public:
  // `optional`: the registry may be missing (the clientset then does not serve the kind).
  LoopbackResourceClient(registry::Registry<T>* reg, const LoopbackOptions* options,
                         bool optional = false)
      : reg_(reg), options_(options) {
    SVC_CHECK(optional || reg_ != nullptr) << "loopback clientset built without a registry";
  }
  bool served() const { return reg_ != nullptr; }

  Result<ObjectPtr<T>> Get(std::string_view ns, std::string_view name,
                           const client::GetOptions&) override {
    // Every read is served from the store's latest state, which satisfies any resourceVersion
    // constraint a Get may carry ("0": any, N: not older than N).
    auto got = reg_->Get(Ns(ns), name);
    if (!got.ok()) return got.status();
    return std::move(got->obj);
  }

  Result<client::ObjectList<T>> List(std::string_view ns,
                                     const client::ListOptions& options) override {
    auto q = ToQuery(options, reg_->info());
    if (!q.ok()) return q.status();
    auto list = reg_->List(Ns(ns), *q);
    if (!list.ok()) return list.status();
    client::ObjectList<T> out;
    out.items.reserve(list->items.size());
    for (auto& o : list->items) out.items.push_back(std::move(o.obj));
    out.resource_version = std::to_string(list->revision);
    out.continue_token = std::move(list->continue_token);
    return out;
  }

  Status Watch(std::string_view ns, const client::ListOptions& options,
               const client::WatchEventHandler<T>& handler, client::CancelToken& cancel) override {
    using Clock = std::chrono::steady_clock;
    auto q = ToQuery(options, reg_->info());
    if (!q.ok()) return q.status();
    q->limit = 0;
    storage::WatchOptions wopts;
    wopts.queue_capacity = options_->watch_queue_capacity;
    auto watch = reg_->Watch(Ns(ns), *q, wopts);
    if (!watch.ok()) return watch.status();
    registry::TypedWatch<T>* w = watch->get();
    // Stop wakes a blocked Next; WatchStream is thread-safe, so this may run on any thread.
    auto registration = cancel.OnCancel([w] { w->Stop(); });
    const auto end = options.timeout_seconds
                         ? Clock::now() + std::chrono::seconds(*options.timeout_seconds)
                         : Clock::time_point::max();
    storage::Revision bookmarked = 0;
    auto bookmark = [&] {
      auto obj = std::make_shared<T>();
      obj->metadata.resource_version = std::to_string(w->last_revision());
      bookmarked = w->last_revision();
      return handler({client::WatchEventType::kBookmark, std::move(obj)});
    };
    auto next_bookmark = Clock::now() + options_->bookmark_interval;
    constexpr size_t kWatchBatch = 256;
    bool defer_next = false;  // the last batch was not full: let the next one gather
    while (!cancel.cancelled()) {
      const auto now = Clock::now();
      if (now >= end) {
        if (options.allow_watch_bookmarks && w->last_revision() > bookmarked) bookmark();
        return Status::Ok();
      }
      if (options.allow_watch_bookmarks && now >= next_bookmark) {
        next_bookmark = now + options_->bookmark_interval;
        if (w->last_revision() > bookmarked && !bookmark()) {
          return Status::Ok();
        }
      }
      // Bounded so that no time arithmetic meets time_point::max().
      auto deadline = std::min(end, now + std::chrono::seconds(5));
      if (options.allow_watch_bookmarks) deadline = std::min(deadline, next_bookmark);
      if (std::exchange(defer_next, false)) {
        std::this_thread::sleep_for(options_->watch_batch_window);
      }
      auto batch = w->Next(kWatchBatch, deadline);
      if (!batch.ok()) {
        if (cancel.cancelled()) return Status::Ok();
        return batch.status();
      }
      if (!batch->empty() && batch->size() < kWatchBatch &&
          options_->watch_batch_window.count() > 0) {
        defer_next = true;
      }
      for (size_t i = 0; i < batch->size(); ++i) {
        auto& item = (*batch)[i];
        client::WatchEventType type = client::WatchEventType::kAdded;
        if (item.type == registry::WatchEventType::kModified) {
          type = client::WatchEventType::kModified;
        } else if (item.type == registry::WatchEventType::kDeleted) {
          type = client::WatchEventType::kDeleted;
        }
        if (!handler({type, std::move(item.object.obj), i + 1 < batch->size()})) {
          return Status::Ok();
        }
        if (cancel.cancelled()) return Status::Ok();
      }
    }
    return Status::Ok();
  }

  Result<ObjectPtr<T>> Create(const T& obj, const client::WriteOptions& options) override {
    auto created = reg_->Create(Ns(obj.metadata.namespace_), obj, Write(options));
    if (!created.ok()) return created.status();
    return std::move(created->obj);
  }

  Result<ObjectPtr<T>> Update(const T& obj, const client::WriteOptions& options) override {
    return Put(obj, registry::Subresource::kNone, options);
  }

  Result<ObjectPtr<T>> UpdateStatus(const T& obj, const client::WriteOptions& options) override {
    auto sub = ToSubresource("status", reg_->info());
    if (!sub.ok()) return sub.status();
    return Put(obj, *sub, options);
  }

  Result<ObjectPtr<T>> Patch(std::string_view ns, std::string_view name, client::PatchType type,
                             std::string_view body, const client::WriteOptions& options,
                             std::string_view subresource) override {
    auto sub = ToSubresource(subresource, reg_->info());
    if (!sub.ok()) return sub.status();
    if (type == client::PatchType::kApply) return Apply(ns, name, *sub, body, options);
    auto patched = reg_->Patch(Ns(ns), name, *sub, client::transport::PatchContentType(type), body,
                               Write(options));
    if (!patched.ok()) return patched.status();
    return std::move(patched->obj);
  }

  Status Delete(std::string_view ns, std::string_view name,
                const client::DeleteOptions& options) override {
    registry::DeleteOptions d;
    d.grace_period_seconds = options.grace_period_seconds;
    d.propagation_policy = options.propagation_policy;
    const auto& pp = d.propagation_policy;
    if (!pp.empty() && pp != "Orphan" && pp != "Background" && pp != "Foreground") {
      return BadRequestError("unsupported propagationPolicy \"" + pp + "\"");
    }
    if (!options.precondition_uid.empty()) d.precondition_uid = options.precondition_uid;
    if (!options.precondition_resource_version.empty()) {
      d.precondition_resource_version = options.precondition_resource_version;
    }
    d.dry_run = options.dry_run;
    d.user = options.user;
    auto del = reg_->Delete(Ns(ns), name, d);
    if (!del.ok()) return del.status();
    if (options_->after_delete && !options.dry_run) options_->after_delete();
    return Status::Ok();
  }

 private:
  // Cluster-scoped kinds ignore a namespace, as their REST paths have none.
  std::string_view Ns(std::string_view ns) const { return reg_->namespaced() ? ns : ""; }

  Result<ObjectPtr<T>> Put(const T& obj, registry::Subresource sub,
                           const client::WriteOptions& options) {
    if (obj.metadata.name.empty()) {
      return BadRequestError("name is required for " + std::string(reg_->info().kind));
    }
    auto updated =
        reg_->Update(Ns(obj.metadata.namespace_), obj.metadata.name, sub, obj, Write(options));
    if (!updated.ok()) return updated.status();
    return std::move(updated->obj);
  }

  // Server-side apply of a JSON body (the REST layer also takes YAML).
  Result<ObjectPtr<T>> Apply(std::string_view ns, std::string_view name, registry::Subresource sub,
                             std::string_view body, const client::WriteOptions& options) {
    if (options.field_manager.empty()) {
      return BadRequestError("fieldManager is required for apply patch");
    }
    boost::system::error_code ec;
    boost::json::value config = boost::json::parse(body, ec);
    if (ec || !config.is_object()) return BadRequestError("error decoding YAML: not a JSON object");
    registry::ApplyRequest req{.ns = Ns(ns),
                               .name = name,
                               .sub = sub,
                               .config = &config.as_object(),
                               .manager = options.field_manager,
                               .force = options.force.value_or(false)};
    bool created = false;
    auto applied = registry::ApplyConfiguration(*reg_, req, Write(options), &created);
    if (!applied.ok()) return applied.status();
    return std::move(applied->obj);
  }

  static registry::WriteOptions Write(const client::WriteOptions& options) {
    return {
        .dry_run = options.dry_run, .user = options.user, .field_manager = options.field_manager};
  }

  registry::Registry<T>* reg_;
  const LoopbackOptions* options_;
};

class LoopbackClientset final : public client::Clientset {
 public:
  LoopbackClientset(const Registries& r, LoopbackOptions options)
      : options_(std::move(options)),
        namespaces_(r.namespaces, &options_),
        services_(r.services, &options_),
        pods_(r.pods, &options_),
        nodes_(r.nodes, &options_),
        endpoints_(r.endpoints, &options_),
        events_(r.events, &options_),
        slices_(r.endpoint_slices, &options_),
        leases_(r.leases, &options_),
        roles_(r.roles, &options_, true),
        cluster_roles_(r.cluster_roles, &options_, true),
        role_bindings_(r.role_bindings, &options_, true),
        cluster_role_bindings_(r.cluster_role_bindings, &options_, true),
        deployments_(r.deployments, &options_, true),
        replica_sets_(r.replica_sets, &options_, true),
        pods_registry_(r.pods) {}

  client::ResourceClient<Namespace>& Namespaces() override { return namespaces_; }
  client::ResourceClient<Service>& Services() override { return services_; }
  client::ResourceClient<Pod>& Pods() override { return pods_; }
  client::ResourceClient<Node>& Nodes() override { return nodes_; }
  client::ResourceClient<api::core::v1::Endpoints>& Endpoints() override { return endpoints_; }
  client::ResourceClient<Event>& Events() override { return events_; }
  client::ResourceClient<EndpointSlice>& EndpointSlices() override { return slices_; }
  client::ResourceClient<Lease>& Leases() override { return leases_; }
  client::ResourceClient<Role>& Roles() override { return Served(roles_); }
  client::ResourceClient<ClusterRole>& ClusterRoles() override { return Served(cluster_roles_); }
  client::ResourceClient<RoleBinding>& RoleBindings() override { return Served(role_bindings_); }
  client::ResourceClient<ClusterRoleBinding>& ClusterRoleBindings() override {
    return Served(cluster_role_bindings_);
  }
  client::ResourceClient<Deployment>& Deployments() override { return Served(deployments_); }
  client::ResourceClient<ReplicaSet>& ReplicaSets() override { return Served(replica_sets_); }

  Status BindPod(std::string_view ns, std::string_view name, std::string_view node,
                 std::string_view uid) override {
    auto bound = registry::BindPod(*pods_registry_, ns, name,
                                   api::core::v1::BindingOf(ns, name, node, uid), {});
    return bound.ok() ? Status::Ok() : bound.status();
  }

 private:
  // The kinds whose registry is optional (Registries): unserved without one.
  template <typename T>
  client::ResourceClient<T>& Served(LoopbackResourceClient<T>& c) {
    if (c.served()) return c;
    return client::UnservedResourceClient<T>::Get();
  }

  const LoopbackOptions options_;
  LoopbackResourceClient<Namespace> namespaces_;
  LoopbackResourceClient<Service> services_;
  LoopbackResourceClient<Pod> pods_;
  LoopbackResourceClient<Node> nodes_;
  LoopbackResourceClient<api::core::v1::Endpoints> endpoints_;
  LoopbackResourceClient<Event> events_;
  LoopbackResourceClient<EndpointSlice> slices_;
  LoopbackResourceClient<Lease> leases_;
  LoopbackResourceClient<Role> roles_;
  LoopbackResourceClient<ClusterRole> cluster_roles_;
  LoopbackResourceClient<RoleBinding> role_bindings_;
  LoopbackResourceClient<ClusterRoleBinding> cluster_role_bindings_;
  LoopbackResourceClient<Deployment> deployments_;
  LoopbackResourceClient<ReplicaSet> replica_sets_;
  registry::Registry<Pod>* pods_registry_;
};

}  // namespace

std::unique_ptr<client::Clientset> MakeLoopbackClientset(const Registries& registries,
                                                         LoopbackOptions options) {
  return std::make_unique<LoopbackClientset>(registries, std::move(options));
}

}  // namespace svcplane::apiserver::loopback
