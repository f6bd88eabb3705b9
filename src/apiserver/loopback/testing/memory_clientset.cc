#include "apiserver/loopback/testing/memory_clientset.h"

#include <boost/json.hpp>

#include <chrono>

#include "apiserver/patch/patch.h"
#include "base/check.h"

namespace svcplane::apiserver::loopback::testing {

using namespace api::core::v1;
using api::coordination::v1::Lease;
using api::discovery::v1::EndpointSlice;

struct MemoryClientset::Registries {
  explicit Registries(const registry::RegistryContext& ctx)
      : namespaces(ctx),
        services(ctx),
        pods(ctx),
        nodes(ctx),
        endpoints(ctx),
        events(ctx),
        slices(ctx),
        leases(ctx),
        roles(ctx),
        cluster_roles(ctx),
        role_bindings(ctx),
        cluster_role_bindings(ctx),
        deployments(ctx),
        replica_sets(ctx) {}
  registry::Registry<Namespace> namespaces;
  registry::Registry<Service> services;
  registry::Registry<Pod> pods;
  registry::Registry<Node> nodes;
  registry::Registry<api::core::v1::Endpoints> endpoints;
  registry::Registry<Event> events;
  registry::Registry<EndpointSlice> slices;
  registry::Registry<Lease> leases;
  registry::Registry<api::rbac::v1::Role> roles;
  registry::Registry<api::rbac::v1::ClusterRole> cluster_roles;
  registry::Registry<api::rbac::v1::RoleBinding> role_bindings;
  registry::Registry<api::rbac::v1::ClusterRoleBinding> cluster_role_bindings;
  registry::Registry<api::apps::v1::Deployment> deployments;
  registry::Registry<api::apps::v1::ReplicaSet> replica_sets;
};

MemoryClientset::MemoryClientset(size_t history_events, LoopbackOptions options) {
  storage::memory::MemoryStoreOptions mo;
  if (history_events > 0) {
    mo.history.max_events = history_events;
    mo.history.min_events = std::min(mo.history.min_events, history_events);
  }
  store_ = std::make_unique<storage::memory::MemoryStore>(mo);
  registry::RegistryContext ctx;
  ctx.store = store_.get();
  ctx.now_micros = [] {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  ctx.check_namespace = [this](std::string_view ns) -> Status {
    auto got = regs_->namespaces.Get("", ns);
    if (!got.ok()) return NotFoundError("namespaces \"" + std::string(ns) + "\" not found");
    return Status::Ok();
  };
  ctx.apply_patch = [](std::string_view content_type, std::string_view kind,
                       std::string_view current, std::string_view body) -> Result<std::string> {
    auto type = patch::ParsePatchType(content_type);
    if (!type.ok()) return type.status();
    boost::system::error_code ec;
    boost::json::value doc = boost::json::parse(current, ec);
    if (ec) return InternalError("stored object is not JSON: " + ec.message());
    auto patched = patch::ApplyPatch(*type, kind, doc, body);
    if (!patched.ok()) return patched.status();
    return boost::json::serialize(*patched);
  };
  regs_ = std::make_unique<Registries>(ctx);
  clients_ = MakeLoopbackClientset(
      {&regs_->namespaces, &regs_->services, &regs_->pods, &regs_->nodes, &regs_->endpoints,
       &regs_->events, &regs_->slices, &regs_->leases, &regs_->roles, &regs_->cluster_roles,
       &regs_->role_bindings, &regs_->cluster_role_bindings, &regs_->deployments,
       &regs_->replica_sets},
      std::move(options));
}

MemoryClientset::~MemoryClientset() = default;

void MemoryClientset::CreateNamespace(const std::string& name) {
  Namespace ns;
  ns.metadata.name = name;
  auto r = clients_->Namespaces().Create(ns);
  SVC_CHECK(r.ok() || r.status().code() == Code::kAlreadyExists) << r.status().ToString();
}

}  // namespace svcplane::apiserver::loopback::testing
