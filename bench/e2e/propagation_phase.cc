// Phase (a): readiness flips through pods/status -> EndpointSlice events at external watchers.
//
// A flip's latency is from the acknowledgement of its pods/status write to the first slice
// event at a watcher that shows the Pod's endpoint with the new readiness. A Pod is flipped
// again only once both watchers showed its last flip (or that flip counts as missed), so any
// event showing the new readiness after the write was sent belongs to that write.

#include <algorithm>
#include <atomic>
#include <fstream>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "bench/e2e/phases.h"
#include "bench/e2e/slices.h"
#include "bench/e2e/watch_stream.h"

namespace svcplane::bench::e2e {

namespace {

constexpr std::string_view kNamespace = "e2e-prop";
constexpr uint32_t kIpBase = 10u << 24;  // 10.0.0.0/9

struct Flip {
  uint32_t pod;
  bool ready;
  Clock::time_point sent, acked;
};

struct Observation {
  uint32_t pod;
  bool ready;
  Clock::time_point at;
};

// One watcher's view of every Pod's readiness, from its slice events. OnEvent runs on the
// stream's thread; seen() is safe from any thread; observations() once the stream stopped.
class ReadinessView {
 public:
  ReadinessView(size_t pods, int pods_per_service, Encoding encoding)
      : pods_per_service_(pods_per_service), encoding_(encoding), seen_(pods) {
    for (auto& s : seen_) s.store(1, std::memory_order_relaxed);  // every Pod starts Ready
  }

  void OnEvent(std::string_view event, Clock::time_point at) {
    auto e = DecodeSliceEvent(event, encoding_);
    if (!e.ok()) {
      if (errors_++ == 0) first_error_ = e.status().ToString();
      return;
    }
    if (e->type != "ADDED" && e->type != "MODIFIED") return;
    for (const auto& ep : e->slice.endpoints) {
      if (!ep.target_ref) continue;
      auto pod = ParsePodIndex(ep.target_ref->name, pods_per_service_);
      if (!pod || *pod >= seen_.size()) continue;
      const uint8_t ready = ep.conditions.ready.value_or(false) ? 1 : 0;
      if (seen_[*pod].load(std::memory_order_relaxed) == ready) continue;
      seen_[*pod].store(ready, std::memory_order_release);
      obs_.push_back({*pod, ready == 1, at});
    }
  }

  uint8_t seen(uint32_t pod) const { return seen_[pod].load(std::memory_order_acquire); }
  const std::vector<Observation>& observations() const { return obs_; }
  size_t errors() const { return errors_; }
  const std::string& first_error() const { return first_error_; }

 private:
  const int pods_per_service_;
  const Encoding encoding_;
  std::vector<std::atomic<uint8_t>> seen_;
  std::vector<Observation> obs_;
  size_t errors_ = 0;
  std::string first_error_;
};

// When each Pod's events reach a protobuf Pod watcher: the part of a flip's latency that is the
// server's own (write, commit, watch fan-out), without the controller. The Pod's name is found
// in the frame's bytes (metadata.name comes first); nothing is decoded. OnEvent runs on the
// stream's thread; observations() once the stream stopped.
class PodEventLog {
 public:
  explicit PodEventLog(int pods_per_service) : pods_per_service_(pods_per_service) {}

  void OnEvent(std::string_view event, Clock::time_point at) {
    for (size_t i = 0; i + 11 <= event.size(); ++i) {
      if (event[i] != 's' || event[i + 7] != '-') continue;
      if (auto pod = ParsePodIndex(event.substr(i, 11), pods_per_service_)) {
        obs_.push_back({*pod, true, at});
        return;
      }
    }
  }
  const std::vector<Observation>& observations() const { return obs_; }

