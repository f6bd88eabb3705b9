// Informer initial sync of N realistic Pods (pod.json, ~3 KB stored) from a real API server
// started in this process: over HTTPS with the REST Clientset, and in-process with the loopback
// Clientset; then the memory one cached Pod costs over HTTPS, with and without the transform
// controllers use (client/informers/transforms.h). Prints a table; not a Google Benchmark binary
// because every phase depends on the Pods the first one created.
//
// --content-type picks the HTTPS clientset's encoding (application/json,
// application/vnd.kubernetes.protobuf, or both: every HTTPS case once per encoding).
//
// --only NAME runs only the sync cases whose name contains NAME; --skip-memory skips the memory
// measurements (for profiling one case); --data-dir DIR keeps the server's data in DIR and a later
// run with the same --pods reuses the Pods (creating 100,000 takes 1-3 minutes here).
//
// Each sync line also gives the process's minor page faults and the CPU of the threads that
// existed before it (the server's, the list decode thread after the first sync) and of the ones
// it started (the informer's): slow syncs on this VM were the ones that faulted in ~170,000 new
// pages, with the kernel's page clearing taking a third of the samples.
//
// The reflector lists as client-go does (resourceVersion=0&limit=500) and the server, as
// kube-apiserver's watch cache, ignores the limit at "0": the "pages of N" cases all fetch one
// unpaged list now; the page size only matters for a server that pages at "0".
//
//   build/bench/informer_bench --pods 100000 --runs 3 --content-type both

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <tuple>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "api/codec/json.h"
#include "api/codec/protobuf.h"
#include "apiserver/server/api_server.h"
#include "client/informers/shared_informer.h"
#include "client/informers/store.h"
#include "client/informers/transforms.h"
#include "client/transport/https_transport.h"
#include "client/transport/kubeconfig.h"
#include "client/typed/rest_clientset.h"

