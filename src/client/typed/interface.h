#pragma once

// The typed client every controller talks through. Two implementations make controllers run
// unchanged in both places the product runs them:
//   - over HTTPS to any API server (client/typed/rest_clientset.h: JSON or protobuf bodies),
//   - in-process inside `svcplane serve` (apiserver/loopback: calls the registries directly,
//     with the same defaulting, validation and revision rules, sharing objects, no encoding).
// Objects come back as shared read-only values, so informer caches and listers can hand the
// very same object to every controller without copying.

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"
#include "base/result.h"
#include "client/transport/http.h"
#include "client/transport/rest_client.h"
#include "client/typed/by_kind.h"

namespace svcplane::client {

// Request options mirror metav1's (see client/transport/rest_client.h).
using transport::CancelToken;
using transport::DeleteOptions;
using transport::GetOptions;
using transport::ListOptions;
using transport::PatchType;
using transport::WriteOptions;

template <typename T>
using ObjectPtr = std::shared_ptr<const T>;

template <typename T>
struct ObjectList {
  std::vector<ObjectPtr<T>> items;
  std::string resource_version;  // the list's metadata.resourceVersion
  std::string continue_token;    // metadata.continue: more pages follow
};

enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark };

template <typename T>
struct WatchEvent {
  WatchEventType type;
  // For kBookmark only metadata.resourceVersion is meaningful.
  ObjectPtr<T> object;
  // Another event is ready right behind this one (the watch hands over a batch). A consumer
  // may hold back waking its own consumers until an event without it, or the watch's end.
  bool more_ready = false;
};

// Handles one event; return false to stop watching.
template <typename T>
using WatchEventHandler = std::function<bool(WatchEvent<T> event)>;

// One resource type's verbs, as client-go's typed clients. Namespaced calls take the namespace
// explicitly; writes take it from obj.metadata.namespace_. Errors carry the Kubernetes reason
// (test them with client/errors.h: IsNotFound, IsConflict, IsGone...). Safe from any thread.
template <typename T>
class ResourceClient {
 public:
  virtual ~ResourceClient() = default;

  virtual Result<ObjectPtr<T>> Get(std::string_view ns, std::string_view name,
                                   const GetOptions& options = {}) = 0;
  virtual Result<ObjectList<T>> List(std::string_view ns, const ListOptions& options = {}) = 0;
  // Blocks, handing each event to `handler`, until the server ends the watch (OK), the handler
  // returns false (OK), `cancel` fires (OK), or an error: kGone for a too old resourceVersion
  // (before or during the watch), kUnavailable for a broken connection, or the refusal's code.
  virtual Status Watch(std::string_view ns, const ListOptions& options,
                       const WatchEventHandler<T>& handler, CancelToken& cancel) = 0;
  virtual Result<ObjectPtr<T>> Create(const T& obj, const WriteOptions& options = {}) = 0;
  virtual Result<ObjectPtr<T>> Update(const T& obj, const WriteOptions& options = {}) = 0;
  // PUT on the status subresource (kinds without one answer NotFound, as the API does).
  virtual Result<ObjectPtr<T>> UpdateStatus(const T& obj, const WriteOptions& options = {}) = 0;
  virtual Result<ObjectPtr<T>> Patch(std::string_view ns, std::string_view name, PatchType type,
                                     std::string_view body, const WriteOptions& options = {},
                                     std::string_view subresource = "") = 0;
  virtual Status Delete(std::string_view ns, std::string_view name,
                        const DeleteOptions& options = {}) = 0;
};