 private:
  const int pods_per_service_;
  std::vector<Observation> obs_;
};

// Per flip, its latency in ms: the first of `obs` for its Pod after it was sent (with its new
// readiness if `match_ready`), or -1 if there was none within `miss`.
std::vector<double> Match(const std::vector<Flip>& flips, const std::vector<Observation>& obs,
                          bool match_ready, size_t pods, Clock::duration miss) {
  // Observations grouped by Pod, in arrival order (a counting sort).
  std::vector<uint32_t> start(pods + 1, 0);
  for (const auto& o : obs) ++start[o.pod + 1];
  for (size_t p = 0; p < pods; ++p) start[p + 1] += start[p];
  std::vector<uint32_t> by_pod(obs.size());
  std::vector<uint32_t> fill(start.begin(), start.end() - 1);
  for (uint32_t i = 0; i < obs.size(); ++i) by_pod[fill[obs[i].pod]++] = i;

  std::vector<double> out;
  out.reserve(flips.size());
  for (const Flip& f : flips) {
    std::optional<Clock::time_point> at;
    for (uint32_t k = start[f.pod]; k < start[f.pod + 1] && !at; ++k) {
      const Observation& o = obs[by_pod[k]];
      if (o.at >= f.sent && (!match_ready || o.ready == f.ready)) at = o.at;
    }
    out.push_back(!at || *at - f.acked > miss ? -1 : std::max(0.0, Ms(*at - f.acked)));
  }
  return out;
}

// One line per flip: when it was sent (ms after the first), Pod, new readiness, write latency
// and the latency at each watcher (-1: missed), in columns named `names`.
void WriteFlipLog(const std::string& path, const std::vector<Flip>& flips,
                  const std::vector<std::string>& names,
                  const std::vector<std::vector<double>>& latencies) {
  std::ofstream out(path);
  out << "sent_ms\tpod\tready\twrite_ms";
  for (const auto& n : names) out << "\t" << n << "_ms";
  out << "\n";
  const auto t0 = flips.empty() ? Clock::time_point{} : flips.front().sent;
  for (size_t i = 0; i < flips.size(); ++i) {
    const Flip& f = flips[i];
    out << fmt::format("{:.3f}\t{}\t{}\t{:.3f}", Ms(f.sent - t0), f.pod, f.ready ? 1 : 0,
                       Ms(f.acked - f.sent));
    for (const auto& l : latencies) out << fmt::format("\t{:.3f}", l[i]);
    out << "\n";
  }
}

// Which Pods may be flipped: not in flight, and their last flip shown by every view.
class FlipPicker {
 public:
  FlipPicker(size_t pods, const std::vector<ReadinessView*>& views, Clock::duration miss)
      : views_(views), miss_(miss), order_(pods), expected_(pods), busy_(pods), last_(pods) {
    for (uint32_t i = 0; i < pods; ++i) order_[i] = i;
    std::shuffle(order_.begin(), order_.end(), std::mt19937(20));
    for (auto& e : expected_) e.store(1, std::memory_order_relaxed);
  }

  // A Pod to flip, now marked busy; nullopt if none settled among the next few.
  std::optional<uint32_t> Pick(Clock::time_point now) {
    const size_t tries = std::min<size_t>(64, order_.size());
    for (size_t t = 0; t < tries; ++t) {
      const uint32_t p = order_[cursor_.fetch_add(1) % order_.size()];
      if (busy_[p].exchange(1)) continue;
      bool settled = now - Clock::time_point(Clock::duration(last_[p].load())) > miss_;
      if (!settled) {
        settled = true;
        for (const ReadinessView* v : views_) settled = settled && v->seen(p) == expected_[p];
      }
      if (settled) return p;
      busy_[p].store(0);
    }
    return std::nullopt;
  }
  // Marks the flip of `pod` to `ready` as written (ok) or not.
  bool Begin(uint32_t pod, Clock::time_point now) {
    const bool ready = expected_[pod].load() == 0;
    expected_[pod].store(ready ? 1 : 0);
    last_[pod].store(now.time_since_epoch().count());
    return ready;
  }
  void End(uint32_t pod, bool ready, bool ok) {
    if (!ok) expected_[pod].store(ready ? 0 : 1);
    busy_[pod].store(0);
  }
  // True if every view shows every Pod as last written.
  bool AllSeen() const {
    for (size_t p = 0; p < expected_.size(); ++p) {
      for (const ReadinessView* v : views_) {
        if (v->seen(static_cast<uint32_t>(p)) != expected_[p].load()) return false;
      }
    }
    return true;
  }

