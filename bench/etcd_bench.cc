// svcplane on etcd next to etcd itself, in one run (issue 21): Pod creates/s through
// `svcplane serve` over HTTPS (one thread and keep-alive connection per client, apiserver_bench's
// create loop) beside etcd's own rate for the same Create Txn (Txn{MOD(key)==0 ? Put : -}, the
// value a stored Pod of the same body, sent with our EtcdClient from as many concurrent callers),
// on a 1-member and a 3-member etcd and on the embedded store; LIST latency of many Pods from the
// watch cache (resourceVersion=0) and consistent (resourceVersion unset); and the delay from a
// create's acknowledgement to its event at HTTPS watchers. Prints one Markdown table, a column
// per store.
//
//   build/bench/etcd_bench                                   # the issue's sizes (~10 min)
//   build/bench/etcd_bench --creates 200 --list-pods 500 --lists 2 --watch-events 5  # smoke
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "bench/apiserver/pod_creates.h"
#include "bench/apiserver/watcher.h"
#include "bench/common/https_client.h"
#include "bench/common/server_process.h"
#include "storage/etcd/internal/etcd_client.h"
#include "storage/etcd/testing/etcd_process.h"

namespace svcplane::bench::etcdbench {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;
namespace ei = storage::etcd::internal;
using apiserver::CreatePods;
using apiserver::PodName;
using apiserver::PodTemplate;
using storage::etcd::testing::EtcdProcess;

struct Options {
  std::string server;
  std::string pod_json = SVCPLANE_TESTDATA "/pod.json";
  std::vector<std::string> server_args;
  std::vector<std::string> stores = {"embedded", "etcd1", "etcd3"};
  std::vector<int> clients = {8, 64};
  size_t creates = 10'000;     // per measured create phase
  size_t list_pods = 100'000;  // Pods in the namespace before the LISTs
  std::vector<std::string> list_stores = {"embedded", "etcd1"};
  int lists = 5;
  int fill_seconds = 240;  // the most spent creating Pods for the LISTs, per store
  int watchers = 10;
  size_t watch_events = 100;
  int watch_interval_ms = 20;
  bool keep = false;
};

// One store's column: metric -> value.
using Column = std::map<std::string, std::string>;

// --- etcd's own rate ----------------------------------------------------------------------------

struct RawResult {
  double seconds = 0;
  size_t ok = 0, failed = 0;
  std::string first_error;
  std::vector<double> latencies_ms;
  double etcd_cpu_seconds = 0;
};

// `n` Create Txns on keys `prefix`0..n, each Txn{MOD(key)==0 ? Put{key,value} : -} as
// EtcdStore::Create sends it, from `callers` threads sharing one EtcdClient (as the server's
// workers share theirs). The requests are built before the clock starts.
RawResult RawCreates(ei::EtcdClient& client, const std::vector<pid_t>& etcd_pids,
                     const std::string& prefix, const std::string& value, size_t n, int callers) {
  std::vector<ei::pb::TxnRequest> requests(n);
  for (size_t i = 0; i < n; ++i) {
    const std::string key = fmt::format("{}{:07d}", prefix, i);
    auto* c = requests[i].add_compare();
    c->set_result(ei::pb::Compare::EQUAL);
    c->set_target(ei::pb::Compare::MOD);
    c->set_key(key);
    c->set_mod_revision(0);
    auto* put = requests[i].add_success()->mutable_request_put();
    put->set_key(key);
    put->set_value(value);
  }
  std::atomic<size_t> next{0};
  std::vector<RawResult> per(static_cast<size_t>(callers));
  double cpu0 = 0;
  for (pid_t p : etcd_pids) cpu0 += ProcessCpuSeconds(p);
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < callers; ++t) {
    threads.emplace_back([&, t] {
      auto& r = per[static_cast<size_t>(t)];
      for (size_t i; (i = next.fetch_add(1)) < n;) {
        const auto t0 = Clock::now();
        auto res = client.Txn(requests[i], client.WriteDeadline());
        r.latencies_ms.push_back(Ms(Clock::now() - t0));
        if (res.ok() && res->succeeded()) {
          ++r.ok;
        } else if (r.failed++ == 0) {
          r.first_error = res.ok() ? "compare failed (key exists)" : res.status().ToString();
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  RawResult total;
  total.seconds = Seconds(Clock::now() - start);
  for (pid_t p : etcd_pids) total.etcd_cpu_seconds += ProcessCpuSeconds(p);
  total.etcd_cpu_seconds -= cpu0;
  for (auto& r : per) {
    total.ok += r.ok;
    total.failed += r.failed;
    if (total.first_error.empty()) total.first_error = r.first_error;
    total.latencies_ms.insert(total.latencies_ms.end(), r.latencies_ms.begin(),
                              r.latencies_ms.end());
  }
  return total;
}

// The value svcplane stored for `key` (the protobuf of a created Pod), read back from etcd.
std::string StoredValue(ei::EtcdClient& client, const std::string& key) {
  ei::pb::RangeRequest request;
  request.set_key(key);
  auto r = client.Range(request, client.ReadDeadline());
  if (!r.ok()) throw std::runtime_error("etcd range " + key + ": " + r.status().ToString());
  if (r->kvs_size() != 1) throw std::runtime_error("etcd has no " + key);
  return r->kvs(0).value();
}

// etcd's own count of the KV RPCs its members answered (grpc_server_handled_total from
// /metrics on each client URL), summed over the members: method ("Range", "Txn") -> count.
std::map<std::string, double> EtcdRpcCounts(const std::vector<std::unique_ptr<EtcdProcess>>& ms) {
  std::map<std::string, double> out;
  for (const auto& m : ms) {
    const std::string& url = m->endpoint();
    const auto port = static_cast<uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
    asio::io_context io;
    asio::ip::tcp::socket sock(io);
    sock.connect({asio::ip::make_address("127.0.0.1"), port});
    const std::string req = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    asio::write(sock, asio::buffer(req));
    std::string body;
    boost::system::error_code ec;
    char buf[65536];
    for (size_t n; (n = sock.read_some(asio::buffer(buf), ec)) > 0 || !ec;) body.append(buf, n);
    size_t pos = 0;
    while (pos < body.size()) {
      size_t end = body.find('\n', pos);
      if (end == std::string::npos) end = body.size();
      const std::string_view line(body.data() + pos, end - pos);
      pos = end + 1;
      if (!line.starts_with("grpc_server_handled_total{") ||
          line.find("grpc_service=\"etcdserverpb.KV\"") == std::string_view::npos) {
        continue;
      }
      const size_t k = line.find("grpc_method=\"");
      if (k == std::string_view::npos) continue;
      const size_t q = line.find('"', k + 13);
      out[std::string(line.substr(k + 13, q - k - 13))] +=
          std::stod(std::string(line.substr(line.rfind(' ') + 1)));
    }
  }
  return out;
}

// --- through svcplane ---------------------------------------------------------------------------

void CreateNamespace(const Endpoint& ep, const std::string& name) {
  Client c(ep, MakeTls(ep));
  auto r = c.Do(
      "POST", "/api/v1/namespaces",
      fmt::format(R"({{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{}"}}}})", name));
  if (r.status != 201 && r.status != 409) {
    throw std::runtime_error(fmt::format("create namespace {}: {} {}", name, r.status, r.body));
  }
}

std::string P50P99(std::vector<double> v) {
  return fmt::format("{:.1f} / {:.1f} ms", Percentile(v, 50), Percentile(v, 99));
}

// LIST `target` `reps` times; wall-clock ms each. Throws unless each is a whole PodList.
std::vector<double> TimeLists(const Endpoint& ep, const std::string& target, int reps,
                              size_t* bytes) {
  Client cl(ep, MakeTls(ep));
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    std::string head, tail;
    const auto t0 = Clock::now();
    const int status = cl.Get(target, bytes, &head, &tail);
    ms.push_back(Ms(Clock::now() - t0));
    if (status != 200) throw std::runtime_error(fmt::format("LIST {}: {}", target, status));
    if (!head.starts_with(R"({"kind":"PodList")") || !tail.ends_with("]}")) {
      throw std::runtime_error(
          fmt::format("LIST {}: not a whole PodList: {}...{}", target, head, tail));
    }
  }
  return ms;
}

// `watchers` watch streams on `ns`; one client creates `events` Pods there at a steady pace;
// delay = event received - create acknowledged. Returns the delays and how many never came.
std::pair<std::vector<double>, size_t> WatchDelay(const Endpoint& ep, const Options& o,
                                                  const std::string& ns) {
  asio::io_context ioc;
  auto tls = MakeTls(ep);
  std::atomic<int> ready{0}, failed{0};
  std::vector<std::shared_ptr<apiserver::Watcher>> ws;
  const std::string target = fmt::format("/api/v1/namespaces/{}/pods?watch=true", ns);
  for (int i = 0; i < o.watchers; ++i) {
    ws.push_back(std::make_shared<apiserver::Watcher>(ioc, *tls, ep, target, "wpod", o.watch_events,
                                                      &ready, &failed));
    ws.back()->Start();
  }
  auto guard = asio::make_work_guard(ioc);
  std::thread io([&] { ioc.run(); });
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (ready + failed < o.watchers && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::vector<Clock::time_point> acked(o.watch_events);
  std::string error;
  try {
    if (failed > 0) throw std::runtime_error(fmt::format("{} watchers failed", failed.load()));
    const PodTemplate wt = apiserver::LoadPodTemplate(o.pod_json, ns);
    Client cl(ep, tls);
    const std::string t = fmt::format("/api/v1/namespaces/{}/pods", ns);
    for (size_t i = 0; i < o.watch_events; ++i) {
      auto r = cl.Do("POST", t, wt.Body(PodName("wpod", i)));
      acked[i] = Clock::now();
      if (r.status != 201) throw std::runtime_error(fmt::format("watch create: {}", r.status));
      std::this_thread::sleep_for(std::chrono::milliseconds(o.watch_interval_ms));
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));  // the last events
  } catch (const std::exception& e) {
    error = e.what();
  }
  asio::post(ioc, [&] {
    for (auto& w : ws) w->Close();
  });
  guard.reset();
  io.join();
  if (!error.empty()) throw std::runtime_error(error);
  std::vector<double> delay;
  size_t missing = 0;
  for (auto& w : ws) {
    for (size_t i = 0; i < o.watch_events; ++i) {
      if (w->seen()[i] == Clock::time_point{}) {
        ++missing;
      } else {
        delay.push_back(std::max(0.0, Ms(w->seen()[i] - acked[i])));
      }
    }
  }
  return {delay, missing};
}

bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// One store: starts etcd (etcd1, etcd3) and the server, measures, fills `col`. Returns false
// when something measured failed (failed creates, missed events); throws on errors.
bool RunStore(const Options& o, const std::string& store, Column& col) {
  bool ok = true;
  // Anything else on the two cores skews every number: the machine's busy time minus this
  // process's, the servers' and etcd's.
  const auto t0 = Clock::now();
  const double busy0 = MachineBusySeconds() - SelfCpuSeconds();
  double ours = 0;  // CPU of the servers and etcd members (gone ones included)
  std::vector<std::unique_ptr<EtcdProcess>> etcd;
  std::vector<pid_t> etcd_pids;
  std::unique_ptr<ei::EtcdClient> raw;
  std::string value;               // a stored Pod's protobuf (etcd only)
  std::map<int, double> raw_rate;  // etcd's Txn/s by callers
  ServerOptions so{.binary = o.server,
                   .extra_args = o.server_args,
                   .keep_dir = o.keep,
                   .dir_prefix = "svcplane-etcdbench"};
  if (store != "embedded") {
    const int members = store == "etcd3" ? 3 : 1;
    storage::etcd::testing::EtcdProcessOptions eo;
    eo.progress_notify_interval = std::chrono::seconds(5);  // production's (spec §3.7)
    auto started = EtcdProcess::StartCluster(members, eo);
    if (!started.ok()) throw std::runtime_error("etcd: " + started.status().ToString());
    etcd = std::move(*started);
    for (auto& m : etcd) etcd_pids.push_back(m->pid());
    const std::string endpoints = EtcdProcess::Endpoints(etcd);
    so.extra_args.push_back("--store=etcd");
    so.extra_args.push_back("--etcd-servers=" + endpoints);
    // Its default on etcd is 5 s of draining at SIGTERM; nothing to drain here.
    so.extra_args.push_back("--shutdown-delay-duration=0s");
    storage::etcd::EtcdClientOptions co;
    co.endpoints = endpoints;
    auto client = ei::EtcdClient::Create(co);
    if (!client.ok()) throw std::runtime_error("etcd client: " + client.status().ToString());
    raw = std::move(*client);
  }
  const std::string ns = "bench", wns = "bench-watch";
  const PodTemplate tmpl = apiserver::LoadPodTemplate(o.pod_json, ns);
  col["Pod JSON body"] = fmt::format("{} B", tmpl.Body(PodName("pod", 0)).size());

  // etcd alone first: a server of its own creates the first Pod, whose stored protobuf is the
  // raw Txns' value, and stops. The server is not running while etcd is measured (its watch
  // cache watches the whole key space and would decode every raw Txn); the raw keys are
  // deleted before the measured server starts, so its cache never holds them.
  if (raw) {
    {
      ServerProcess probe(so);
      probe.Start();
      CreateNamespace(probe.endpoint(), ns);
      auto r = CreatePods(probe.endpoint(), probe.pid(), tmpl, ns, 0, 1, 1);
      if (r.ok != 1) throw std::runtime_error("first create: " + r.first_error);
      value = StoredValue(*raw, "/registry/pods/" + ns + "/" + PodName("pod", 0));
      ours += probe.CpuSeconds();
    }
    col["Pod value in etcd (protobuf)"] = fmt::format("{} B", value.size());
    for (int c : o.clients) {
      std::fprintf(stderr, "[%s] etcd Txns, %d callers...\n", store.c_str(), c);
      auto r = RawCreates(*raw, etcd_pids, fmt::format("/bench-raw/{}/", c), value, o.creates, c);
      if (r.failed) {
        std::fprintf(stderr, "  %zu failed: %s\n", r.failed, r.first_error.c_str());
        ok = false;
      }
      const double rate = static_cast<double>(r.ok) / r.seconds;
      raw_rate[c] = rate;
      col[fmt::format("etcd Create Txn/s, {} callers (EtcdClient)", c)] =
          fmt::format("{:.0f}", rate);
      col[fmt::format("  etcd Txn p50 / p99, {} callers", c)] = P50P99(r.latencies_ms);
      col[fmt::format("  etcd CPU per Txn, {} callers", c)] =
          fmt::format("{:.0f} us", r.etcd_cpu_seconds / static_cast<double>(o.creates) * 1e6);
    }
    ei::pb::TxnRequest del;
    auto* d = del.add_success()->mutable_request_delete_range();
    d->set_key("/bench-raw/");
    d->set_range_end("/bench-raw0");
    auto r = raw->Txn(del, raw->WriteDeadline());
    if (!r.ok()) throw std::runtime_error("delete raw keys: " + r.status().ToString());
  }

  ServerProcess proc(so);
  proc.Start();
  const Endpoint ep = proc.endpoint();
  std::fprintf(stderr, "[%s] server pid %d on port %u, data %s\n", store.c_str(), proc.pid(),
               ep.port, proc.dir().c_str());
  CreateNamespace(ep, ns);
  CreateNamespace(ep, wns);
  size_t next_pod = 1;
  if (!raw) {  // the first Pod alone, as on etcd
    auto r = CreatePods(ep, proc.pid(), tmpl, ns, 0, 1, 1);
    if (r.ok != 1) throw std::runtime_error("first create: " + r.first_error);
  }
  WaitForQuietServer(proc.pid(), std::chrono::seconds(10));

  for (int c : o.clients) {
    std::fprintf(stderr, "[%s] svcplane creates, %d clients...\n", store.c_str(), c);
    double etcd_cpu0 = 0;
    for (pid_t p : etcd_pids) etcd_cpu0 += ProcessCpuSeconds(p);
    const auto rpcs0 = EtcdRpcCounts(etcd);
    auto r = CreatePods(ep, proc.pid(), tmpl, ns, next_pod, next_pod + o.creates, c);
    double etcd_cpu = -etcd_cpu0;
    for (pid_t p : etcd_pids) etcd_cpu += ProcessCpuSeconds(p);
    auto rpcs = EtcdRpcCounts(etcd);
    next_pod += o.creates;
    if (r.failed) {
      std::fprintf(stderr, "  %zu failed: %s\n", r.failed, r.first_error.c_str());
      ok = false;
    }
    const double rate = static_cast<double>(r.ok) / r.seconds;
    col[fmt::format("Pod creates/s, {} clients (HTTPS)", c)] = fmt::format("{:.0f}", rate);
    col[fmt::format("  create p50 / p99, {} clients", c)] = P50P99(r.latencies_ms);
    const double n = static_cast<double>(std::max<size_t>(r.ok + r.failed, 1));
    col[fmt::format("  server / etcd CPU per create, {} clients", c)] =
        raw ? fmt::format("{:.0f} / {:.0f} us", r.server_cpu_seconds / n * 1e6, etcd_cpu / n * 1e6)
            : fmt::format("{:.0f} us / -", r.server_cpu_seconds / n * 1e6);
    if (raw) {
      // What the server asked of etcd per create (its watch cache's own reads included).
      const auto per = [&](const char* m) {
        return (rpcs[m] - (rpcs0.count(m) ? rpcs0.at(m) : 0.0)) / n;
      };
      col[fmt::format("  etcd Range / Txn RPCs per create, {} clients", c)] =
          fmt::format("{:.2f} / {:.2f}", per("Range"), per("Txn"));
      col[fmt::format("ratio svcplane / etcd, {} clients", c)] =
          fmt::format("{:.2f}", rate / std::max(raw_rate[c], 1e-9));
    }
  }

  if (Has(o.list_stores, store) && o.list_pods > 0) {
    if (next_pod < o.list_pods) {
      // In chunks, so that a slow store stops at the time budget with fewer Pods.
      std::fprintf(stderr, "[%s] filling to %zu Pods, 64 clients...\n", store.c_str(), o.list_pods);
      const size_t from = next_pod;
      const auto f0 = Clock::now();
      const auto until = f0 + std::chrono::seconds(o.fill_seconds);
      while (next_pod < o.list_pods && Clock::now() < until) {
        const size_t to = std::min(o.list_pods, next_pod + 5000);
        auto r = CreatePods(ep, proc.pid(), tmpl, ns, next_pod, to, 64);
        if (r.failed) throw std::runtime_error("fill: " + r.first_error);
        next_pod = to;
      }
      const double fill_s = Seconds(Clock::now() - f0);
      col["fill to the LIST's Pods (64 clients)"] =
          fmt::format("{} in {:.0f} s ({:.0f}/s){}", next_pod - from, fill_s,
                      static_cast<double>(next_pod - from) / fill_s,
                      next_pod < o.list_pods ? ", stopped by --fill-seconds" : "");
    }
    WaitForQuietServer(proc.pid(), std::chrono::seconds(30));
    const std::string base = "/api/v1/namespaces/" + ns + "/pods";
    size_t bytes = 0;
    auto cached = TimeLists(ep, base + "?resourceVersion=0", o.lists, &bytes);
    auto consistent = TimeLists(ep, base, o.lists, &bytes);
    const double c50 = Percentile(cached, 50), s50 = Percentile(consistent, 50);
    col["LIST: Pods listed"] = std::to_string(next_pod);
    col["LIST all, cached (resourceVersion=0) p50 / p99"] = P50P99(cached);
    col["LIST all, consistent (no resourceVersion) p50 / p99"] = P50P99(consistent);
    col["  consistent / cached (p50)"] = fmt::format("{:.2f}", s50 / std::max(c50, 1e-9));
    col["  LIST body"] = fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20));
  }

  if (o.watchers > 0 && o.watch_events > 0) {
    std::fprintf(stderr, "[%s] watch delay...\n", store.c_str());
    auto [delay, missing] = WatchDelay(ep, o, wns);
    col[fmt::format("watch delay p50 / p99 (create ack -> event, {} watchers)", o.watchers)] =
        fmt::format("{:.2f} / {:.2f} ms", Percentile(delay, 50), Percentile(delay, 99));
    if (missing) {
      col["  watch events missed"] = std::to_string(missing);
      ok = false;
    }
  }
  col["server RSS at the end"] = fmt::format("{} MiB", proc.RssKb() / 1024);
  ours += proc.CpuSeconds();
  for (pid_t p : etcd_pids) ours += ProcessCpuSeconds(p);
  const double others = MachineBusySeconds() - SelfCpuSeconds() - busy0 - ours;
  col["other processes' CPU during this column"] =
      fmt::format("{:.0f}% of a core", 100 * std::max(0.0, others) / Seconds(Clock::now() - t0));
  return ok;
}

