#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "apiserver/server/collections.h"

namespace svcplane::apiserver::server {

// The control loops kube-apiserver's users take for granted, run inside the server:
//  - namespace lifecycle: a Terminating namespace is emptied of every namespaced object, then
//    finalized (its "kubernetes" finalizer removed), which deletes it (api-wire §9);
//  - garbage collection by ownerReferences: objects whose every owner (of a kind we serve) is
//    gone are deleted (background propagation); owners waiting on "foregroundDeletion" have
//    their dependents deleted first; "orphan" strips the owner from its dependents.
// Both poll every `period`; Kick() runs them at once (after a delete). A garbage-collection pass
// that changed something is followed by another at once (up to kMaxPassesInARow), so that a chain
// of steps (a foreground deletion: dependents deleted, their finalizers removed, then the owner's)
// takes moments rather than a period per step.
class Housekeeping {
 public:
  // `finalize_namespace` removes the "kubernetes" finalizer from spec.finalizers of an emptied
  // namespace (PUT .../finalize), which deletes it.
  Housekeeping(std::vector<Collection*> collections, Collection* namespaces,
               std::function<Status(std::string_view)> finalize_namespace,
               std::chrono::milliseconds period);
  ~Housekeeping();
  void Kick();
  // One pass of both loops; exposed for tests.
  void RunOnceForTest() { RunOnce(); }

 private:
  void Loop();
  // True when the garbage collector changed something (another pass may have work).
  bool RunOnce();
  void Namespaces();
  bool CollectGarbage();
  static constexpr int kMaxPassesInARow = 10;

  std::vector<Collection*> collections_;
  Collection* namespaces_;
  std::function<Status(std::string_view)> finalize_namespace_;
  const std::chrono::milliseconds period_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool kicked_ = false;    // guarded by mu_
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace svcplane::apiserver::server
