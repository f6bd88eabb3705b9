// Phase (d): fan-out of the bench's own EndpointSlice writes to many protobuf watchers of every
// slice in the cluster, as kube-proxies watch them.

#include <sys/resource.h>

#include <atomic>
#include <boost/asio/ssl/context.hpp>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "bench/e2e/fanout_watcher.h"
#include "bench/e2e/phases.h"

namespace svcplane::bench::e2e {

namespace {

constexpr std::string_view kNamespace = "e2e-fanout";
constexpr std::string_view kSlices = "/apis/discovery.k8s.io/v1/endpointslices";

std::string SliceName(int i) { return fmt::format("fan-{:03d}", i); }

// A slice no controller touches (its managed-by is ours), with one endpoint.
std::string SliceBody(int i) {
  return fmt::format(
      R"({{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{{"name":"{}",)"
      R"("labels":{{"endpointslice.kubernetes.io/managed-by":"e2e-bench"}}}},)"
      R"("addressType":"IPv4","endpoints":[{{"addresses":["10.255.0.{}"],)"
      R"("conditions":{{"ready":true}}}}],"ports":[{{"name":"http","port":8080,)"
      R"("protocol":"TCP"}}]}})",
      SliceName(i), i % 250 + 1);
}

std::string MarkerPatch(size_t k) {
  return fmt::format(R"({{"metadata":{{"labels":{{"e2e-bench/marker":"{}{:0{}d}"}}}}}})",
                     kFanoutMarker, k, kFanoutDigits);
}

// A watcher per descriptor and then some: raise the soft limit as far as the hard one.
void RaiseFileLimit() {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

struct Writes {
  std::vector<Clock::time_point> sent, acked;  // by marker; acked zero if the write failed
  std::vector<double> write_ms;
  size_t failed = 0;
  size_t late = 0;  // slots skipped: no writer was free within a slot of their time
  std::string first_error;
};

// Up to `n` marked slice writes at fanout_rate/s: write k is due at `*start` + k / rate and
// goes to slice k % slices from whichever writer is free. A write more than one slot late is
// skipped rather than sent in a catch-up burst, so the rate never exceeds fanout_rate. Sets
// `*start` once the writers are connected.
Writes RunWrites(const Context& ctx, size_t n, Clock::time_point* start_out) {
  const Options& o = ctx.options;
  const int writers = std::max(1, o.fanout_writers);
  std::vector<std::unique_ptr<Client>> conns;
  for (int w = 0; w < writers; ++w) conns.push_back(std::make_unique<Client>(ctx.ep, ctx.tls));
  const auto start = *start_out = Clock::now();
  Writes out;
  out.sent.resize(n);
  out.acked.resize(n);
  const auto slot = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(1.0 / std::max(o.fanout_rate, 1)));
  std::atomic<size_t> next{0};
  std::vector<Writes> per(static_cast<size_t>(writers));
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      Writes& r = per[static_cast<size_t>(w)];
      try {
        Client& c = *conns[static_cast<size_t>(w)];
        const std::string base =
            fmt::format("/apis/discovery.k8s.io/v1/namespaces/{}/endpointslices/", kNamespace);
        for (size_t k; (k = next.fetch_add(1)) < n;) {
          const auto due = start + slot * static_cast<double>(k);
          std::this_thread::sleep_until(due);
          if (Clock::now() - due > slot) {
            ++r.late;
            continue;
          }
          const auto sent = Clock::now();
          auto res = c.Do("PATCH", base + SliceName(static_cast<int>(k) % o.fanout_slices),
                          MarkerPatch(k), kMergePatch);
          const auto acked = Clock::now();
          r.write_ms.push_back(Ms(acked - sent));
          out.sent[k] = sent;  // each k has one writer
          if (res.status == 200) {
            out.acked[k] = acked;
          } else if (r.failed++ == 0) {
            r.first_error = CheckStatus(res, {200}, "patch EndpointSlice");
          }
        }
      } catch (const std::exception& e) {
        ++r.failed;
        if (r.first_error.empty()) r.first_error = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& r : per) {
    out.write_ms.insert(out.write_ms.end(), r.write_ms.begin(), r.write_ms.end());
    out.failed += r.failed;
    out.late += r.late;
    if (out.first_error.empty()) out.first_error = r.first_error;
  }
  return out;
}

}  // namespace

bool RunFanout(const Context& ctx, std::vector<Row>* rows) {
  const Options& o = ctx.options;
  RaiseFileLimit();
  Client c(ctx.ep, ctx.tls);
  CreateNamespace(c, kNamespace);
  for (int i = 0; i < o.fanout_slices; ++i) {
    auto err = CheckStatus(
        c.Do("POST",
             fmt::format("/apis/discovery.k8s.io/v1/namespaces/{}/endpointslices", kNamespace),
             SliceBody(i)),
        {201}, "create EndpointSlice");
    if (!err.empty()) throw std::runtime_error(err);
  }
  const std::string request = fmt::format(
      "GET {}?watch=1&resourceVersion={} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      "Authorization: Bearer {}\r\nAccept: {}\r\nUser-Agent: e2e-bench/fanout\r\n\r\n",
      kSlices, ListResourceVersion(c, std::string(kSlices)), ctx.ep.token, kProtobufAccept);

  const size_t n = static_cast<size_t>(std::max(o.fanout_rate, 0)) *
                   static_cast<size_t>(std::max(o.fanout_seconds, 0));
  FanoutShared shared;
  shared.writes = n;
  shared.t0 = Clock::now();
  const size_t threads = static_cast<size_t>(std::max(o.fanout_threads, 1));
  std::vector<std::unique_ptr<FanoutPoller>> pollers;
  for (size_t t = 0; t < threads; ++t) {
    const size_t share = static_cast<size_t>(std::max(o.fanout_watchers, 0)) / threads +
                         (t < static_cast<size_t>(std::max(o.fanout_watchers, 0)) % threads);
    pollers.push_back(std::make_unique<FanoutPoller>(ctx.tls->native_handle(), ctx.ep.port, request,
                                                     &shared, share));
  }
  for (auto& p : pollers) p->Start();
  const auto connect_start = Clock::now();
  while (shared.ready + shared.failed < o.fanout_watchers &&
         Clock::now() - connect_start < std::chrono::seconds(120)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const double connect_s = Seconds(Clock::now() - connect_start);
  const int ready = shared.ready.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));

