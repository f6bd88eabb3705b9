#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "apiserver/server/api_server.h"
#include "cmd/controllers.h"
#include "sim/sim_options.h"

namespace svcplane::cmd {

// `svcplane serve`: the API server on the embedded store, with the controllers running
// in-process over the loopback client (no HTTP, no JSON) and, optionally, simulated nodes.
struct ServeFlags {
  apiserver::server::ApiServerOptions server;
  std::string listen = "127.0.0.1:6443";
  int64_t repair_interval_seconds = 0;
  std::string event_ttl = "1h0m0s";               // a Go duration, as kube-apiserver's --event-ttl
  std::string etcd_compaction_interval = "5m0s";  // kube-apiserver's flag of that name
  // The in-process controller manager: the same flags as `svcplane controllers`. One embedded
  // server needs no election, so --leader-elect defaults to false there; servers on etcd may be
  // several, so it defaults to true (spec §4.5).
  ControllersFlags controllers;
  CLI::Option* leader_elect_option = nullptr;  // to tell "--leader-elect" given from the default
  // How long a stopping server keeps serving with /readyz failing, so that load balancers
  // drain it (kube-apiserver's --shutdown-delay-duration); "": 0s alone, 5s on etcd.
  std::string shutdown_delay;
  int controller_manager_port = 0;  // HTTPS /metrics /readyz of the controllers; 0: off
  // Hardening flags that need parsing (spec §6).
  std::string tls_min_version = "VersionTLS12";
  std::string request_timeout = "1m0s";
  std::string read_header_timeout = "32s";  // hidden: tests shorten it
  int simulate_nodes = 0;
  std::string simulate_cluster_cidr;  // "": 10.244.0.0/16, or 10.0.0.0/8 above 256 nodes
  // The --simulate-pod-* delays; the node count and CIDR come from the two flags above.
  sim::SimOptions simulate_options;
};

CLI::App* AddServeCommand(CLI::App& app, ServeFlags& flags);

// Runs until SIGTERM/SIGINT (exit 0); 1 if the server cannot start or the controllers fail.
int RunServe(ServeFlags& flags);

}  // namespace svcplane::cmd
