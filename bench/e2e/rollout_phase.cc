// Phase (e): a Deployment on the server's simulated nodes (serve --simulate-nodes), created to
// fully available, then restarted as `kubectl rollout restart` does (the same strategic merge
// patch of the template's restartedAt annotation) until the rollout is complete as `kubectl
// rollout status` decides it. Measured from outside: wall times, Pods created per second, the
// EndpointSlice controller's writes per replaced Pod, and how long a Pod's readiness or
// termination took to show in its Service's slices (Pod watch event -> slice watch event, both
// protobuf watches of this process).

#include <map>
#include <mutex>
#include <thread>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <boost/json.hpp>

#include "api/codec/protobuf.h"
#include "bench/e2e/phases.h"
#include "bench/e2e/slices.h"
#include "bench/e2e/watch_stream.h"

namespace svcplane::bench::e2e {

namespace {

constexpr std::string_view kNamespace = "e2e-rollout";
constexpr std::string_view kName = "web";

std::string DeploymentBody(int replicas) {
  return fmt::format(
      R"({{"apiVersion":"apps/v1","kind":"Deployment","metadata":{{"name":"{0}"}},)"
      R"("spec":{{"replicas":{1},"selector":{{"matchLabels":{{"app":"{0}"}}}},)"
      R"("template":{{"metadata":{{"labels":{{"app":"{0}"}}}},)"
      R"("spec":{{"containers":[{{"name":"nginx","image":"nginx","ports":[{{"containerPort":80}}]}}]}}}}}}}})",
      kName, replicas);
}

std::string ServiceBodyFor() {
  return fmt::format(
      R"({{"apiVersion":"v1","kind":"Service","metadata":{{"name":"{0}"}},)"
      R"("spec":{{"selector":{{"app":"{0}"}},"ports":[{{"port":80,"targetPort":80}}]}}}})",
      kName);
}

// What Pod and slice watches saw, per Pod name: when it was first seen, first seen Ready, first
// seen terminating, and when its slice endpoint first showed each of those. Thread-safe.
class Transitions {
 public:
  struct Times {
    std::optional<Clock::time_point> added, pod_ready, pod_terminating;
    std::optional<Clock::time_point> slice_ready, slice_terminating;
  };

  void OnPod(std::string_view event, Clock::time_point at) {
    std::string_view stream = event;
    auto frame = api::codec::NextProtobufWatchFrame(&stream);
    if (!frame.ok() || !frame->has_value()) return;
    const std::string& type = (*frame)->type;
    if (type != "ADDED" && type != "MODIFIED") return;
    auto pod = api::codec::DecodeProtobuf<api::core::v1::Pod>((*frame)->object);
    if (!pod.ok()) return;
    bool ready = false;
    for (const auto& c : pod->status.conditions) ready |= c.type == "Ready" && c.status == "True";
    std::lock_guard lock(mu_);
    Times& t = by_pod_[pod->metadata.name];
    if (!t.added) {
      t.added = at;
      adds_.push_back(at);
    }
    if (ready && !t.pod_ready) t.pod_ready = at;
    if (pod->metadata.deletion_timestamp && !t.pod_terminating) t.pod_terminating = at;
  }

  void OnSlice(std::string_view event, Clock::time_point at) {
    auto e = DecodeSliceEvent(event, Encoding::kProtobuf);
    if (!e.ok() || (e->type != "ADDED" && e->type != "MODIFIED")) return;
    std::lock_guard lock(mu_);
    for (const auto& ep : e->slice.endpoints) {
      if (!ep.target_ref) continue;
      Times& t = by_pod_[ep.target_ref->name];
      if (ep.conditions.ready.value_or(false) && !t.slice_ready) t.slice_ready = at;
      if (ep.conditions.terminating.value_or(false) && !t.slice_terminating) {
        t.slice_terminating = at;
      }
    }
  }