 private:
  const std::vector<ReadinessView*> views_;
  const Clock::duration miss_;
  std::vector<uint32_t> order_;  // a shuffled permutation: flips spread over every Pod
  std::atomic<size_t> cursor_{0};
  std::vector<std::atomic<uint8_t>> expected_;  // readiness last written
  std::vector<std::atomic<uint8_t>> busy_;      // a flip in flight
  std::vector<std::atomic<int64_t>> last_;      // when it was last flipped (steady ticks)
};

struct FlipRun {
  std::vector<Flip> flips;
  std::vector<double> write_ms;
  size_t failed = 0, skipped = 0, late = 0;
  std::string first_error;
  double seconds = 0;
};

// `rate` flips/s for `seconds` over `clients` connections, each paced on its own schedule. A
// client that falls more than a slot behind (its writes got slow) skips the slots it missed
// rather than catching up in a burst, so the achieved rate shows the server keeping up or not.
FlipRun RunFlips(const Context& ctx, FlipPicker& picker, int rate, int seconds, int clients) {
  const Options& o = ctx.options;
  const std::string base = fmt::format("/api/v1/namespaces/{}/pods/", kNamespace);
  const std::string bodies[2] = {PodReadyBody(false), PodReadyBody(true)};
  const auto interval = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(static_cast<double>(clients) / std::max(rate, 1)));
  std::vector<FlipRun> per(static_cast<size_t>(clients));
  std::vector<std::unique_ptr<Client>> conns;
  for (int i = 0; i < clients; ++i) conns.push_back(std::make_unique<Client>(ctx.ep, ctx.tls));
  const auto start = Clock::now();
  const auto end = start + std::chrono::seconds(seconds);
  std::vector<std::thread> threads;
  for (int t = 0; t < clients; ++t) {
    threads.emplace_back([&, t] {
      FlipRun& r = per[static_cast<size_t>(t)];
      Client& c = *conns[static_cast<size_t>(t)];
      auto next = start + interval * t / clients;
      while (next < end) {
        std::this_thread::sleep_until(next);
        const auto now = Clock::now();
        if (now - next > interval) {  // late: no catch-up burst, the rate drops instead
          r.late += static_cast<size_t>((now - next) / interval);
          next = now;
        }
        next += interval;
        auto pod = picker.Pick(now);
        if (!pod) {
          ++r.skipped;
          continue;
        }
        const bool ready = picker.Begin(*pod, now);
        const int s = static_cast<int>(*pod / static_cast<uint32_t>(o.pods));
        const int j = static_cast<int>(*pod % static_cast<uint32_t>(o.pods));
        const auto sent = Clock::now();
        auto res =
            c.Do("PATCH", base + PodName(s, j) + "/status", bodies[ready ? 1 : 0], kMergePatch);
        const auto acked = Clock::now();
        const bool ok = res.status == 200;
        picker.End(*pod, ready, ok);
        r.write_ms.push_back(Ms(acked - sent));
        if (ok) {
          r.flips.push_back({*pod, ready, sent, acked});
        } else if (r.failed++ == 0) {
          r.first_error = CheckStatus(res, {200}, "pods/status");
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  FlipRun all;
  all.seconds = Seconds(Clock::now() - start);
  for (auto& r : per) {
    all.flips.insert(all.flips.end(), r.flips.begin(), r.flips.end());
    all.write_ms.insert(all.write_ms.end(), r.write_ms.begin(), r.write_ms.end());
    all.failed += r.failed;
    all.skipped += r.skipped;
    all.late += r.late;
    if (all.first_error.empty()) all.first_error = r.first_error;
  }
  return all;
}

// Creates the Services and Pods and waits until every endpoint is ready; returns false if
// that did not happen within the timeout.
bool Setup(const Context& ctx, std::vector<Row>* rows) {
  const Options& o = ctx.options;
  const size_t want = static_cast<size_t>(o.services) * static_cast<size_t>(o.pods);
  SliceTracker tracker;
  auto watch = WatchSlices(ctx.ep, ctx.tls, kNamespace, tracker);
  const auto start = Clock::now();
  auto p = Populate(ctx, kNamespace, o.services, o.pods, kIpBase, o.setup_clients);
  if (p.services.failed + p.pods.failed > 0) {
    throw std::runtime_error("propagation setup: " + p.services.first_error + p.pods.first_error);
  }
  const double write_s = Seconds(Clock::now() - start);
  auto done = tracker.WaitAllReady(want, Clock::now() + std::chrono::seconds(o.timeout_seconds));
  const double ready_s = Seconds(Clock::now() - start);
  rows->push_back(
      {fmt::format("propagation: setup, {} Services x {} Pods created and Ready", o.services,
                   o.pods),
       fmt::format("{:.1f} s ({:.0f} writes/s); all ready after {:.1f} s{}", write_s,
                   static_cast<double>(p.writes()) / std::max(write_s, 1e-9), ready_s,
                   done ? "" : fmt::format(" TIMED OUT ({} of {} ready)", tracker.ready(), want)),
       ""});
  return done.has_value();
}

}  // namespace

bool RunPropagation(const Context& ctx, std::vector<Row>* rows) {
  const Options& o = ctx.options;
  const size_t pods = static_cast<size_t>(o.services) * static_cast<size_t>(o.pods);
  {
    Client c(ctx.ep, ctx.tls);
    CreateNamespace(c, kNamespace);
  }
  if (!Setup(ctx, rows)) return false;
  WaitForQuietServer(ctx.server.pid(), std::chrono::seconds(30));

  const std::string collection =
      fmt::format("/apis/discovery.k8s.io/v1/namespaces/{}/endpointslices", kNamespace);
  std::string rv;
  {
    Client c(ctx.ep, ctx.tls);
    rv = ListResourceVersion(c, collection);
  }
  const Encoding encodings[] = {Encoding::kJson, Encoding::kProtobuf};
  std::vector<std::unique_ptr<ReadinessView>> views;
  std::vector<ReadinessView*> view_ptrs;
  std::vector<std::unique_ptr<WatchStream>> streams;
  for (Encoding e : encodings) {
    views.push_back(std::make_unique<ReadinessView>(pods, o.pods, e));
    ReadinessView* v = views.back().get();
    view_ptrs.push_back(v);
    streams.push_back(std::make_unique<WatchStream>(
        ctx.ep, ctx.tls, fmt::format("{}?watch=1&resourceVersion={}", collection, rv), e,
        [v](std::string_view ev, Clock::time_point at) { v->OnEvent(ev, at); }));
    streams.back()->Start();
  }
  PodEventLog pod_log(o.pods);
  {
    Client c(ctx.ep, ctx.tls);
    const std::string pods_path = fmt::format("/api/v1/namespaces/{}/pods", kNamespace);
    streams.push_back(std::make_unique<WatchStream>(
        ctx.ep, ctx.tls,
        fmt::format("{}?watch=1&resourceVersion={}", pods_path, ListResourceVersion(c, pods_path)),
        Encoding::kProtobuf,
        [&pod_log](std::string_view ev, Clock::time_point at) { pod_log.OnEvent(ev, at); }));
    streams.back()->Start();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));

  const auto miss = std::chrono::milliseconds(o.miss_after_ms);
  FlipPicker picker(pods, view_ptrs, miss);
  const auto metrics0 = ScrapeControllerMetrics(ctx);
  const double server0 = ctx.server.CpuSeconds(), self0 = SelfCpuSeconds();
  FlipRun run = RunFlips(ctx, picker, o.flip_rate, o.flip_seconds, o.flip_clients);
  const double server_cpu = ctx.server.CpuSeconds() - server0, self_cpu = SelfCpuSeconds() - self0;
  // The last flips' events: wait until every view shows every Pod as written, or `miss`.
  const auto drain_end = Clock::now() + miss;
  while (!picker.AllSeen() && Clock::now() < drain_end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (auto& s : streams) s->Stop();
  const auto metrics1 = ScrapeControllerMetrics(ctx);

  rows->push_back({fmt::format("propagation: flips/s achieved (asked {}/s for {} s, {} clients)",
                               o.flip_rate, o.flip_seconds, o.flip_clients),
                   fmt::format("{:.0f} ({} flips, {} failed; slots skipped: {} late, {} without "
                               "a settled Pod)",
                               static_cast<double>(run.flips.size()) / std::max(run.seconds, 1e-9),
                               run.flips.size(), run.failed, run.late, run.skipped),
                   ""});
  bool ok = run.failed == 0;
  if (run.failed) std::fprintf(stderr, "propagation: %s\n", run.first_error.c_str());
  std::sort(run.flips.begin(), run.flips.end(),
            [](const Flip& a, const Flip& b) { return a.sent < b.sent; });
  std::vector<std::vector<double>> per_view;
  for (size_t w = 0; w < views.size(); ++w) {
    per_view.push_back(Match(run.flips, views[w]->observations(), true, pods, miss));
    std::vector<double> lat;
    size_t missed = 0;
    for (double l : per_view.back()) {
      if (l < 0) {
        ++missed;
      } else {
        lat.push_back(l);
      }
    }
    const auto name = EncodingName(encodings[w]);
    rows->push_back({fmt::format("propagation: flip ack -> slice event p50 / p99 / max, {}", name),
                     FormatLatencies(lat), "p99 <= 10 ms"});
    rows->push_back({fmt::format("  missed (not seen in {} ms), {}", o.miss_after_ms, name),
                     std::to_string(missed), "0"});
    if (streams[w]->ended() || views[w]->errors() > 0) {
      std::fprintf(stderr, "propagation %.*s watcher: %s%s\n", static_cast<int>(name.size()),
                   name.data(), streams[w]->error().c_str(), views[w]->first_error().c_str());
      ok = false;
    }
    ok = ok && missed == 0;
  }
  // Split of the protobuf view's latency: the server's part up to the Pod event, and the rest.
  std::vector<double> pod_lat = Match(run.flips, pod_log.observations(), false, pods, miss);
  std::vector<double> to_pod, after_pod;
  for (size_t i = 0; i < pod_lat.size(); ++i) {
    if (pod_lat[i] < 0) continue;
    to_pod.push_back(pod_lat[i]);
    if (per_view.back()[i] >= 0)
      after_pod.push_back(std::max(0.0, per_view.back()[i] - pod_lat[i]));
  }
  rows->push_back({"  of which: flip ack -> Pod event at a Pod watcher (protobuf)",
                   FormatLatencies(to_pod), ""});
  rows->push_back({"  and then: Pod event -> slice event (controller + slice fan-out)",
                   FormatLatencies(after_pod), ""});
  per_view.push_back(std::move(pod_lat));
  if (!o.log_dir.empty())
    WriteFlipLog(o.log_dir + "/flips.tsv", run.flips,
                 {"slice_json", "slice_protobuf", "pod_protobuf"}, per_view);
  rows->push_back({"  pods/status write p50 / p99 / max", FormatLatencies(run.write_ms), ""});
  rows->push_back({"  server / bench CPU during flips",
                   fmt::format("{:.0f}% / {:.0f}% of one core", 100 * server_cpu / run.seconds,
                               100 * self_cpu / run.seconds),
                   ""});
  if (!metrics1.empty()) {
    auto delta = [&](std::string_view name, std::string_view label) {
      return SumSeries(metrics1, name, {label}) - SumSeries(metrics0, name, {label});
    };
    const char* syncs = "endpoint_slice_controller_syncs";
    const char* changes = "endpoint_slice_controller_changes";
    rows->push_back(
        {"  slice controller during flips: syncs success / stale / error; slice updates",
         fmt::format("{:.0f} / {:.0f} / {:.0f}; {:.0f}", delta(syncs, R"(result="success")"),
                     delta(syncs, R"(result="stale")"), delta(syncs, R"(result="error")"),
                     delta(changes, R"(operation="update")")),
         ""});
  }
  return ok;
}

}  // namespace svcplane::bench::e2e