// The client of a kind a Clientset does not serve: every call fails as a server without the
// resource answers (NotFound). Lets kinds be added to Clientset without touching every fake.
template <typename T>
class UnservedResourceClient final : public ResourceClient<T> {
 public:
  Result<ObjectPtr<T>> Get(std::string_view, std::string_view, const GetOptions&) override {
    return Unserved();
  }
  Result<ObjectList<T>> List(std::string_view, const ListOptions&) override { return Unserved(); }
  Status Watch(std::string_view, const ListOptions&, const WatchEventHandler<T>&,
               CancelToken&) override {
    return Unserved();
  }
  Result<ObjectPtr<T>> Create(const T&, const WriteOptions&) override { return Unserved(); }
  Result<ObjectPtr<T>> Update(const T&, const WriteOptions&) override { return Unserved(); }
  Result<ObjectPtr<T>> UpdateStatus(const T&, const WriteOptions&) override { return Unserved(); }
  Result<ObjectPtr<T>> Patch(std::string_view, std::string_view, PatchType, std::string_view,
                             const WriteOptions&, std::string_view) override {
    return Unserved();
  }
  Status Delete(std::string_view, std::string_view, const DeleteOptions&) override {
    return Unserved();
  }

  // One per kind, never freed (no destructors at exit).
  static UnservedResourceClient& Get() {
    static auto* const client = new UnservedResourceClient();
    return *client;
  }

 private:
  static Status Unserved() {
    return Status(Code::kNotFound, "the server could not find the requested resource");
  }
};

// A client per kind we serve, as client-go's kubernetes.Interface.
class Clientset {
 public:
  virtual ~Clientset() = default;

  virtual ResourceClient<api::core::v1::Namespace>& Namespaces() = 0;
  virtual ResourceClient<api::core::v1::Service>& Services() = 0;
  virtual ResourceClient<api::core::v1::Pod>& Pods() = 0;
  virtual ResourceClient<api::core::v1::Node>& Nodes() = 0;
  virtual ResourceClient<api::core::v1::Endpoints>& Endpoints() = 0;
  virtual ResourceClient<api::core::v1::Event>& Events() = 0;
  virtual ResourceClient<api::discovery::v1::EndpointSlice>& EndpointSlices() = 0;
  virtual ResourceClient<api::coordination::v1::Lease>& Leases() = 0;
  // rbac.authorization.k8s.io/v1. Not pure: clientsets that do not serve them (test fakes)
  // answer NotFound, as a server without the resource would.
  virtual ResourceClient<api::rbac::v1::Role>& Roles() {
    return UnservedResourceClient<api::rbac::v1::Role>::Get();
  }
  virtual ResourceClient<api::rbac::v1::ClusterRole>& ClusterRoles() {
    return UnservedResourceClient<api::rbac::v1::ClusterRole>::Get();
  }
  virtual ResourceClient<api::rbac::v1::RoleBinding>& RoleBindings() {
    return UnservedResourceClient<api::rbac::v1::RoleBinding>::Get();
  }
  virtual ResourceClient<api::rbac::v1::ClusterRoleBinding>& ClusterRoleBindings() {
    return UnservedResourceClient<api::rbac::v1::ClusterRoleBinding>::Get();
  }
  // apps/v1, not pure for the same reason.
  virtual ResourceClient<api::apps::v1::Deployment>& Deployments() {
    return UnservedResourceClient<api::apps::v1::Deployment>::Get();
  }
  virtual ResourceClient<api::apps::v1::ReplicaSet>& ReplicaSets() {
    return UnservedResourceClient<api::apps::v1::ReplicaSet>::Get();
  }

  // POST pods/{name}/binding, as kube-scheduler binds: sets the Pod's spec.nodeName in place
  // (same uid, one write) and its PodScheduled condition. `uid`, if set, must be the Pod's.
  // Errors as the API words them: NotFound (no such pod), Conflict (already assigned, or the uid
  // differs). Clientsets that cannot bind (test fakes) answer MethodNotAllowed, as a server
  // without the subresource would refuse the verb; callers may fall back on that.
  virtual Status BindPod(std::string_view ns, std::string_view name, std::string_view node,
                         std::string_view uid = "") {
    (void)ns, (void)name, (void)node, (void)uid;
    return Status(Code::kMethodNotAllowed, "this clientset does not implement pods/binding");
  }

  // Generic access for templates (informers): For<Pod>() is Pods().
  template <typename T>
  ResourceClient<T>& For();
};

template <typename T>
ResourceClient<T>& Clientset::For() {
  return ByKind<T>(*this);
}

}  // namespace svcplane::client
