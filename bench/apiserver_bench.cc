// End-to-end benchmark of the real `svcplane serve` binary over HTTPS on loopback: Pod creates/s
// with 8 and 64 keep-alive clients, GET and full LIST latency, watch delivery delay with many
// concurrent watch streams, and server RSS. Prints a table; not a Google Benchmark binary because
// every phase depends on state the previous one built (the Pods).
//
//   build-release/bench/apiserver_bench --pods 100000 --watchers 1000
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "bench/apiserver/access_compare.h"
#include "bench/apiserver/pod_creates.h"
#include "bench/apiserver/ssa_compare.h"
#include "bench/apiserver/watcher.h"
#include "bench/common/https_client.h"
#include "bench/common/server_process.h"
#include "bench/common/table.h"

namespace svcplane::bench::apiserver {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;

int Main(int argc, char** argv) {
  CLI::App app{"svcplane API server end-to-end benchmark"};
  std::string server = (fs::path(argv[0]).parent_path() / ".." / "bin" / "svcplane").string();
  std::string pod_json = SVCPLANE_TESTDATA "/pod.json";
  size_t pods = 100'000;
  size_t gets = 20'000;
  int lists = 3;
  int watchers = 1000;
  size_t watch_events = 50;
  int watch_interval_ms = 100;
  bool keep = false;
  std::string create_log;
  app.add_option("--create-log", create_log,
                 "write `clients start_ms latency_ms` per create here, to see when slow ones "
                 "happened");
  app.add_option("--server", server, "svcplane binary")->capture_default_str();
  std::vector<std::string> server_args;
  app.add_option("--server-arg", server_args,
                 "extra argument for `svcplane serve` (repeatable), e.g. "
                 "--server-arg=--build-pieces-ahead=false");
  app.add_option("--pod-json", pod_json, "Pod template")->capture_default_str();
  app.add_option("--pods", pods, "Pods to create (half with 8 clients, half with 64)")
      ->capture_default_str();
  app.add_option("--gets", gets, "GETs of random Pods (8 clients)")->capture_default_str();
  app.add_option("--lists", lists, "full LISTs to time")->capture_default_str();
  app.add_option("--watchers", watchers, "concurrent watch streams")->capture_default_str();
  app.add_option("--watch-events", watch_events, "Pods created while watched")
      ->capture_default_str();
  app.add_option("--watch-interval-ms", watch_interval_ms, "pause between watched creates")
      ->capture_default_str();
  app.add_flag("--keep-data", keep, "keep the temp data dir (server.log)");
  AccessCompareOptions compare;
  compare.clients = {64, 8};
  app.add_option("--audit-compare", compare.rounds,
                 "only compare creates/s (--pods of them per client count) with authorization "
                 "(Node,RBAC vs AlwaysAllow) and the audit log on and off, as a non-admin user, "
                 "alternating servers for this many rounds");
  app.add_option("--audit-clients", compare.clients,
                 "client counts for --audit-compare (repeatable)")
      ->capture_default_str();
  SsaCompareOptions ssa;
  ssa.clients = {64, 8};
  app.add_option("--ssa-compare", ssa.rounds,
                 "only compare creates/s (--pods of them per client count) with managedFields "
                 "tracking against --baseline-server, alternating servers for this many rounds, "
                 "then time --applies unchanged server-side applies");
  app.add_option("--baseline-server", ssa.baseline,
                 "for --ssa-compare: svcplane built from the code before managedFields");
  app.add_option("--applies", ssa.applies, "for --ssa-compare: unchanged re-applies to time")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (ssa.rounds > 0) {
    signal(SIGPIPE, SIG_IGN);
    if (ssa.baseline.empty()) {
      std::fprintf(stderr, "--ssa-compare needs --baseline-server\n");
      return 2;
    }
    ssa.server = server;
    ssa.server_args = server_args;
    ssa.pod_json = pod_json;
    ssa.pods = pods;
    return SsaCompare(ssa);
  }
  if (compare.rounds > 0) {
    signal(SIGPIPE, SIG_IGN);
    compare.server = server;
    compare.server_args = server_args;
    compare.pod_json = pod_json;
    compare.pods = pods;
    return AccessCompare(compare);
  }

  signal(SIGPIPE, SIG_IGN);
  std::vector<Row> rows;
  try {
    ServerProcess proc({.binary = server,
                        .extra_args = server_args,
                        .keep_dir = keep,
                        .dir_prefix = "svcplane-apibench"});
    proc.Start();
    const Endpoint ep = proc.endpoint();
    std::fprintf(stderr, "server pid %d on port %u, data %s\n", proc.pid(), ep.port,
                 proc.dir().c_str());
    const std::string ns = "bench", wns = "bench-watch";
    {
      Client c(ep, MakeTls(ep));
      for (const auto& n : {ns, wns}) {
        auto r =
            c.Do("POST", "/api/v1/namespaces",
                 fmt::format(
                     R"({{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{}"}}}})", n));
        if (r.status != 201 && r.status != 409) {
          throw std::runtime_error(fmt::format("create namespace: {} {}", r.status, r.body));
        }
      }
    }
    PodTemplate tmpl = LoadPodTemplate(pod_json, ns);
    rows.push_back({"Pod body size", fmt::format("{} B", tmpl.Body(PodName("pod", 0)).size()), ""});
    rows.push_back({"RSS idle", fmt::format("{} MiB", RssKb(proc.pid()) / 1024), ""});

    // Creates: first half with 8 clients, second with 64.
    size_t half = pods / 2;
    for (auto [clients, b, e] : {std::tuple<int, size_t, size_t>{8, 0, half},
                                 std::tuple<int, size_t, size_t>{64, half, pods}}) {
      const Buckets before = ScrapeCreateBuckets(ep);
      auto r = CreatePods(ep, proc.pid(), tmpl, ns, b, e, clients);
      const auto [server_p99, server_share] =
          QuantileAndShare(before, ScrapeCreateBuckets(ep), 0.99, 0.01);
      std::fprintf(stderr, "%d clients: %zu ok, %zu failed in %.2f s\n", clients, r.ok, r.failed,
                   r.seconds);
      if (r.failed) std::fprintf(stderr, "  first error: %s\n", r.first_error.c_str());
      if (!create_log.empty()) {
        std::ofstream out(create_log, clients == 8 ? std::ios::trunc : std::ios::app);
        for (size_t i = 0; i < r.latencies_ms.size(); ++i) {
          out << clients << ' ' << r.started_ms[i] << ' ' << r.latencies_ms[i] << ' '
              << r.start_steady_s << '\n';
        }
      }
      rows.push_back({fmt::format("creates/s, {} clients ({} Pods)", clients, e - b),
                      fmt::format("{:.0f}", static_cast<double>(r.ok) / r.seconds), ">= 10000"});
      rows.push_back({fmt::format("create p50 / p99, {} clients", clients),
                      fmt::format("{:.2f} / {:.2f} ms", Percentile(r.latencies_ms, 50),
                                  Percentile(r.latencies_ms, 99)),
                      "p99 <= 10 ms (SLO/100)"});
      rows.push_back({fmt::format("  server-side p99 (apiserver_request_duration_seconds), {} "
                                  "clients; share <= 10 ms",
                                  clients),
                      fmt::format("{:.2f} ms; {:.2f}%", server_p99 * 1000, server_share * 100),
                      "p99 <= 10 ms: share >= 99%"});
      const double n = static_cast<double>(std::max<size_t>(r.ok + r.failed, 1));
      rows.push_back(
          {fmt::format("server CPU / context switches / page faults per create, {} clients",
                       clients),
           fmt::format(
               "{:.0f} us / {:.1f} / {:.2f} (client CPU {:.0f} us)", r.server_cpu_seconds / n * 1e6,
               static_cast<double>(r.server_context_switches) / n,
               static_cast<double>(r.server_page_faults) / n, r.client_cpu_seconds / n * 1e6),
           ""});
      if (r.failed) rows.push_back({"  failed creates", std::to_string(r.failed), "0"});
    }
    rows.push_back({fmt::format("RSS after {} Pods", pods),
                    fmt::format("{} MiB", RssKb(proc.pid()) / 1024), ""});

    // GETs of random Pods, 8 clients: once right after the creates, while the server still
    // flushes, compacts and feeds its controllers, and once at rest, as the SLO's steady state.
    auto run_gets = [&](const std::string& when) {
      auto tls = MakeTls(ep);
      std::vector<std::vector<double>> lat(8);
      std::atomic<size_t> next{0};
      std::atomic<size_t> bad{0};
      std::vector<std::thread> threads;
      auto start = Clock::now();
      for (int c = 0; c < 8; ++c) {
        threads.emplace_back([&, c] {
          Client cl(ep, tls);
          std::mt19937_64 rng(static_cast<uint64_t>(c) + 1);
          while (next.fetch_add(1) < gets) {
            std::string t = fmt::format("/api/v1/namespaces/{}/pods/{}", ns,
                                        PodName("pod", rng() % std::max<size_t>(pods, 1)));
            auto t0 = Clock::now();
            auto r = cl.Do("GET", t);
            lat[static_cast<size_t>(c)].push_back(Ms(Clock::now() - t0));
            if (r.status != 200) bad.fetch_add(1);
          }
        });
      }
      for (auto& t : threads) t.join();
      double secs = std::chrono::duration<double>(Clock::now() - start).count();
      std::vector<double> all;
      for (auto& l : lat) all.insert(all.end(), l.begin(), l.end());
      rows.push_back({fmt::format("GET p50 / p99, 8 clients, {} ({} GETs, {:.0f}/s)", when,
                                  all.size(), static_cast<double>(all.size()) / secs),
                      fmt::format("{:.2f} / {:.2f} ms", Percentile(all, 50), Percentile(all, 99)),
                      "p99 <= 2 ms"});
      if (bad) rows.push_back({"  failed GETs", std::to_string(bad.load()), "0"});
    };
    if (gets > 0) {
      run_gets("right after the creates");
      const double settled = WaitForQuietServer(proc.pid(), std::chrono::seconds(30));
      run_gets(fmt::format("at rest ({:.1f} s later)", settled));
    }

    // Full LISTs: namespace and cluster-wide.
    if (lists > 0) {
      Client cl(ep, MakeTls(ep));
      for (const auto& [what, target] :
           {std::pair<std::string, std::string>{"LIST namespace",
                                                "/api/v1/namespaces/" + ns + "/pods"},
            std::pair<std::string, std::string>{"LIST cluster-wide", "/api/v1/pods"}}) {
        std::vector<double> ms, server_ms, client_ms;
        size_t bytes = 0;
        for (int i = 0; i < lists; ++i) {
          // CPU as well as wall time: on a loaded machine the wall time mostly says how long
          // the server and this client waited for a core.
          const double server0 = ProcessCpuSeconds(proc.pid());
          const double client0 = ThreadCpuSeconds();
          auto t0 = Clock::now();
          std::string head, tail;
          const int status = cl.Get(target, &bytes, &head, &tail);
          ms.push_back(Ms(Clock::now() - t0));
          server_ms.push_back((ProcessCpuSeconds(proc.pid()) - server0) * 1000);
          client_ms.push_back((ThreadCpuSeconds() - client0) * 1000);
          if (status != 200) throw std::runtime_error(fmt::format("{}: {}", what, status));
          // The whole PodList came: its Content-Length worth of bytes or its chunks up to the
          // last one (the readers check), and it starts and ends as one.
          if (!head.starts_with(R"({"kind":"PodList")") || !tail.ends_with("]}")) {
            throw std::runtime_error(
                fmt::format("{}: not a whole PodList: {}...{}", what, head, tail));
          }
        }
        std::sort(ms.begin(), ms.end());
        rows.push_back({fmt::format("{} of {} Pods (best / worst of {})", what, pods, lists),
                        fmt::format("{:.0f} / {:.0f} ms, {:.1f} MiB", ms.front(), ms.back(),
                                    static_cast<double>(bytes) / (1 << 20)),
                        "<= 1 s; SLO/100 = 300 ms"});
        rows.push_back({"  server / client CPU per LIST (median)",
                        fmt::format("{:.0f} / {:.0f} ms", Percentile(server_ms, 50),
                                    Percentile(client_ms, 50)),
                        ""});
      }
      rows.push_back({"RSS after LISTs", fmt::format("{} MiB", RssKb(proc.pid()) / 1024), ""});
    }

    // Watch delivery delay: `watchers` streams on the watch namespace; one client creates
    // `watch_events` Pods there at a steady pace; delay = event line received - create ack.
    if (watchers > 0 && watch_events > 0) {
      asio::io_context ioc;
      auto tls = MakeTls(ep);
      std::atomic<int> ready{0}, failed{0};
      std::vector<std::shared_ptr<Watcher>> ws;
      std::string target = fmt::format("/api/v1/namespaces/{}/pods?watch=true", wns);
      for (int i = 0; i < watchers; ++i) {
        ws.push_back(std::make_shared<Watcher>(ioc, *tls, ep, target, "wpod", watch_events, &ready,
                                               &failed));
        ws.back()->Start();
      }
      auto guard = asio::make_work_guard(ioc);
      std::thread io([&] { ioc.run(); });
      auto deadline = Clock::now() + std::chrono::seconds(120);
      while (ready + failed < watchers && Clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      std::fprintf(stderr, "%d watchers ready, %d failed\n", ready.load(), failed.load());
      PodTemplate wt = LoadPodTemplate(pod_json, wns);
      std::vector<Clock::time_point> acked(watch_events);
      {
        Client cl(ep, tls);
        std::string t = fmt::format("/api/v1/namespaces/{}/pods", wns);
        for (size_t i = 0; i < watch_events; ++i) {
          auto r = cl.Do("POST", t, wt.Body(PodName("wpod", i)));
          acked[i] = Clock::now();
          if (r.status != 201) throw std::runtime_error(fmt::format("watch create: {}", r.status));
          std::this_thread::sleep_for(std::chrono::milliseconds(watch_interval_ms));
        }
      }
      std::this_thread::sleep_for(std::chrono::seconds(2));  // let the last events arrive
      long rss = RssKb(proc.pid());
      asio::post(ioc, [&] {
        for (auto& w : ws) w->Close();
      });
      guard.reset();
      io.join();
      std::vector<double> delay;
      size_t missing = 0;
      for (auto& w : ws) {
        for (size_t i = 0; i < watch_events; ++i) {
          if (w->seen()[i] == Clock::time_point{}) {
            ++missing;
          } else {
            delay.push_back(std::max(0.0, Ms(w->seen()[i] - acked[i])));
          }
        }
      }
      rows.push_back(
          {fmt::format("watch delay p50 / p99 ({} watchers x {} events)", ready.load(),
                       watch_events),
           fmt::format("{:.2f} / {:.2f} ms", Percentile(delay, 50), Percentile(delay, 99)), ""});
      rows.push_back({"  events missed (never received)", std::to_string(missing), "0"});
      rows.push_back({fmt::format("RSS with {} watchers", ready.load()),
                      fmt::format("{} MiB", rss / 1024), ""});
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "apiserver_bench: %s\n", e.what());
    return 1;
  }

  PrintTable(rows);
  return 0;
}

}  // namespace
}  // namespace svcplane::bench::apiserver

int main(int argc, char** argv) { return svcplane::bench::apiserver::Main(argc, argv); }
