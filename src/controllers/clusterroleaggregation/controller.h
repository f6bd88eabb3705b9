#pragma once

// The ClusterRole aggregation controller (spec authn-authz-audit.md §3.7; upstream
// kube-controller-manager's clusterrole-aggregation-controller). On any ClusterRole event every
// ClusterRole with an aggregationRule is brought up to date: its rules become the union of the
// rules of the ClusterRoles its selectors match (aggregation.h), written with a plain update
// (the spec allows it instead of upstream's server-side apply).
//
// Two loops, each run on a thread the caller provides: Watch() lists and watches ClusterRoles
// and marks the state dirty on every event (and after every relist); Work() syncs while dirty.
// Syncing off the watch thread keeps a watch handler from writing through the same client.

#include <condition_variable>
#include <mutex>
#include <stop_token>

#include "api/rbac/v1/rbac.h"
#include "base/clock.h"
#include "base/status.h"
#include "client/typed/interface.h"

namespace svcplane::controllers::clusterroleaggregation {

inline constexpr std::string_view kControllerName = "clusterrole-aggregation-controller";

class AggregationController {
 public:
  // `roles` must outlive the controller. Safe to call Watch and Work from two threads.
  AggregationController(client::ResourceClient<api::rbac::v1::ClusterRole>& roles,
                        const Clock& clock);

  // List+watch until `stop`; after an error, relists one second later.
  void Watch(std::stop_token stop);
  // Syncs every aggregated ClusterRole whenever something changed, until `stop`. A failed sync
  // (a conflict with another writer, an unavailable store) is retried one second later.
  void Work(std::stop_token stop);

  // One pass: lists every ClusterRole and updates each aggregated one whose rules differ.
  // Returns the first error (the other roles are still synced). Exposed for tests.
  Status SyncAll();

 private:
  void MarkDirty();

  client::ResourceClient<api::rbac::v1::ClusterRole>& roles_;
  const Clock& clock_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool dirty_ = false;  // guarded by mu_
};

}  // namespace svcplane::controllers::clusterroleaggregation
