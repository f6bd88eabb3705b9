#pragma once

// e2e_bench's sizes and knobs, one field per command-line option (defaults: the sizes).

#include <string>
#include <vector>

namespace svcplane::bench::e2e {

struct Options {
  // Which phases run, in this order: idle, propagation, burst, fanout, rollout (the last only
  // when asked for: it starts the server with simulated nodes).
  std::vector<std::string> phases = {"idle", "propagation", "burst", "fanout"};
  int nodes = 100;            // Nodes the Pods are spread over (slices need them to exist)
  int setup_clients = 16;     // connections that create objects before a measurement
  int miss_after_ms = 5000;   // an event later than this counts as missed
  int timeout_seconds = 600;  // longest wait for every endpoint to be ready
  std::string log_dir;        // if set: per-flip and per-write latencies as .tsv files here

  // (c) idle: single changes to one Service on an otherwise idle server.
  int idle_changes = 200;
  int idle_interval_ms = 50;

  // (a) propagation: readiness flips through pods/status to slice watchers.
  int services = 10'000;
  int pods = 10;         // per Service
  int flip_rate = 1000;  // per second, over all clients
  int flip_seconds = 20;
  int flip_clients = 16;

  // (b) burst: Services and ready Pods created as fast as burst_clients can.
  int burst_services = 1000;
  int burst_pods = 10;
  int burst_clients = 16;

  // (d) fanout: the bench's own slice writes to many cluster-wide slice watchers.
  int fanout_watchers = 1000;
  int fanout_rate = 100;  // slice writes per second
  int fanout_seconds = 20;
  int fanout_threads = 1;  // threads reading the watchers (an epoll loop each)
  int fanout_slices = 10;  // slices the writes go round
  int fanout_writers = 4;  // connections writing them

  // (e) rollout: a Deployment on simulated nodes, created, then restarted (issue 24's sizes).
  int rollout_replicas = 10'000;
  int rollout_nodes = 1000;  // serve --simulate-nodes, unless --server-arg sets it

  bool Has(const std::string& phase) const {
    for (const auto& p : phases) {
      if (p == phase) return true;
    }
    return false;
  }
};

}  // namespace svcplane::bench::e2e
