#pragma once

// The repair loops for both allocators (pkg/registry/core/service/{ipallocator,portallocator}/
// controller/repair.go): rebuild the allocation maps from the Services that exist, report
// what does not fit as Events on the Service, free leaked entries after a grace of runs, and
// write the result with a revision check (a concurrent allocation makes the run start over).

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "api/core/v1/service.h"
#include "apiserver/allocator/allocators.h"
#include "base/clock.h"
#include "base/result.h"

namespace svcplane::apiserver::allocator {

inline constexpr std::string_view kIpRepairComponent = "ipallocator-repair-controller";
inline constexpr std::string_view kPortRepairComponent = "portallocator-repair-controller";

// Lists every Service (all namespaces) at the time of the call.
using ListServicesFn = std::function<Result<std::vector<api::core::v1::Service>>()>;
// Records a Warning Event on `svc`; failures are the sink's to log.
using EventSinkFn =
    std::function<void(const api::core::v1::Service& svc, std::string_view component,
                       std::string_view reason, const std::string& message)>;

// An entry found allocated but unused is kept for this many runs, the last of which frees it
// (upstream's numRepairsBeforeLeakCleanup): it may belong to a Service being created.
inline constexpr int kRepairsBeforeLeakCleanup = 3;

// Not thread-safe: one loop drives it.
class ClusterIpRepair {
 public:
  ClusterIpRepair(std::vector<IpAllocator*> allocators, ListServicesFn list, EventSinkFn sink);
  // One pass over all families; retried from scratch on a write conflict.
  Status RunOnce();

 private:
  Status TryOnce();

  std::vector<IpAllocator*> allocators_;
  ListServicesFn list_;
  EventSinkFn sink_;
  std::vector<std::map<size_t, int>> leaks_;  // per allocator: offset -> runs left
};

class NodePortRepair {
 public:
  NodePortRepair(PortAllocator* allocator, ListServicesFn list, EventSinkFn sink);
  Status RunOnce();

 private:
  Status TryOnce();

  PortAllocator* allocator_;
  ListServicesFn list_;
  EventSinkFn sink_;
  std::map<size_t, int> leaks_;
};

// Runs `pass` every `interval` on its own thread until destroyed. RunNow() runs a pass on the
// caller's thread (serialised with the loop's) and returns its status: the start-up pass and
// the hook tests use.
class RepairLoop {
 public:
  RepairLoop(const Clock& clock, Duration interval, std::function<Status()> pass);
  ~RepairLoop();

  void Start();
  Status RunNow();

 private:
  void Loop();

  const Clock& clock_;
  const Duration interval_;
  std::function<Status()> pass_;
  std::mutex run_mu_;  // one pass at a time
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace svcplane::apiserver::allocator
