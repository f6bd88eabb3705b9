// svcplane: the service-discovery control plane. main() wires subcommands and nothing else.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <csignal>
#include <iostream>

#include "apiserver/server/api_server.h"
#include "base/logging.h"
#include "cmd/controllers.h"

namespace {

// simdjson's decoder is compiled for x86-64-v3 (see src/api/codec/CMakeLists.txt).
bool CpuSupported() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") &&
         __builtin_cpu_supports("pclmul");
#else
  return true;
#endif
}

// Splits "HOST:PORT" (IPv6 as "[::1]:6443").
bool ParseListen(const std::string& listen, std::string* host, uint16_t* port) {
  auto colon = listen.rfind(':');
  if (colon == std::string::npos) return false;
  *host = listen.substr(0, colon);
  if (host->size() >= 2 && host->front() == '[' && host->back() == ']') {
    *host = host->substr(1, host->size() - 2);
  }
  try {
    int p = std::stoi(listen.substr(colon + 1));
    if (p < 0 || p > 65535) return false;
    *port = static_cast<uint16_t>(p);
  } catch (...) {
    return false;
  }
  return !host->empty();
}

int Serve(const svcplane::apiserver::server::ApiServerOptions& options) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // every thread started below inherits it
  auto server = svcplane::apiserver::server::ApiServer::Start(options);
  if (!server.ok()) {
    std::cerr << "svcplane: " << server.status().message() << "\n";
    return 1;
  }
  int sig = 0;
  sigwait(&signals, &sig);
  spdlog::info("received {}, shutting down", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  (*server)->Shutdown();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"svcplane: Kubernetes' service-discovery control plane"};
  app.require_subcommand(1);
  std::string log_level = "info";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error")
      ->capture_default_str();

  auto* version = app.add_subcommand("version", "Print the version");

  svcplane::apiserver::server::ApiServerOptions serve_opts;
  std::string listen = "127.0.0.1:6443";
  auto* serve = app.add_subcommand("serve", "Run the API server on the embedded store");
  serve->add_option("--data-dir", serve_opts.data_dir, "data folder")->capture_default_str();
  serve->add_option("--listen", listen, "HOST:PORT to serve HTTPS on")->capture_default_str();
  serve->add_option("--store", serve_opts.store, "storage backend: embedded")
      ->capture_default_str();
  serve
      ->add_option("--service-cluster-ip-range", serve_opts.service_cluster_ip_range,
                   "ClusterIP range: a CIDR, or IPv4,IPv6 CIDRs for dual stack")
      ->capture_default_str();
  serve
      ->add_option("--service-node-port-range", serve_opts.service_node_port_range,
                   "NodePort range (inclusive)")
      ->capture_default_str();
  serve->add_option("--log-level", log_level, "trace, debug, info, warn, error");
  // Hidden (empty group): integration tests shrink watch history to force 410 Gone.
  serve->add_option("--watch-history-events", serve_opts.watch_history_events)->group("");
  serve->add_option("--advertise-address", serve_opts.advertise_address,
                    "address listed in the kubernetes Service's endpoints (default: --listen's "
                    "host unless loopback, else the default-route interface's address)");
  // Hidden test hooks for the allocation repair loops.
  int64_t repair_interval_seconds = serve_opts.repair_interval.count();
  serve->add_option("--repair-interval-seconds", repair_interval_seconds)->group("");
  serve->add_flag("--debug-reset-allocations", serve_opts.debug_reset_allocations)->group("");

  svcplane::cmd::ControllersFlags controllers_flags;
  auto* controllers = svcplane::cmd::AddControllersCommand(app, controllers_flags);
  controllers->add_option("--log-level", log_level, "trace, debug, info, warn, error");

  CLI11_PARSE(app, argc, argv);
  if (auto st = svcplane::SetLogLevel(log_level); !st.ok()) {
    std::cerr << st.message() << "\n";
    return 2;
  }
  if (*version) {
    std::cout << "svcplane " << SVCPLANE_VERSION << "\n";
    return 0;
  }
  if (!CpuSupported()) {
    std::cerr << "svcplane: this build needs an x86-64-v3 CPU (AVX2, BMI2, PCLMUL)\n";
    return 1;
  }
  if (*serve) {
    if (!ParseListen(listen, &serve_opts.host, &serve_opts.port)) {
      std::cerr << "svcplane: --listen must be HOST:PORT, got \"" << listen << "\"\n";
      return 2;
    }
    serve_opts.repair_interval =
        std::chrono::seconds(std::max<int64_t>(1, repair_interval_seconds));
    return Serve(serve_opts);
  }
  if (*controllers) return svcplane::cmd::RunControllers(controllers_flags);
  return 0;
}
