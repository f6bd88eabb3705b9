#include "sim/pod_timing.h"

#include <algorithm>
#include <cstdint>

#include "base/go_duration.h"

namespace svcplane::sim {

namespace core = api::core::v1;

Result<ReadyAfter> ParseReadyAfter(std::string_view value) {
  if (value == "never") return ReadyAfter{.never = true};
  auto d = ParseGoDuration(value);
  if (!d.ok()) {
    return InvalidError(std::string(kReadyAfterAnnotation) + ": " + d.status().message() +
                        " (want a duration such as 2s or 500ms, or never)");
  }
  if (*d < Duration::zero()) {
    return InvalidError(std::string(kReadyAfterAnnotation) + ": negative duration \"" +
                        std::string(value) + "\"");
  }
  return ReadyAfter{.delay = *d};
}

namespace {

// FNV-1a, then splitmix64's finalizer so that UIDs differing in one character spread over the
// whole range.
uint64_t Mix(std::string_view uid, PodStage stage) {
  uint64_t h = 1469598103934665603ull;
  for (char c : uid) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  h = (h ^ static_cast<uint64_t>(stage)) * 1099511628211ull;
  h += 0x9e3779b97f4a7c15ull;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

}  // namespace

Duration JitteredDelay(Duration base, Duration jitter, std::string_view uid, PodStage stage) {
  if (jitter <= Duration::zero()) return base;
  const double fraction = static_cast<double>(Mix(uid, stage) >> 11) * 0x1.0p-53;  // [0, 1)
  return base + Duration(static_cast<int64_t>(fraction * static_cast<double>(jitter.count())));
}

Duration CreateDelay(const SimOptions& opts, const core::Pod& pod) {
  return JitteredDelay(opts.pod_create_delay, opts.pod_create_jitter, pod.metadata.uid,
                       PodStage::kCreate);
}

ReadyPlan PlanReady(const SimOptions& opts, const core::Pod& pod, std::string* invalid) {
  ReadyPlan plan{.delay = JitteredDelay(opts.pod_ready_delay, opts.pod_ready_jitter,
                                        pod.metadata.uid, PodStage::kReady)};
  auto it = pod.metadata.annotations.find(kReadyAfterAnnotation);
  if (it == pod.metadata.annotations.end()) return plan;
  auto parsed = ParseReadyAfter(it->second);
  if (!parsed.ok()) {
    if (invalid != nullptr) *invalid = parsed.status().message();
    return plan;
  }
  // `never`: the containers still start after the usual delay; they just never turn ready.
  if (parsed->never) {
    plan.ready = false;
  } else {
    plan.delay = parsed->delay;
  }
  return plan;
}

Duration TerminateDelay(const SimOptions& opts, const core::Pod& pod, WallTime now) {
  Duration d = JitteredDelay(opts.pod_terminate_delay, opts.pod_terminate_jitter, pod.metadata.uid,
                             PodStage::kTerminate);
  if (const auto& ts = pod.metadata.deletion_timestamp) {
    const WallTime end = WallTime{} + std::chrono::seconds(ts->unix_seconds);
    d = std::min(d, std::max(Duration::zero(), Duration(end - now)));
  }
  return d;
}

}  // namespace svcplane::sim
