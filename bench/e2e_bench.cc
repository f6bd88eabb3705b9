// End-to-end benchmark of the EndpointSlice path through the real binary: starts
// `svcplane serve` as a child process and drives it only over HTTPS on 127.0.0.1 from this
// process. Phases (--phases, all by default, run in this order on one server):
//   idle         one change at a time to a Service -> a JSON and a protobuf watcher
//   propagation  readiness flips through pods/status -> slice events at external watchers
//   burst        Services and ready Pods created at full speed -> all endpoints ready
//   fanout       the bench's own slice writes -> many protobuf watchers of every slice
//   rollout      (only when named) a Deployment on simulated nodes, created, then restarted
// Prints a table like apiserver_bench; exits 1 if a phase failed or missed events.
//
//   build/bench/e2e_bench                      # the sizes (10,000 x 10 ...)
//   build/bench/e2e_bench --services 20 --pods 3 --flip-rate 100 --flip-seconds 2
//       --burst-services 20 --burst-pods 3 --fanout-watchers 20 --fanout-seconds 2  # quick
//   build/bench/e2e_bench --phases rollout     # 10,000 replicas on 1,000 simulated nodes

#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "bench/common/server_process.h"
#include "bench/common/table.h"
#include "bench/e2e/cluster.h"
#include "bench/e2e/phases.h"