  const double server0 = ctx.server.CpuSeconds(), self0 = SelfCpuSeconds();
  Clock::time_point start;
  Writes writes = RunWrites(ctx, n, &start);
  const double window = Seconds(Clock::now() - start);
  const double server_cpu = ctx.server.CpuSeconds() - server0, self_cpu = SelfCpuSeconds() - self0;
  const size_t acked = n - writes.failed - writes.late;
  const auto miss = std::chrono::milliseconds(o.miss_after_ms);
  const auto drain_end = Clock::now() + miss;
  while (shared.delivered.load() < static_cast<size_t>(ready) * acked && Clock::now() < drain_end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const long rss_kb = ctx.server.RssKb();
  for (auto& p : pollers) p->Stop();

  std::vector<double> lat;
  lat.reserve(static_cast<size_t>(ready) * acked);
  size_t missed = 0;
  std::ofstream log;
  if (!o.log_dir.empty()) {
    log.open(o.log_dir + "/fanout.tsv");
    log << "write\tsent_ms\twrite_ms\tp50_ms\tp99_ms\tmax_ms\tmissed\n";
  }
  std::vector<double> per_write;
  for (size_t k = 0; k < n; ++k) {
    if (writes.acked[k] == Clock::time_point{}) continue;
    per_write.clear();
    size_t missed_k = 0;
    for (const auto& p : pollers) {
      for (size_t w = 0; w < p->size(); ++w) {
        if (!p->ok(w)) continue;
        const int64_t a = p->arrivals(w)[k];
        const auto at = shared.t0 + std::chrono::nanoseconds(a - 1);
        if (a == 0 || at - writes.acked[k] > miss) {
          ++missed_k;
        } else {
          per_write.push_back(std::max(0.0, Ms(at - writes.acked[k])));
        }
      }
    }
    missed += missed_k;
    lat.insert(lat.end(), per_write.begin(), per_write.end());
    if (log.is_open()) {
      log << fmt::format("{}\t{:.3f}\t{:.3f}\t{:.3f}\t{:.3f}\t{:.3f}\t{}\n", k,
                         Ms(writes.sent[k] - start), Ms(writes.acked[k] - writes.sent[k]),
                         Percentile(per_write, 50), Percentile(per_write, 99), Max(per_write),
                         missed_k);
    }
  }

  rows->push_back(
      {fmt::format("fanout: protobuf watchers of all slices ready ({} reader threads)", threads),
       fmt::format("{} of {} in {:.1f} s{}", ready, o.fanout_watchers, connect_s,
                   shared.failed ? fmt::format(", {} failed", shared.failed.load()) : ""),
       ""});
  rows->push_back({fmt::format("fanout: write ack -> watcher p50 / p99 / max ({} writes/s for {} "
                               "s, {} watchers x {} writes)",
                               o.fanout_rate, o.fanout_seconds, ready, acked),
                   FormatLatencies(lat), ""});
  rows->push_back({fmt::format("  missed (not seen in {} ms)", o.miss_after_ms),
                   fmt::format("{}{}", missed,
                               shared.ended ? fmt::format(" ({} streams closed by the server)",
                                                          shared.ended.load())
                                            : ""),
                   "0"});
  rows->push_back({"  slice writes/s achieved; slice PATCH p50 / p99 / max",
                   fmt::format("{:.0f} ({} late slots skipped, {} failed); {}",
                               static_cast<double>(acked) / window, writes.late, writes.failed,
                               FormatLatencies(writes.write_ms)),
                   ""});
  rows->push_back({"  server / bench CPU during writes",
                   fmt::format("{:.0f}% / {:.0f}% of one core", 100 * server_cpu / window,
                               100 * self_cpu / window),
                   ""});
  rows->push_back({fmt::format("  server RSS with {} watchers", ready),
                   fmt::format("{} MiB", rss_kb / 1024), ""});
  if (writes.failed) std::fprintf(stderr, "fanout: %s\n", writes.first_error.c_str());
  return writes.failed == 0 && missed == 0 && ready == o.fanout_watchers;
}

}  // namespace svcplane::bench::e2e