// Rows in order of first appearance over the stores, a column per store.
void PrintColumns(const Options& o, const std::vector<std::string>& order,
                  const std::map<std::string, Column>& cols) {
  const std::map<std::string, std::string> names = {
      {"embedded", "embedded"}, {"etcd1", "etcd, 1 member"}, {"etcd3", "etcd, 3 members"}};
  const std::map<std::string, std::string> targets = {
      {"ratio svcplane / etcd, 8 clients", ">= 0.8"},
      {"ratio svcplane / etcd, 64 clients", ">= 0.8"},
      {"  consistent / cached (p50)", "<= 2"},
  };
  std::vector<std::string> header = {"metric"};
  for (const auto& s : o.stores) header.push_back(names.count(s) ? names.at(s) : s);
  header.push_back("target");
  std::vector<std::vector<std::string>> table;
  for (const auto& m : order) {
    std::vector<std::string> row = {m};
    for (const auto& s : o.stores) {
      std::string cell = "-";
      if (auto v = cols.find(s); v != cols.end()) {
        if (auto c = v->second.find(m); c != v->second.end()) cell = c->second;
      }
      row.push_back(cell);
    }
    std::string target;
    if (targets.count(m)) target = targets.at(m);
    if (m.starts_with("LIST ") && m.find("cached") != std::string::npos) target = "p50 <= 300 ms";
    row.push_back(target);
    table.push_back(row);
  }
  std::vector<size_t> w(header.size());
  for (size_t i = 0; i < header.size(); ++i) w[i] = header[i].size();
  for (const auto& r : table)
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  auto print = [&](const std::vector<std::string>& r) {
    std::printf("|");
    for (size_t i = 0; i < r.size(); ++i)
      std::printf(" %-*s |", static_cast<int>(w[i]), r[i].c_str());
    std::printf("\n");
  };
  print(header);
  std::printf("|");
  for (size_t i = 0; i < w.size(); ++i) std::printf("%s|", std::string(w[i] + 2, '-').c_str());
  std::printf("\n");
  for (const auto& r : table) print(r);
  std::fflush(stdout);
}

