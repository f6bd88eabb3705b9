#pragma once

// The in-process Clientset: client::Clientset calls go straight to the server's registries, so
// controllers inside `svcplane serve` get the same defaulting, validation, admission (namespace
// checks) and revision rules as REST clients, without HTTP or JSON. Returned objects are the
// registry's own shared values (the same pointer the watch cache and other readers hold).

#include <chrono>
#include <functional>
#include <memory>

#include "apiserver/registry/registry.h"
#include "client/typed/interface.h"

namespace svcplane::apiserver::loopback {

// The server's registries; every one must outlive the Clientset and any watch it runs.
struct Registries {
  registry::Registry<api::core::v1::Namespace>* namespaces = nullptr;
  registry::Registry<api::core::v1::Service>* services = nullptr;
  registry::Registry<api::core::v1::Pod>* pods = nullptr;
  registry::Registry<api::core::v1::Node>* nodes = nullptr;
  registry::Registry<api::core::v1::Endpoints>* endpoints = nullptr;
  registry::Registry<api::core::v1::Event>* events = nullptr;
  registry::Registry<api::discovery::v1::EndpointSlice>* endpoint_slices = nullptr;
  registry::Registry<api::coordination::v1::Lease>* leases = nullptr;
  // Optional: without them the clientset answers NotFound for these kinds.
  registry::Registry<api::rbac::v1::Role>* roles = nullptr;
  registry::Registry<api::rbac::v1::ClusterRole>* cluster_roles = nullptr;
  registry::Registry<api::rbac::v1::RoleBinding>* role_bindings = nullptr;
  registry::Registry<api::rbac::v1::ClusterRoleBinding>* cluster_role_bindings = nullptr;
  registry::Registry<api::apps::v1::Deployment>* deployments = nullptr;
  registry::Registry<api::apps::v1::ReplicaSet>* replica_sets = nullptr;
};

struct LoopbackOptions {
  // Called after every successful Delete, as the REST router kicks garbage collection.
  std::function<void()> after_delete;
  // A watch with allowWatchBookmarks reports its progress this often while idle.
  std::chrono::milliseconds bookmark_interval{std::chrono::seconds(10)};
  // Live events a watch may buffer before the store drops it (the watcher then re-watches).
  size_t watch_queue_capacity = 10000;
  // After handing a batch of events over, a watch waits this long before taking the next, so
  // that a busy stream wakes its informer once per window rather than once per write (each
  // wake is a thread switch in the reflector and another in the informer's delivery). The
  // first event after a quiet spell is not delayed. Zero: no wait.
  std::chrono::microseconds watch_batch_window{1000};
};

// Safe from any thread. Watch blocks the calling thread (as the REST Watch does) and returns
// promptly once `cancel` fires.
std::unique_ptr<client::Clientset> MakeLoopbackClientset(const Registries& registries,
                                                         LoopbackOptions options = {});

}  // namespace svcplane::apiserver::loopback
