#include "apiserver/bootstrap/controller.h"

#include <spdlog/spdlog.h>

namespace svcplane::apiserver::bootstrap {

using api::core::v1::Namespace;
using api::core::v1::Service;

namespace {

constexpr std::string_view kDefault = "default";

Status CreateNamespaceIfNeeded(registry::Registry<Namespace>& namespaces, std::string_view name) {
  auto got = namespaces.Get("", name);
  if (got.ok()) return Status::Ok();
  if (got.status().code() != Code::kNotFound) return got.status();
  Namespace ns;
  ns.metadata.name = std::string(name);
  auto r = namespaces.Create("", std::move(ns), {});
  if (r.ok() || r.status().code() == Code::kAlreadyExists) return Status::Ok();
  return r.status();
}

}  // namespace

void EnsureSystemNamespaces(registry::Registry<Namespace>& namespaces) {
  for (std::string_view name : {"kube-system", "kube-public", "kube-node-lease", "default"}) {
    if (Status st = CreateNamespaceIfNeeded(namespaces, name); !st.ok()) {
      spdlog::warn("unable to create required kubernetes system namespace {}: {}", name,
                   st.message());
    }
  }
}

BootstrapController::BootstrapController(BootstrapRegistries regs,
                                         LeaseEndpointReconciler* reconciler, const Clock& clock,
                                         BootstrapOptions options)
    : regs_(regs), reconciler_(reconciler), clock_(clock), options_(std::move(options)) {}

BootstrapController::~BootstrapController() { Stop(); }

api::core::v1::ServicePort BootstrapController::DesiredPort() const {
  api::core::v1::ServicePort p;
  p.name = "https";
  p.protocol = "TCP";
  p.port = options_.service_port;
  p.target_port = api::meta::IntOrString::FromInt(options_.secure_port);
  return p;
}

EndpointPortSpec BootstrapController::EndpointPort() const {
  return EndpointPortSpec{.name = "https", .port = options_.secure_port, .protocol = "TCP"};
}

Status BootstrapController::EnsureKubernetesService(bool reconcile) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto cur = regs_.services->Get(kDefault, kKubernetesName);
    if (cur.ok()) {
      const Service& s = *cur->obj;
      bool format_ok = s.spec.type == "ClusterIP" && s.spec.ports.size() == 1 &&
                       s.spec.ports[0] == DesiredPort();
      if (!reconcile || format_ok) return Status::Ok();
      Service fixed = s;
      fixed.spec.ports = {DesiredPort()};
      fixed.spec.type = "ClusterIP";
      spdlog::warn("resetting the kubernetes service's ports and type");
      auto r = regs_.services->Update(kDefault, kKubernetesName, registry::Subresource::kNone,
                                      std::move(fixed), {});
      if (r.ok() || r.status().code() != Code::kConflict) return r.status();
      continue;
    }
    if (cur.status().code() != Code::kNotFound) return cur.status();
    Service svc;
    svc.metadata.name = std::string(kKubernetesName);
    svc.metadata.labels = {{"component", "apiserver"}, {"provider", "kubernetes"}};
    svc.spec.ports = {DesiredPort()};
    svc.spec.cluster_ip = options_.service_ip;
    svc.spec.ip_family_policy = "SingleStack";
    svc.spec.session_affinity = "None";
    svc.spec.type = "ClusterIP";
    auto r = regs_.services->Create(kDefault, std::move(svc), {});
    if (r.ok() || r.status().code() != Code::kAlreadyExists) return r.status();
  }
  return ConflictError("the kubernetes service keeps changing");
}

Status BootstrapController::UpdateKubernetesService(bool reconcile) {
  SVC_RETURN_IF_ERROR(CreateNamespaceIfNeeded(*regs_.namespaces, kDefault));
  SVC_RETURN_IF_ERROR(EnsureKubernetesService(reconcile));
  if (options_.public_ip.empty()) return Status::Ok();
  return reconciler_->ReconcileEndpoints(options_.public_ip, EndpointPort(), reconcile);
}

void BootstrapController::Start() {
  if (thread_.joinable()) return;
  if (!options_.public_ip.empty()) {
    Status st = reconciler_->RemoveEndpoints(options_.public_ip, EndpointPort());
    if (st.ok()) {
      spdlog::warn(
          "found stale data, removed previous endpoints on kubernetes service, "
          "apiserver didn't exit successfully previously");
    } else if (st.code() != Code::kNotFound) {
      spdlog::info("removing old endpoints from kubernetes service: {}", st.message());
    }
  }
  EnsureSystemNamespaces(*regs_.namespaces);
  if (Status st = UpdateKubernetesService(/*reconcile=*/true); !st.ok()) {
    spdlog::error("unable to sync kubernetes service: {}", st.message());
  }
  thread_ = std::thread([this] { Loop(); });
}

void BootstrapController::Loop() {
  TimePoint next_endpoints = clock_.Now() + options_.endpoint_interval;
  TimePoint next_namespaces = clock_.Now() + options_.namespace_interval;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    TimePoint deadline = std::min(next_endpoints, next_namespaces);
    if (clock_.WaitUntil(lock, cv_, deadline, [this] { return stop_; })) return;
    lock.unlock();
    const TimePoint now = clock_.Now();
    if (now >= next_namespaces) {
      EnsureSystemNamespaces(*regs_.namespaces);
      next_namespaces += options_.namespace_interval;  // non-sliding, as wait.Until
    }
    if (now >= next_endpoints) {
      if (Status st = UpdateKubernetesService(/*reconcile=*/false); !st.ok()) {
        spdlog::error("unable to sync kubernetes service: {}", st.message());
      }
      next_endpoints += options_.endpoint_interval;
      if (next_endpoints <= clock_.Now())
        next_endpoints = clock_.Now() + options_.endpoint_interval;
    }
    if (next_namespaces <= clock_.Now()) {
      next_namespaces = clock_.Now() + options_.namespace_interval;
    }
    ++ticks_;
    lock.lock();
  }
}

void BootstrapController::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (options_.public_ip.empty()) return;
  reconciler_->StopReconciling();
  Status st = reconciler_->RemoveEndpoints(options_.public_ip, EndpointPort());
  if (!st.ok() && st.code() != Code::kNotFound) {
    spdlog::error("unable to remove endpoints from kubernetes service: {}", st.message());
  }
}

}  // namespace svcplane::apiserver::bootstrap
