#pragma once

// When the kubelet stand-in moves a Pod from one stage to the next (workloads spec §5, with
// kwok's `general` pod stages as the model):
//   bound --create delay--> Pending, containers ContainerCreating, Ready False
//         --ready delay---> Running, containers running and ready, Ready True
//   deletionTimestamp --terminate delay (at most the remaining grace)--> deleted (grace 0)
// Each delay is a base plus a jitter in [0, jitter). The jitter is a pure function of the Pod's
// UID and the stage, so the simulator keeps no random state per Pod and a retried sync picks the
// same time again.

#include <optional>
#include <string>
#include <string_view>

#include "api/types.h"
#include "base/clock.h"
#include "base/result.h"
#include "sim/sim_options.h"

namespace svcplane::sim {

// `sim.svcplane.io/ready-after: 2s` (any Go duration: 500ms, 1m30s) replaces a Pod's readiness
// delay; `never` keeps it from ever becoming Ready (its containers run, as with a readiness probe
// that keeps failing: a stuck rollout). The workloads spec §5 proposal.
inline constexpr char kReadyAfterAnnotation[] = "sim.svcplane.io/ready-after";

struct ReadyAfter {
  bool never = false;
  Duration delay{};  // when !never
};

// The annotation's value: a non-negative Go duration or `never`. Invalid values are an
// Invalid error saying why (the simulator then uses its default and warns).
Result<ReadyAfter> ParseReadyAfter(std::string_view value);

// Which delay a jitter is drawn for; each stage of one Pod gets an independent draw.
enum class PodStage { kCreate = 1, kReady = 2, kTerminate = 3 };

// base + a fraction of `jitter` in [0, 1) chosen by (uid, stage). No jitter: exactly base.
Duration JitteredDelay(Duration base, Duration jitter, std::string_view uid, PodStage stage);

// How long after binding is first seen the Pod's containers are being created.
Duration CreateDelay(const SimOptions& opts, const api::core::v1::Pod& pod);

// How long after the create stage the Pod runs, and whether it becomes Ready then. A valid
// annotation wins; an invalid one is ignored and its error returned in `*invalid` (if given).
struct ReadyPlan {
  Duration delay{};
  bool ready = true;
};
ReadyPlan PlanReady(const SimOptions& opts, const api::core::v1::Pod& pod,
                    std::string* invalid = nullptr);

// How long after the stand-in first sees a Pod's deletionTimestamp it deletes the Pod: the
// configured delay, but never past the deletionTimestamp (the end of the grace period), which
// kwok also never passes. A timestamp already past: 0.
Duration TerminateDelay(const SimOptions& opts, const api::core::v1::Pod& pod, WallTime now);

}  // namespace svcplane::sim
