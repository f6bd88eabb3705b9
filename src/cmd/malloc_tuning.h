#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace svcplane::cmd {

// The svcplane binary allocates with tcmalloc (SVCPLANE_TCMALLOC, on by default). With glibc's
// malloc, 64 clients creating Pods spent ~5% of the I/O threads' time waiting for arena locks
// (an I/O thread allocates a request's objects, the committer and the informers free them) and
// in the wake-ups those locks cost; tcmalloc's per-thread caches take both sides without a lock
// (40k-Pod A/B, 5 alternated pairs: 64-client creates/s median 7,123 -> 10,155, server CPU per
// create 190 -> 136 us, in a slow VM phase; no difference in a fast one, presumably as lock holders
// are then rarely preempted). The glibc tuning below stays for builds without it (sanitizers bring
// their own allocator); under tcmalloc those calls do nothing.

// glibc: by default each thread that contends an arena gets one of its own, up to 8 per core;
// with ~40 handler, watch and controller threads the freed memory of the start-up ramp stays
// scattered over many arenas and RSS ends far above the live heap. Fewer arenas plus a periodic
// malloc_trim (which also returns free pages in the middle of the heaps) keep RSS close to what
// is in use. An explicit MALLOC_ARENA_MAX in the environment wins. Call before starting threads.
void LimitMallocArenas(int arenas);

// glibc: turns off fastbins. They keep freed blocks of up to 128 B unmerged, and the next
// large allocation merges all of them at once (malloc_consolidate). A LIST, a relist or a
// dropped informer cache frees some million small blocks at once, and the allocation after it
// paid for merging them: about 10% of an informer's initial sync of 100k Pods went there in
// perf. Without fastbins those frees go through the per-thread cache and are merged as they
// come. For every subcommand; call before starting threads.
void DisableMallocFastbins();

// Hands free memory back to the system every `interval` until destroyed, so RSS follows the
// live heap after a burst (a large LIST, a relist): malloc_trim(0) with glibc, tcmalloc's
// ReleaseFreeMemory with tcmalloc. Not copyable.
class MallocTrimmer {
 public:
  explicit MallocTrimmer(std::chrono::seconds interval);
  ~MallocTrimmer();
  MallocTrimmer(const MallocTrimmer&) = delete;
  MallocTrimmer& operator=(const MallocTrimmer&) = delete;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace svcplane::cmd
