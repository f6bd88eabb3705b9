#pragma once

// The API server's bootstrap controller (upstream pkg/controlplane/controller.go and
// controller/{kubernetesservice,systemnamespaces}): the `kubernetes` Service in `default`, its
// endpoints through the lease reconciler, and the system namespaces, each kept on a timer.
// It runs inside the server and writes through the registries, so allocation, validation and
// watches apply to its writes as to anyone's.

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "api/core/v1/namespace.h"
#include "api/core/v1/service.h"
#include "apiserver/bootstrap/lease_reconciler.h"
#include "apiserver/registry/registry.h"
#include "base/clock.h"

namespace svcplane::apiserver::bootstrap {

struct BootstrapRegistries {
  registry::Registry<api::core::v1::Namespace>* namespaces = nullptr;
  registry::Registry<api::core::v1::Service>* services = nullptr;
  registry::Registry<api::core::v1::Endpoints>* endpoints = nullptr;
  registry::Registry<api::discovery::v1::EndpointSlice>* slices = nullptr;
};

struct BootstrapOptions {
  std::string service_ip;      // first address of the primary service range
  int32_t service_port = 443;  // the `kubernetes` Service's port
  int32_t secure_port = 6443;  // this server's port (targetPort and endpoint port)
  std::string public_ip;       // advertised address; empty: no endpoints are written
  Duration endpoint_interval = std::chrono::seconds(10);
  Duration namespace_interval = std::chrono::minutes(1);
};

// `kube-system`, `kube-public`, `kube-node-lease`, `default`: created when missing
// (AlreadyExists is success); never updated or deleted.
void EnsureSystemNamespaces(registry::Registry<api::core::v1::Namespace>& namespaces);

// Start/Stop from one thread; the loops run on their own.
class BootstrapController {
 public:
  BootstrapController(BootstrapRegistries regs, LeaseEndpointReconciler* reconciler,
                      const Clock& clock, BootstrapOptions options);
  ~BootstrapController();

  // Clears a stale lease of ours (unclean previous exit), runs one full pass at once (so the
  // Service and endpoints exist when the server starts answering), then starts the timers.
  void Start();
  // Stops the timers and removes this server's address from the endpoints.
  void Stop();

  // Creates the Service if missing; with `reconcile`, resets its ports and type if edited
  // (upstream does so only at start: "ports and type will be corrected only during start").
  Status EnsureKubernetesService(bool reconcile);
  // One tick of the endpoint loop: `default` namespace, Service, endpoints.
  Status UpdateKubernetesService(bool reconcile);

  // Loop wake-ups handled so far, so that tests on a FakeClock can wait for a tick's work.
  int64_t TicksForTest() const { return ticks_.load(); }

 private:
  void Loop();
  api::core::v1::ServicePort DesiredPort() const;
  EndpointPortSpec EndpointPort() const;

  const BootstrapRegistries regs_;
  LeaseEndpointReconciler* const reconciler_;
  const Clock& clock_;
  const BootstrapOptions options_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::atomic<int64_t> ticks_{0};
  std::thread thread_;
};

}  // namespace svcplane::apiserver::bootstrap