int Main(int argc, char** argv) {
  CLI::App app{"svcplane on etcd next to etcd's own Txn rate; LIST and watch on etcd/embedded"};
  Options o;
  o.server = (fs::path(argv[0]).parent_path() / ".." / "bin" / "svcplane").string();
  app.add_option("--server", o.server, "svcplane binary")->capture_default_str();
  app.add_option("--server-arg", o.server_args, "extra argument for `svcplane serve` (repeatable)");
  app.add_option("--pod-json", o.pod_json, "Pod template")->capture_default_str();
  app.add_option("--stores", o.stores, "stores to run: embedded,etcd1,etcd3")
      ->delimiter(',')
      ->check(CLI::IsMember({"embedded", "etcd1", "etcd3"}))
      ->capture_default_str();
  app.add_option("--clients", o.clients, "concurrent clients of the create phases")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--creates", o.creates, "Pods (and raw Txns) per create phase")
      ->capture_default_str();
  app.add_option("--list-pods", o.list_pods, "Pods in the namespace for the LISTs (0: none)")
      ->capture_default_str();
  app.add_option("--list-stores", o.list_stores, "stores the LISTs run on")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--fill-seconds", o.fill_seconds,
                 "at most this long creating the LISTs' Pods per store (then fewer are listed)")
      ->capture_default_str();
  app.add_option("--lists", o.lists, "LISTs of each kind to time")->capture_default_str();
  app.add_option("--watchers", o.watchers, "watch streams for the watch delay (0: none)")
      ->capture_default_str();
  app.add_option("--watch-events", o.watch_events, "Pods created while watched")
      ->capture_default_str();
  app.add_option("--watch-interval-ms", o.watch_interval_ms, "pause between watched creates")
      ->capture_default_str();
  app.add_flag("--keep-data", o.keep, "keep the servers' temp data dirs (server.log)");
  CLI11_PARSE(app, argc, argv);

  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  std::printf("$ %s\n\n", command.c_str());
  std::fflush(stdout);
  signal(SIGPIPE, SIG_IGN);

  const auto t0 = Clock::now();
  std::map<std::string, Column> cols;
  std::vector<std::string> order;
  bool ok = true;
  for (const auto& store : o.stores) {
    std::fprintf(stderr, "=== %s\n", store.c_str());
    const auto s0 = Clock::now();
    Column col;
    try {
      ok = RunStore(o, store, col) && ok;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "etcd_bench: %s: %s\n", store.c_str(), e.what());
      col["ERROR"] = e.what();
      ok = false;
    }
    col["store phase wall time"] = fmt::format("{:.0f} s", Seconds(Clock::now() - s0));
    cols[store] = col;
  }
  // Rows in a fixed, readable order: the measurement sequence of RunStore.
  auto add = [&](const std::string& m) {
    if (std::find(order.begin(), order.end(), m) != order.end()) return;
    for (const auto& col : cols) {
      if (col.second.count(m)) {
        order.push_back(m);
        return;
      }
    }
  };
  add("Pod JSON body");
  add("Pod value in etcd (protobuf)");
  for (int c : o.clients) {
    add(fmt::format("Pod creates/s, {} clients (HTTPS)", c));
    add(fmt::format("etcd Create Txn/s, {} callers (EtcdClient)", c));
    add(fmt::format("ratio svcplane / etcd, {} clients", c));
    add(fmt::format("  create p50 / p99, {} clients", c));
    add(fmt::format("  etcd Txn p50 / p99, {} callers", c));
    add(fmt::format("  server / etcd CPU per create, {} clients", c));
    add(fmt::format("  etcd Range / Txn RPCs per create, {} clients", c));
    add(fmt::format("  etcd CPU per Txn, {} callers", c));
  }
  add("fill to the LIST's Pods (64 clients)");
  add("LIST: Pods listed");
  for (const char* first : {"LIST "})
    for (const auto& col : cols)
      for (const auto& row : col.second)
        if (row.first.starts_with(first)) add(row.first);
  add("  consistent / cached (p50)");
  add("  LIST body");
  for (const auto& col : cols)
    for (const auto& row : col.second)
      if (row.first.starts_with("watch ")) add(row.first);
  add("  watch events missed");
  add("server RSS at the end");
  add("other processes' CPU during this column");
  for (const auto& col : cols)
    for (const auto& row : col.second)
      if (row.first != "store phase wall time") add(row.first);  // the rest (errors)
  add("store phase wall time");
  PrintColumns(o, order, cols);
  std::printf("\ntotal %.0f s\n", Seconds(Clock::now() - t0));
  if (!ok) std::fprintf(stderr, "etcd_bench: FAILED (see the table and stderr)\n");
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace svcplane::bench::etcdbench

int main(int argc, char** argv) { return svcplane::bench::etcdbench::Main(argc, argv); }