namespace svcplane::bench::e2e {
namespace {

void AddOptions(CLI::App& app, Options& o) {
  auto* phases =
      app.add_option("--phases", o.phases, "phases to run: idle,propagation,burst,fanout,rollout")
          ->delimiter(',')
          ->check(CLI::IsMember({"idle", "propagation", "burst", "fanout", "rollout"}));
  phases->capture_default_str();
  app.add_option("--nodes", o.nodes, "Nodes the Pods are spread over")->capture_default_str();
  app.add_option("--setup-clients", o.setup_clients, "connections creating objects for a phase")
      ->capture_default_str();
  app.add_option("--miss-after-ms", o.miss_after_ms, "an event later than this is missed")
      ->capture_default_str();
  app.add_option("--timeout-seconds", o.timeout_seconds, "longest wait for endpoints to be ready")
      ->capture_default_str();
  app.add_option("--idle-changes", o.idle_changes, "idle: Service patches")->capture_default_str();
  app.add_option("--idle-interval-ms", o.idle_interval_ms, "idle: pause between patches")
      ->capture_default_str();
  app.add_option("--services", o.services, "propagation: Services")->capture_default_str();
  app.add_option("--pods", o.pods, "propagation: Pods per Service")->capture_default_str();
  app.add_option("--flip-rate", o.flip_rate, "propagation: readiness flips per second")
      ->capture_default_str();
  app.add_option("--flip-seconds", o.flip_seconds, "propagation: how long to flip")
      ->capture_default_str();
  app.add_option("--flip-clients", o.flip_clients, "propagation: connections writing flips")
      ->capture_default_str();
  app.add_option("--burst-services", o.burst_services, "burst: Services")->capture_default_str();
  app.add_option("--burst-pods", o.burst_pods, "burst: Pods per Service")->capture_default_str();
  app.add_option("--burst-clients", o.burst_clients, "burst: connections writing")
      ->capture_default_str();
  app.add_option("--fanout-watchers", o.fanout_watchers, "fanout: watchers of all slices")
      ->capture_default_str();
  app.add_option("--fanout-rate", o.fanout_rate, "fanout: slice writes per second")
      ->capture_default_str();
  app.add_option("--fanout-seconds", o.fanout_seconds, "fanout: how long to write")
      ->capture_default_str();
  app.add_option("--fanout-threads", o.fanout_threads, "fanout: threads reading the watchers")
      ->capture_default_str();
  app.add_option("--fanout-slices", o.fanout_slices, "fanout: slices the writes go round")
      ->capture_default_str();
  app.add_option("--fanout-writers", o.fanout_writers, "fanout: connections writing")
      ->capture_default_str();
  app.add_option("--rollout-replicas", o.rollout_replicas, "rollout: the Deployment's replicas")
      ->capture_default_str();
  app.add_option("--rollout-nodes", o.rollout_nodes, "rollout: simulated nodes")
      ->capture_default_str();
}

int Main(int argc, char** argv) {
  CLI::App app{"svcplane end-to-end EndpointSlice benchmark (idle, propagation, burst, fanout)"};
  ServerOptions server;
  server.binary =
      (std::filesystem::path(argv[0]).parent_path() / ".." / "bin" / "svcplane").string();
  server.dir_prefix = "svcplane-e2ebench";
  app.add_option("--server", server.binary, "svcplane binary")->capture_default_str();
  app.add_option("--server-arg", server.extra_args,
                 "extra argument for `svcplane serve` (repeatable)");
  app.add_flag("--keep-data", server.keep_dir, "keep the temp data dir (server.log)");
  Options o;
  AddOptions(app, o);
  app.add_option("--log-dir", o.log_dir,
                 "write per-event latencies here (flips.tsv, fanout.tsv), to see when slow ones "
                 "happened");

  CLI11_PARSE(app, argc, argv);
  if (o.pods < 1 || o.pods > 999 || o.burst_pods < 1 || o.burst_pods > 999 ||
      o.services > 999'999 || o.burst_services > 999'999 || o.fanout_slices < 1) {
    std::fprintf(stderr, "e2e_bench: Pods per Service must be 1..999, Services < 1,000,000\n");
    return 2;
  }

  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  std::printf("$ %s\n\n", command.c_str());
  std::fflush(stdout);

  // The controllers' metrics (slice writes) are served on their own port; ask for one unless
  // the caller did.
  uint16_t controllers_port = 0;
  bool has_port = false;
  for (const auto& a : server.extra_args)
    has_port = has_port || a.starts_with("--controller-manager-port");
  if (!has_port) {
    controllers_port = FreeLoopbackPort();
    server.extra_args.push_back(fmt::format("--controller-manager-port={}", controllers_port));
  }

  // The rollout runs its Pods on the server's simulated nodes and kubelet stand-in.
  bool has_sim = false;
  for (const auto& a : server.extra_args) has_sim = has_sim || a.starts_with("--simulate-nodes");
  if (o.Has("rollout") && !has_sim) {
    server.extra_args.push_back(fmt::format("--simulate-nodes={}", o.rollout_nodes));
  }

  {
    // Two cores shared with the server: anything else running skews every number.
    const double busy0 = MachineBusySeconds() - SelfCpuSeconds();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const double others = (MachineBusySeconds() - SelfCpuSeconds() - busy0) / 0.5;
    if (others > 0.2) {
      std::fprintf(stderr, "e2e_bench: warning: other processes use %.0f%% of a core now\n",
                   100 * others);
    }
  }
  signal(SIGPIPE, SIG_IGN);
  std::vector<Row> rows;
  bool ok = true;
  try {
    ServerProcess proc(server);
    proc.Start();
    std::fprintf(stderr, "server pid %d on port %u, data %s\n", proc.pid(), proc.port(),
                 proc.dir().c_str());
    const Context ctx{o, proc, proc.endpoint(), MakeTls(proc.endpoint()), controllers_port};
    if (o.Has("propagation") || o.Has("burst")) CreateNodes(ctx, o.nodes);
    rows.push_back({"server RSS at start", fmt::format("{} MiB", proc.RssKb() / 1024), ""});
    const struct {
      const char* name;
      bool (*run)(const Context&, std::vector<Row>*);
    } phases[] = {{"idle", RunIdle},
                  {"propagation", RunPropagation},
                  {"burst", RunBurst},
                  {"fanout", RunFanout},
                  {"rollout", RunRollout}};
    for (const auto& p : phases) {
      if (!o.Has(p.name)) continue;
      std::fprintf(stderr, "phase %s...\n", p.name);
      const auto t0 = Clock::now();
      const double others0 = MachineBusySeconds() - proc.CpuSeconds() - SelfCpuSeconds();
      const double iowait0 = MachineIowaitSeconds();
      const bool phase_ok = p.run(ctx, &rows);
      const double others = MachineBusySeconds() - proc.CpuSeconds() - SelfCpuSeconds() - others0;
      const double iowait = MachineIowaitSeconds() - iowait0;
      std::fprintf(stderr, "phase %s %s in %.1f s\n", p.name, phase_ok ? "done" : "FAILED",
                   Seconds(Clock::now() - t0));
      ok = ok && phase_ok;
      rows.push_back({fmt::format("server RSS after {}", p.name),
                      fmt::format("{} MiB", proc.RssKb() / 1024), ""});
      // Anything else on the machine during the phase skews every number above.
      const double phase_s = Seconds(Clock::now() - t0);
      rows.push_back({fmt::format("  other processes' CPU; I/O wait, during {}", p.name),
                      fmt::format("{:.0f}% of one core; {:.0f}%", 100 * others / phase_s,
                                  100 * iowait / phase_s),
                      "~0%; ~0%"});
    }
    rows.push_back({"server peak RSS (VmHWM)",
                    fmt::format("{} MiB", ProcessStatusKb(proc.pid(), "VmHWM:") / 1024), ""});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "e2e_bench: %s\n", e.what());
    ok = false;
  }
  PrintTable(rows);
  if (!ok) std::fprintf(stderr, "e2e_bench: FAILED (see the rows above and stderr)\n");
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace svcplane::bench::e2e

int main(int argc, char** argv) { return svcplane::bench::e2e::Main(argc, argv); }
