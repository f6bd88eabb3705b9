#pragma once

#include <chrono>
#include <memory>

#include "base/result.h"
#include "controllers/manager/health_server.h"
#include "controllers/manager/options.h"

namespace svcplane::controllers::manager {

// The manager's health and metrics listeners, as kube-controller-manager sets up its
// SecureServing: HTTPS on --bind-address:--secure-port, and the deprecated plain-HTTP --port.
struct HealthServing {
  std::unique_ptr<HealthServer> secure;    // null when --secure-port=0
  std::unique_ptr<HealthServer> insecure;  // null when --port=0
  std::string ca_pem;  // the in-memory CA behind a self-signed certificate; empty otherwise

  // Stops both listeners (each joins its thread). Idempotent.
  void Stop();
};

// Starts what the options ask for. The HTTPS certificate is --tls-cert-file/--tls-private-key-file
// when given, otherwise generated in memory at `now` as kcm's MaybeDefaultWithSelfSignedCerts
// does: "localhost" with SANs localhost and 127.0.0.1, plus --bind-address unless it is a
// wildcard. Invalid for unreadable or mismatched files; Unavailable when a port cannot be bound.
Result<HealthServing> StartHealthServing(const ControllerManagerOptions& options,
                                         HealthServer::Handler handler,
                                         std::chrono::system_clock::time_point now);

}  // namespace svcplane::controllers::manager
