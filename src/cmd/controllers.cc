#include "cmd/controllers.h"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <csignal>
#include <iostream>
#include <thread>

#include "client/informers/informer_factory.h"
#include "client/transport/failover_transport.h"
#include "client/transport/kubeconfig.h"
#include "client/typed/rest_clientset.h"
#include "cmd/register_controllers.h"
#include "controllers/manager/controller_manager.h"
#include "controllers/manager/health_serving.h"

namespace svcplane::cmd {

namespace manager = controllers::manager;

CLI::App* AddControllersCommand(CLI::App& app, ControllersFlags& f) {
  auto& o = f.options;
  auto* c = app.add_subcommand(
      "controllers", "Run the controllers against an API server (kube-controller-manager's flags)");
  c->add_option("--kubeconfig", f.kubeconfig,
                "kubeconfig file of the API server (empty: in-cluster service account)");
  c->add_option("--context", f.context, "kubeconfig context to use (default: current-context)");
  c->add_option("--server", f.servers,
                "API server URL, replacing the kubeconfig's; repeat it (or separate with commas) "
                "for several servers of one HA cluster: the client sticks to one and fails over "
                "to the next")
      ->take_all();
  c->add_option("--kube-api-content-type", f.kube_api_content_type,
                "content type of requests sent to the API server")
      ->check(CLI::IsMember({"application/vnd.kubernetes.protobuf", "application/json"}))
      ->capture_default_str();
  c->add_option("--kube-api-qps", o.kube_api_qps, "QPS to the API server")->capture_default_str();
  c->add_option("--kube-api-burst", o.kube_api_burst, "burst to the API server")
      ->capture_default_str();
  c->add_option("--bind-address", o.bind_address,
                "IP address to serve /livez /readyz /healthz /metrics on")
      ->capture_default_str();
  c->add_option("--secure-port", o.secure_port, "HTTPS port for health and metrics; 0: off")
      ->capture_default_str();
  c->add_option("--tls-cert-file", o.tls_cert_file,
                "PEM certificate (then intermediates) for --secure-port; default: a self-signed "
                "certificate generated in memory at start")
      ->check(CLI::ExistingFile);
  c->add_option("--tls-private-key-file", o.tls_private_key_file,
                "PEM private key matching --tls-cert-file")
      ->check(CLI::ExistingFile);
  c->add_option("--port", o.port,
                "DEPRECATED: insecure plain-HTTP port for health and metrics; 0: off")
      ->capture_default_str();
  AddControllerManagerFlags(c, f);
  return c;
}

void AddControllerManagerFlags(CLI::App* c, ControllersFlags& f) {
  auto& o = f.options;
  c->add_option("--controllers", o.controllers,
                "controllers to enable: '*' enables all on-by-default controllers, 'foo' "
                "enables foo, '-foo' disables foo, '' (alone) enables none")
      ->delimiter(',')
      ->capture_default_str();
  c->add_option("--leader-elect", o.leader_election.leader_elect,
                "elect a leader before running controllers (true|false)")
      ->capture_default_str()
      ->expected(0, 1)
      ->default_str("true");
  c->add_option("--leader-elect-lease-duration", f.lease_duration,
                "how long a standby waits after the last observed renewal before taking over")
      ->capture_default_str();
  c->add_option("--leader-elect-renew-deadline", f.renew_deadline,
                "how long the leader retries renewing before giving up leadership")
      ->capture_default_str();
  c->add_option("--leader-elect-retry-period", f.retry_period,
                "how long candidates wait between attempts")
      ->capture_default_str();
  c->add_option("--leader-elect-resource-lock", o.leader_election.resource_lock,
                "lock object type (only 'leases')")
      ->capture_default_str();
  c->add_option("--leader-elect-resource-namespace", o.leader_election.resource_namespace,
                "namespace of the lock object")
      ->capture_default_str();
  c->add_option("--leader-elect-resource-name", o.leader_election.resource_name,
                "name of the lock object")
      ->capture_default_str();
  c->add_option("--concurrent-endpoint-syncs", o.endpoint.concurrent_endpoint_syncs,
                "endpoints controller workers")
      ->capture_default_str();
  c->add_option("--endpoint-updates-batch-period", f.endpoint_updates_batch_period,
                "batching of endpoints updates from pod changes")
      ->capture_default_str();
  c->add_option("--concurrent-service-endpoint-syncs",
                o.endpointslice.concurrent_service_endpoint_syncs,
                "endpointslice controller workers")
      ->capture_default_str();
  c->add_option("--max-endpoints-per-slice", o.endpointslice.max_endpoints_per_slice,
                "maximum endpoints per EndpointSlice")
      ->capture_default_str();
  c->add_option("--endpointslice-rebalance", o.endpointslice.rebalance,
                "svcplane's own: compact half-empty EndpointSlices after churn (within 10% of "
                "the minimum slice count, a bounded number of extra writes per sync)")
      ->capture_default_str()
      ->expected(0, 1)
      ->default_str("false");
  c->add_option("--endpointslice-updates-batch-period", f.endpointslice_updates_batch_period,
                "batching of endpointslice updates from pod changes")
      ->capture_default_str();
  c->add_option("--mirroring-concurrent-service-endpoint-syncs",
                o.mirroring.mirroring_concurrent_service_endpoint_syncs,
                "endpointslice mirroring controller workers")
      ->capture_default_str();
  c->add_option("--mirroring-max-endpoints-per-subset",
                o.mirroring.mirroring_max_endpoints_per_subset,
                "maximum endpoints per mirrored EndpointSlice")
      ->capture_default_str();
  c->add_option("--mirroring-endpointslice-updates-batch-period",
                f.mirroring_endpointslice_updates_batch_period,
                "batching of mirrored endpointslice updates")
      ->capture_default_str();
  c->add_option("--concurrent-replicaset-syncs", o.replicaset.concurrent_replicaset_syncs,
                "replicaset controller workers")
      ->capture_default_str();
  c->add_option("--concurrent-deployment-syncs", o.deployment.concurrent_deployment_syncs,
                "deployment controller workers")
      ->capture_default_str();
}

Status ParseDurationFlags(ControllersFlags& f) {
  struct Item {
    const char* flag;
    const std::string* text;
    Duration* out;
  };
  auto& o = f.options;
  const Item items[] = {
      {"--leader-elect-lease-duration", &f.lease_duration, &o.leader_election.lease_duration},
      {"--leader-elect-renew-deadline", &f.renew_deadline, &o.leader_election.renew_deadline},
      {"--leader-elect-retry-period", &f.retry_period, &o.leader_election.retry_period},
      {"--endpoint-updates-batch-period", &f.endpoint_updates_batch_period,
       &o.endpoint.endpoint_updates_batch_period},
      {"--endpointslice-updates-batch-period", &f.endpointslice_updates_batch_period,
       &o.endpointslice.endpointslice_updates_batch_period},
      {"--mirroring-endpointslice-updates-batch-period",
       &f.mirroring_endpointslice_updates_batch_period,
       &o.mirroring.mirroring_endpointslice_updates_batch_period},
  };
  for (const Item& i : items) {
    auto d = manager::ParseGoDuration(*i.text);
    if (!d.ok()) return InvalidError(std::string(i.flag) + ": " + d.status().message());
    *i.out = *d;
  }
  return Status::Ok();
}

namespace {

Result<std::unique_ptr<client::Clientset>> MakeClientset(const ControllersFlags& f) {
  auto config = f.kubeconfig.empty() ? client::transport::InClusterConfig()
                                     : client::transport::LoadKubeconfig(f.kubeconfig, f.context);
  if (!config.ok()) return config.status();
  SVC_RETURN_IF_ERROR(client::transport::OverrideServers(f.servers, &*config));
  auto content_type = client::transport::ParseContentType(f.kube_api_content_type);
  if (!content_type.ok()) return content_type.status();
  config->qps = f.options.kube_api_qps;
  config->burst = f.options.kube_api_burst;
  config->user_agent = "svcplane-controller-manager";
  auto transport = client::transport::NewHttpTransport(*config);
  if (!transport.ok()) return transport.status();
  return client::typed::MakeRestClientset(std::move(*transport), {.content_type = *content_type});
}

}  // namespace

int RunControllers(ControllersFlags& f) {
  if (Status st = ParseDurationFlags(f); !st.ok()) {
    std::cerr << "svcplane controllers: " << st.message() << "\n";
    return 2;
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // every thread started below inherits it

  manager::ControllerRegistry registry;
  if (Status st = RegisterControllers(registry); !st.ok()) {
    std::cerr << "svcplane controllers: " << st.message() << "\n";
    return 1;
  }
  auto clientset = MakeClientset(f);
  if (!clientset.ok()) {
    std::cerr << "svcplane controllers: " << clientset.status().message() << "\n";
    return 1;
  }
  // Informers requested by the controllers start once every controller has started.
  auto informers = client::informers::MakeInformerFactory(**clientset, {});
  auto m = manager::ControllerManager::Create(
      f.options, registry, {.client = **clientset, .informers = informers.get()});
  if (!m.ok()) {
    std::cerr << "svcplane controllers: " << m.status().message() << "\n";
    return 2;
  }
  const manager::ControllerManager& cm = **m;
  auto health = manager::StartHealthServing(
      f.options, [&cm](std::string_view, std::string_view target) { return cm.ServeHttp(target); },
      std::chrono::system_clock::now());
  if (!health.ok()) {
    std::cerr << "svcplane controllers: " << health.status().message() << "\n";
    return 1;
  }
  if (health->secure != nullptr) {
    spdlog::info(
        "serving /livez /readyz /healthz /metrics on https://{}:{} ({})", f.options.bind_address,
        health->secure->port(),
        f.options.tls_cert_file.empty() ? "self-signed certificate" : f.options.tls_cert_file);
  }
  if (health->insecure != nullptr) {
    spdlog::warn("serving /livez /readyz /healthz /metrics on http://{}:{} (--port is deprecated)",
                 f.options.bind_address, health->insecure->port());
  }

  std::stop_source stop;
  std::atomic<bool> done{false};
  std::thread signal_waiter([&] {
    const timespec tick{0, 200'000'000};
    while (!done) {
      int sig = sigtimedwait(&signals, nullptr, &tick);
      if (sig == SIGTERM || sig == SIGINT) {
        spdlog::info("received {}, shutting down", sig == SIGTERM ? "SIGTERM" : "SIGINT");
        stop.request_stop();
        return;
      }
    }
  });
  Status result = (*m)->Run(stop.get_token());
  done = true;
  signal_waiter.join();
  health->Stop();
  if (!result.ok()) {
    spdlog::error("controller manager stopped: {}", result.message());
    return 1;
  }
  return 0;
}

}  // namespace svcplane::cmd
