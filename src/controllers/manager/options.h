#pragma once

// kube-controller-manager's flags that svcplane honours, as one struct that `svcplane
// controllers` fills from the command line and every controller reads from its context.

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/go_duration.h"
#include "base/result.h"

namespace svcplane::controllers::manager {

// --leader-elect* (component-base's LeaderElectionConfiguration with kcm's defaults).
struct LeaderElectionOptions {
  bool leader_elect = true;
  Duration lease_duration = std::chrono::seconds(15);
  Duration renew_deadline = std::chrono::seconds(10);
  Duration retry_period = std::chrono::seconds(2);
  std::string resource_lock = "leases";  // the only lock type supported
  std::string resource_namespace = "kube-system";
  std::string resource_name = "svcplane-controller-manager";
};

// --concurrent-endpoint-syncs, --endpoint-updates-batch-period.
struct EndpointControllerOptions {
  int concurrent_endpoint_syncs = 5;
  Duration endpoint_updates_batch_period{0};
};

// --concurrent-service-endpoint-syncs, --max-endpoints-per-slice,
// --endpointslice-updates-batch-period.
struct EndpointSliceControllerOptions {
  int concurrent_service_endpoint_syncs = 5;
  int max_endpoints_per_slice = 100;
  Duration endpointslice_updates_batch_period{0};
  // --endpointslice-rebalance (svcplane's own): keep each Service's slices compact after churn.
  bool rebalance = false;
};

// --mirroring-concurrent-service-endpoint-syncs, --mirroring-max-endpoints-per-subset,
// --mirroring-endpointslice-updates-batch-period.
struct EndpointSliceMirroringOptions {
  int mirroring_concurrent_service_endpoint_syncs = 5;
  int mirroring_max_endpoints_per_subset = 1000;
  Duration mirroring_endpointslice_updates_batch_period{0};
};

// --concurrent-replicaset-syncs.
struct ReplicaSetControllerOptions {
  int concurrent_replicaset_syncs = 5;
};

// --concurrent-deployment-syncs.
struct DeploymentControllerOptions {
  int concurrent_deployment_syncs = 5;
};

struct ControllerManagerOptions {
  // --controllers: "*" enables every controller not disabled by default, "name" enables one,
  // "-name" disables one; the first entry naming a controller wins.
  std::vector<std::string> controllers = {"*"};
  LeaderElectionOptions leader_election;
  double kube_api_qps = 20;  // --kube-api-qps
  int kube_api_burst = 30;   // --kube-api-burst
  // Health and metrics endpoint, as kcm: HTTPS on --bind-address:--secure-port with
  // --tls-cert-file/--tls-private-key-file, or a self-signed certificate made in memory at start
  // when neither is given. Unlike kcm (0.0.0.0) we bind loopback by default: our endpoint has no
  // authentication, so exposing it is an explicit choice.
  std::string bind_address = "127.0.0.1";  // --bind-address
  int secure_port = 10257;                 // --secure-port; 0 disables HTTPS serving
  std::string tls_cert_file;               // --tls-cert-file (PEM, chain after the certificate)
  std::string tls_private_key_file;        // --tls-private-key-file
  // --port: the deprecated insecure (plain HTTP) port on the same address, off by default.
  // kcm removed it in 1.24; we keep it for probes that cannot speak TLS.
  int port = 0;

  EndpointControllerOptions endpoint;
  EndpointSliceControllerOptions endpointslice;
  EndpointSliceMirroringOptions mirroring;
  ReplicaSetControllerOptions replicaset;
  DeploymentControllerOptions deployment;
};

// Checks ranges and that the leader election timings can work (the elector validates again).
Status Validate(const ControllerManagerOptions& options);

// Go durations (base/go_duration.h), under the names the controller flags have always used.
using svcplane::FormatGoDuration;
using svcplane::ParseGoDuration;

}  // namespace svcplane::controllers::manager