namespace svcplane {
namespace {

using api::core::v1::Pod;
using client::ObjectPtr;
using client::informers::SharedIndexInformer;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// CPU seconds (user + system) of the whole process: server and client threads alike. On this
// shared machine the wall time of a sync follows the other load; the CPU it took does not.
double ProcessCpuSeconds(uint64_t* minflt = nullptr) {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  if (minflt != nullptr) *minflt = static_cast<uint64_t>(ru.ru_minflt);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return s(ru.ru_utime) + s(ru.ru_stime);
}

// CPU seconds and minor page faults of each thread of this process, by thread id.
struct ThreadUsage {
  double cpu = 0;
  uint64_t minflt = 0;
};
std::map<int, ThreadUsage> ThreadsNow() {
  std::map<int, ThreadUsage> out;
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream in(e.path() / "stat");
    std::string line;
    std::getline(in, line);
    // Fields after the ")" that closes the thread name: state is field 3, minflt 10, utime 14.
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    std::vector<std::string> f{"", "", ""};  // fields 1-2 consumed above; index = field number
    std::string tok;
    while (rest >> tok) f.push_back(tok);
    if (f.size() < 16) continue;
    ThreadUsage u;
    u.minflt = std::stoull(f[10]);
    u.cpu = (std::stod(f[14]) + std::stod(f[15])) / tick;
    out[std::stoi(e.path().filename().string())] = u;
  }
  return out;
}

size_t HeapInUse() {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

size_t RssBytes() {
  std::ifstream in("/proc/self/statm");
  size_t pages = 0, rss = 0;
  in >> pages >> rss;
  return rss * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

Pod LoadTemplate(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  auto pod = api::codec::DecodeJson<Pod>(ss.str());
  if (!pod.ok()) {
    fmt::print(stderr, "{}: {}\n", path, pod.status().ToString());
    std::exit(1);
  }
  auto& m = pod->metadata;
  m.uid.clear();
  m.resource_version.clear();
  m.owner_references.clear();  // the garbage collector would delete Pods of a missing owner
  m.rest.reset();  // generateName, managedFields: set by the server, not by the template
  m.namespace_ = "default";
  return *pod;
}

struct SyncResult {
  double start = 0;  // steady clock (CLOCK_MONOTONIC) seconds, to line up with perf record -k 1
  double seconds = 0;
  double cpu_seconds = 0;  // of the process (server and client) during the sync
  size_t objects = 0;
  uint64_t minflt = 0;  // of the process
  // Of the threads that existed before the sync (the server's) and of the ones it started (the
  // informer's): which side's work a slow run grew.
  double old_threads_cpu = 0;
  double new_threads_cpu = 0;
  uint64_t old_threads_minflt = 0;
  uint64_t new_threads_minflt = 0;
};

// Starts an informer, waits for its initial sync, and reports the time; the informer is left
// running in `*keep` when given (for memory measurements).
SyncResult Sync(client::ResourceClient<Pod>& pods, bool slim, int64_t page_size,
                std::unique_ptr<SharedIndexInformer<Pod>>* keep = nullptr) {
  client::informers::ReflectorOptions ro;
  ro.page_size = page_size;
  auto informer =
      std::make_unique<SharedIndexInformer<Pod>>(pods, client::informers::InformerOptions{}, ro);
  if (slim) (void)informer->SetTransform(client::informers::SlimPodForServiceControllers);
  const auto threads0 = ThreadsNow();
  const auto start = Clock::now();
  uint64_t minflt0 = 0;
  const double cpu0 = ProcessCpuSeconds(&minflt0);
  informer->Start();
  if (!informer->WaitForCacheSync(Clock::now() + std::chrono::minutes(5))) {
    fmt::print(stderr, "informer did not sync\n");
    std::exit(1);
  }
  uint64_t minflt1 = 0;
  SyncResult r{Seconds(start.time_since_epoch()), Seconds(Clock::now() - start),
               ProcessCpuSeconds(&minflt1) - cpu0, informer->store().size()};
  r.minflt = minflt1 - minflt0;
  for (const auto& [tid, u] : ThreadsNow()) {
    auto was = threads0.find(tid);
    if (was == threads0.end()) {
      r.new_threads_cpu += u.cpu;
      r.new_threads_minflt += u.minflt;
    } else {
      r.old_threads_cpu += u.cpu - was->second.cpu;
      r.old_threads_minflt += u.minflt - was->second.minflt;
    }
  }
  if (keep) {
    *keep = std::move(informer);
  } else {
    informer->Shutdown();
  }
  return r;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int Main(int argc, char** argv) {
  CLI::App app("informer initial sync and cache memory");
  int pods = 100000;
  int runs = 3;
  int threads = 4;
  int64_t big_page = 5000;
  std::string pod_json = SVCPLANE_TESTDATA "/pod.json";
  app.add_option("--pods", pods, "Pods to create")->capture_default_str();
  app.add_option("--runs", runs, "sync runs per transport (median reported)")
      ->capture_default_str();
  app.add_option("--threads", threads, "creating threads")->capture_default_str();
  app.add_option("--big-page", big_page, "page size of the second HTTPS case")
      ->capture_default_str();
  app.add_option("--pod-json", pod_json, "Pod template")->capture_default_str();
  std::string content_type = "both";
  app.add_option("--content-type", content_type, "encoding of the HTTPS clientset")
      ->check(CLI::IsMember({"application/json", "application/vnd.kubernetes.protobuf", "both"}))
      ->capture_default_str();
  std::string only;
  app.add_option("--only", only, "run only the sync cases whose name contains this")
      ->capture_default_str();
  std::string data_dir;
  app.add_option("--data-dir", data_dir,
                 "keep the server's data here; a later run with the same --pods reuses the Pods "
                 "instead of creating them (for profiling)");
  bool skip_memory = false;
  app.add_flag("--skip-memory", skip_memory, "skip the memory measurements");
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);

  // Deterministic cache cost, before any server thread exists: N Pods as the informer caches
  // them (uid, resourceVersion, status as a running Pod has), in a ThreadSafeStore with its
  // namespace index, full and transformed.
  const Pod tmpl = LoadTemplate(pod_json);
  auto cache_cost = [&](bool slim) {
    malloc_trim(0);
    const size_t heap0 = HeapInUse();
    {
      client::informers::ThreadSafeStore<Pod> store;
      for (int i = 0; i < pods; ++i) {
        auto p = std::make_shared<Pod>(tmpl);
        p->metadata.name = fmt::format("web-7d9c6b5f4-{:07d}", i);
        p->metadata.uid = fmt::format("0b8b1d8e-6a1e-4b6e-8a0a-{:012d}", i);
        p->metadata.resource_version = std::to_string(1000000 + i);
        p->status.pod_ip = fmt::format("10.{}.{}.{}", 64 + i / 65536, (i / 256) % 256, i % 256);
        if (!p->status.pod_ips.empty()) p->status.pod_ips[0].ip = p->status.pod_ip;
        ObjectPtr<Pod> obj = std::move(p);
        if (slim) obj = client::informers::SlimPodForServiceControllers(std::move(obj));
        store.Upsert(std::move(obj));
      }
      malloc_trim(0);
      return (static_cast<double>(HeapInUse()) - static_cast<double>(heap0)) / pods;
    }
  };
  // What one decoded Pod holds on the heap, by wire encoding (capacity included: a decoder that
  // grows its strings leaves slack that every cached Pod keeps).
  auto decoded_cost = [&](bool protobuf) {
    std::string json = api::codec::EncodeJson(tmpl);
    std::string message;
    api::codec::EncodeProtobufMessage(tmpl, &message);
    malloc_trim(0);
    const size_t heap0 = HeapInUse();
    std::vector<Pod> decoded;
    decoded.reserve(10000);
    for (int i = 0; i < 10000; ++i) {
      auto p = protobuf ? api::codec::DecodeProtobufMessage<Pod>(message)
                        : api::codec::DecodeJson<Pod>(json);
      decoded.push_back(std::move(*p));
    }
    return (static_cast<double>(HeapInUse()) - static_cast<double>(heap0)) / 10000;
  };
  fmt::print(
      "heap of one decoded Pod (sizeof included): from JSON {:.0f} B, from protobuf {:.0f} B\n",
      decoded_cost(false), decoded_cost(true));
  const double quiet_full = cache_cost(false);
  const double quiet_slim = cache_cost(true);
  fmt::print(
      "cache cost per Pod, measured before the server starts: full {:.0f} B, transformed "
      "{:.0f} B\n",
      quiet_full, quiet_slim);

  const bool keep_data = !data_dir.empty();
  auto dir = keep_data ? std::filesystem::path(data_dir)
                       : std::filesystem::temp_directory_path() /
                             ("svcplane-informer-bench-" + std::to_string(::getpid()));
  if (!keep_data) std::filesystem::remove_all(dir);
  apiserver::server::ApiServerOptions so;
  so.data_dir = dir.string();
  so.port = 0;
  auto srv = apiserver::server::ApiServer::Start(so);
  if (!srv.ok()) {
    fmt::print(stderr, "start: {}\n", srv.status().ToString());
    return 1;
  }
  client::Clientset& local = (*srv)->loopback();
  auto config = client::transport::LoadKubeconfig((*srv)->kubeconfig_path());
  if (!config.ok()) return 1;
  config->qps = -1;  // measure the informer, not the client-side limiter
  // One clientset per encoding asked for, each on its own transport (connection pool).
  std::vector<std::pair<std::string, std::unique_ptr<client::Clientset>>> rests;
  for (auto [name, type] : {std::pair("JSON", client::transport::ContentType::kJson),
                            std::pair("protobuf", client::transport::ContentType::kProtobuf)}) {
    const bool want = content_type == "both" || (type == client::transport::ContentType::kJson) ==
                                                    (content_type == "application/json");
    if (!want) continue;
    auto https = client::transport::HttpsTransport::Create(*config);
    if (!https.ok()) return 1;
    rests.emplace_back(name,
                       client::typed::MakeRestClientset(
                           std::shared_ptr<client::transport::HttpTransport>(std::move(*https)),
                           {.content_type = type}));
  }
  client::Clientset* rest = rests.front().second.get();  // the memory measurements use it

  // Create the Pods in-process (with their status, as a running cluster's Pods have).
  const auto create_start = Clock::now();
  std::atomic<int> next{0};
  if (keep_data) {
    auto have = local.Pods().List("default", {});
    if (have.ok() && have->items.size() == static_cast<size_t>(pods)) next = pods;
  }
  std::atomic<int> failed{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      Pod p = tmpl;
      for (int i = next++; i < pods; i = next++) {
        p.metadata.name = fmt::format("web-7d9c6b5f4-{:07d}", i);
        p.metadata.resource_version.clear();
        auto created = local.Pods().Create(p);
        if (!created.ok()) {
          ++failed;
          continue;
        }
        Pod s = **created;
        s.status = tmpl.status;
        s.status.pod_ip = fmt::format("10.{}.{}.{}", 64 + i / 65536, (i / 256) % 256, i % 256);
        if (!s.status.pod_ips.empty()) s.status.pod_ips[0].ip = s.status.pod_ip;
        if (!local.Pods().UpdateStatus(s).ok()) ++failed;
      }
    });
  }
  for (auto& th : pool) th.join();
  const double create_s = Seconds(Clock::now() - create_start);
  auto sample = local.Pods().Get("default", "web-7d9c6b5f4-0000000");
  if (!sample.ok()) return 1;
  const size_t pod_bytes = api::codec::EncodeJson(**sample).size();
  fmt::print("created {} Pods ({} failed) in {:.1f} s; stored JSON {} bytes each\n", pods,
             failed.load(), create_s, pod_bytes);

  // Pages of 500 are client-go's default. In-process there is nothing to serialise, so one
  // unpaged list is the natural choice; over HTTPS bigger pages mean fewer round trips.
  struct Case {
    std::string name;
    client::ResourceClient<Pod>* pods;
    bool slim;
    int64_t page;
    std::vector<double> seconds;
    std::vector<double> cpu_seconds;
  };
  std::vector<Case> cases = {
      {"in-process, pages of 500", &local.Pods(), false, 500, {}, {}},
      {"in-process, unpaged", &local.Pods(), false, 0, {}, {}},
  };
  for (auto& [name, cs] : rests) {
    cases.push_back({fmt::format("HTTPS {}, pages of 500", name), &cs->Pods(), false, 500, {}, {}});
    cases.push_back({fmt::format("HTTPS {}, pages of {}", name, big_page),
                     &cs->Pods(),
                     false,
                     big_page,
                     {},
                     {}});
    cases.push_back(
        {fmt::format("HTTPS {} + transform, pages of 500", name), &cs->Pods(), true, 500, {}, {}});
  }
  if (!only.empty()) {
    std::erase_if(cases, [&](const Case& c) { return c.name.find(only) == std::string::npos; });
  }
  size_t synced = 0;
  for (int r = 0; r < runs; ++r) {
    for (auto& c : cases) {
      auto got = Sync(*c.pods, c.slim, c.page);
      c.seconds.push_back(got.seconds);
      c.cpu_seconds.push_back(got.cpu_seconds);
      synced = got.objects;
      fmt::print(
          "run {}: {}: {:.3f} s, CPU {:.3f} s, {} minor faults ({} objects); live informer threads "
          "{:.2f} s CPU, {} "
          "minor faults; other threads {:.2f} s CPU, {} minor faults; from {:.3f}\n",
          r + 1, c.name, got.seconds, got.cpu_seconds, got.minflt, got.objects, got.new_threads_cpu,
          got.new_threads_minflt, got.old_threads_cpu, got.old_threads_minflt, got.start);
    }
  }

  // Memory per cached Pod over HTTPS: heap in use (all arenas) with the informer holding its
  // cache, minus before it started, after a warm-up so the server's own caches are already full.
  auto measure = [&](bool slim) {
    malloc_trim(0);
    const size_t heap0 = HeapInUse();
    const size_t rss0 = RssBytes();
    std::unique_ptr<SharedIndexInformer<Pod>> held;
    Sync(rest->Pods(), slim, 500, &held);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    malloc_trim(0);
    const double heap = static_cast<double>(HeapInUse()) - static_cast<double>(heap0);
    const double rss = static_cast<double>(RssBytes()) - static_cast<double>(rss0);
    const size_t n = held->store().size();
    held->Shutdown();
    held.reset();
    return std::pair<double, double>(heap / n, rss / n);
  };
  // The transformed object alone, without the cache around it.
  {
    malloc_trim(0);
    const size_t heap0 = HeapInUse();
    std::vector<ObjectPtr<Pod>> slims;
    slims.reserve(10000);
    for (int i = 0; i < 10000; ++i) {
      slims.push_back(client::informers::SlimPodForServiceControllers(*sample));
    }
    fmt::print("sizeof(Pod) {} B; a transformed Pod alone {:.0f} B\n", sizeof(Pod),
               (static_cast<double>(HeapInUse()) - static_cast<double>(heap0)) / 10000 -
                   sizeof(ObjectPtr<Pod>));
  }
  double full_heap = 0, full_rss = 0, slim_heap = 0, slim_rss = 0;
  if (!skip_memory) {
    std::tie(full_heap, full_rss) = measure(false);
    std::tie(slim_heap, slim_rss) = measure(true);
  }

  fmt::print(
      "\n| informer, {} Pods ({} B JSON each), median of {} | result | process CPU | target |\n",
      synced, pod_bytes, runs);
  fmt::print(
      "|------------------------------------------|---------------|-------------|----------|\n");
  for (const auto& c : cases) {
    fmt::print("| sync: {:<40} | {:8.3f} s    | {:8.3f} s  | {:8} |\n", c.name, Median(c.seconds),
               Median(c.cpu_seconds),
               c.pods == &local.Pods() ? "<= 0.3 s" : (c.slim ? "" : "<= 2 s"));
  }
  fmt::print("| cache per Pod (store+index), full, quiet  | {:8.0f} B    |          |\n",
             quiet_full);
  fmt::print("| cache per Pod, transform, quiet          | {:8.0f} B    | <= 2 KiB |\n",
             quiet_slim);
  fmt::print("| (memory below measured with the HTTPS {} clientset)\n", rests.front().first);
  fmt::print("| heap per cached Pod, HTTPS, full object  | {:8.0f} B    |          |\n", full_heap);
  fmt::print("| heap per cached Pod, HTTPS, transform    | {:8.0f} B    | <= 2 KiB |\n", slim_heap);
  fmt::print("| RSS per cached Pod, HTTPS, full / slim   | {:5.0f} / {:5.0f} B |          |\n",
             full_rss, slim_rss);
  (*srv)->Shutdown();
  srv->reset();
  if (!keep_data) std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace svcplane

int main(int argc, char** argv) {
  // The malloc setting the svcplane binary, whose `controllers` run these informers, starts
  // with (cmd/malloc_tuning.h DisableMallocFastbins).
  mallopt(M_MXFAST, 0);
  return svcplane::Main(argc, argv);
}