  // Pod event -> slice event latencies (ms) of Pods that turned Ready or terminating at or
  // after `since`; Pods whose slice event never came are counted as missed.
  struct Latencies {
    std::vector<double> ready, terminating;
    size_t missed_ready = 0, missed_terminating = 0;
  };
  Latencies Collect(Clock::time_point since) const {
    Latencies out;
    std::lock_guard lock(mu_);
    for (const auto& [name, t] : by_pod_) {
      if (t.pod_ready && *t.pod_ready >= since) {
        if (t.slice_ready) {
          out.ready.push_back(std::max(0.0, Ms(*t.slice_ready - *t.pod_ready)));
        } else {
          ++out.missed_ready;
        }
      }
      // Only Pods that were in the slices: one deleted before it was ever listed has nothing
      // to show as terminating.
      if (t.pod_terminating && *t.pod_terminating >= since && t.slice_ready) {
        if (t.slice_terminating) {
          out.terminating.push_back(std::max(0.0, Ms(*t.slice_terminating - *t.pod_terminating)));
        } else {
          ++out.missed_terminating;
        }
      }
    }
    return out;
  }

  // Pods first seen in [from, to): their count and the span between the first and the last.
  std::pair<size_t, double> Adds(Clock::time_point from, Clock::time_point to) const {
    std::lock_guard lock(mu_);
    std::optional<Clock::time_point> first, last;
    size_t n = 0;
    for (auto at : adds_) {
      if (at < from || at >= to) continue;
      ++n;
      if (!first || at < *first) first = at;
      if (!last || at > *last) last = at;
    }
    return {n, first ? Seconds(*last - *first) : 0.0};
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, Times> by_pod_;  // guarded by mu_
  std::vector<Clock::time_point> adds_;  // guarded by mu_
};

// The Deployment's rollout is complete as `kubectl rollout status` decides it (§4 rules 2-7):
// the spec observed, every replica updated, no old replica left, every updated one available.
bool RolloutComplete(Client& c, int replicas) {
  auto r =
      c.Do("GET", fmt::format("/apis/apps/v1/namespaces/{}/deployments/{}", kNamespace, kName));
  if (r.status != 200) return false;
  auto v = boost::json::parse(r.body);
  const auto& md = v.at("metadata").as_object();
  const auto* status = v.as_object().if_contains("status");
  if (status == nullptr) return false;
  auto num = [&](const char* key) -> int64_t {
    const auto* f = status->as_object().if_contains(key);
    return f != nullptr ? f->to_number<int64_t>() : 0;
  };
  const auto* gen = md.if_contains("generation");
  return gen != nullptr && num("observedGeneration") >= gen->to_number<int64_t>() &&
         num("updatedReplicas") == replicas && num("replicas") == replicas &&
         num("availableReplicas") == replicas;
}

// Polls until the rollout is complete or `deadline`; returns when it was first seen complete.
std::optional<Clock::time_point> WaitComplete(Client& c, int replicas, Clock::time_point deadline) {
  while (Clock::now() < deadline) {
    if (RolloutComplete(c, replicas)) return Clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return std::nullopt;
}

}  // namespace

bool RunRollout(const Context& ctx, std::vector<Row>* rows) {
  const Options& o = ctx.options;
  const int n = o.rollout_replicas;
  Client c(ctx.ep, ctx.tls);
  CreateNamespace(c, kNamespace);
  if (auto err = CheckStatus(
          c.Do("POST", fmt::format("/api/v1/namespaces/{}/services", kNamespace), ServiceBodyFor()),
          {201}, "create Service");
      !err.empty()) {
    throw std::runtime_error(err);
  }
  Transitions seen;
  WatchStream pods(ctx.ep, ctx.tls, fmt::format("/api/v1/namespaces/{}/pods?watch=1", kNamespace),
                   Encoding::kProtobuf,
                   [&](std::string_view ev, Clock::time_point at) { seen.OnPod(ev, at); });
  WatchStream slices(
      ctx.ep, ctx.tls,
      fmt::format("/apis/discovery.k8s.io/v1/namespaces/{}/endpointslices?watch=1", kNamespace),
      Encoding::kProtobuf,
      [&](std::string_view ev, Clock::time_point at) { seen.OnSlice(ev, at); });
  pods.Start();
  slices.Start();
  WaitForQuietServer(ctx.server.pid(), std::chrono::seconds(30));
  const auto timeout = std::chrono::seconds(o.timeout_seconds);

  // 1. Created to fully available.
  const SliceWrites writes0 = ScrapeSliceWrites(ctx);
  const double cpu0 = ctx.server.CpuSeconds();
  const auto t0 = Clock::now();
  if (auto err = CheckStatus(
          c.Do("POST", fmt::format("/apis/apps/v1/namespaces/{}/deployments", kNamespace),
               DeploymentBody(n)),
          {201}, "create Deployment");
      !err.empty()) {
    throw std::runtime_error(err);
  }
  const auto created = WaitComplete(c, n, Clock::now() + timeout);
  const double cpu1 = ctx.server.CpuSeconds();
  WaitForQuietServer(ctx.server.pid(), std::chrono::seconds(30));
  const SliceWrites writes1 = ScrapeSliceWrites(ctx);
  const auto [created_pods, create_span] = seen.Adds(t0, Clock::now());
  const std::string what =
      fmt::format("rollout: Deployment of {} replicas on {} simulated nodes", n, o.rollout_nodes);
  if (!created) {
    rows->push_back({what + ", created -> available",
                     fmt::format("TIMED OUT after {} s", o.timeout_seconds), ""});
    return false;
  }
  rows->push_back({what + ", created -> available",
                   fmt::format("{:.1f} s; {} Pods in {:.1f} s ({:.0f}/s); server CPU {:.1f} s",
                               Seconds(*created - t0), created_pods, create_span,
                               created_pods / std::max(create_span, 1e-9), cpu1 - cpu0),
                   ""});
  rows->push_back({"  slice writes while creating (per Pod)",
                   fmt::format("{:.0f} ({:.2f})", writes1.total() - writes0.total(),
                               (writes1.total() - writes0.total()) / n),
                   ""});

  // 2. rollout restart, as kubectl sends it.
  const double cpu2 = ctx.server.CpuSeconds();
  const auto t1 = Clock::now();
  const std::string restart = fmt::format(
      R"({{"spec":{{"template":{{"metadata":{{"annotations":{{"kubectl.kubernetes.io/restartedAt":"{}"}}}}}}}}}})",
      fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr))));
  if (auto err = CheckStatus(
          c.Do(
              "PATCH",
              fmt::format("/apis/apps/v1/namespaces/{}/deployments/{}?fieldManager=kubectl-rollout",
                          kNamespace, kName),
              restart, "application/strategic-merge-patch+json"),
          {200}, "rollout restart");
      !err.empty()) {
    throw std::runtime_error(err);
  }
  // The first GET may still see the old, complete status: wait for the spec to be observed.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto restarted = WaitComplete(c, n, Clock::now() + timeout);
  const double cpu3 = ctx.server.CpuSeconds();
  WaitForQuietServer(ctx.server.pid(), std::chrono::seconds(30));
  const SliceWrites writes2 = ScrapeSliceWrites(ctx);
  const auto [new_pods, restart_span] = seen.Adds(t1, Clock::now());
  auto lat = seen.Collect(t1);
  pods.Stop();
  slices.Stop();
  if (!restarted) {
    rows->push_back({"  rollout restart -> complete (kubectl rollout status)",
                     fmt::format("TIMED OUT after {} s", o.timeout_seconds), "<= 60 s"});
    return false;
  }
  rows->push_back({"  rollout restart -> complete (kubectl rollout status)",
                   fmt::format("{:.1f} s; {} new Pods ({:.0f}/s); server CPU {:.1f} s",
                               Seconds(*restarted - t1), new_pods,
                               new_pods / std::max(restart_span, 1e-9), cpu3 - cpu2),
                   "<= 60 s"});
  const double per_pod = (writes2.total() - writes1.total()) / std::max<size_t>(new_pods, 1);
  rows->push_back({"  slice writes during the rollout, per replaced Pod",
                   fmt::format("{:.0f} ({:.2f})", writes2.total() - writes1.total(), per_pod),
                   "< 4 (upstream's worst case)"});
  rows->push_back({"  Pod Ready -> endpoint ready in its slice, p50 / p99 / max",
                   FormatLatencies(lat.ready) + fmt::format(" ({} missed)", lat.missed_ready), ""});
  rows->push_back(
      {"  Pod terminating -> endpoint terminating in its slice, p50 / p99 / max",
       FormatLatencies(lat.terminating) + fmt::format(" ({} missed)", lat.missed_terminating), ""});
  // A terminating endpoint that never showed is reported, not failed: the controller may batch
  // "terminating" and "gone" into one write when the Pod goes fast enough.
  return lat.missed_ready == 0;
}

}  // namespace svcplane::bench::e2e
