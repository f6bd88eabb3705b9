#include "cmd/malloc_tuning.h"

#include <malloc.h>

#include <cstdlib>

#if SVCPLANE_WITH_TCMALLOC
#include <gperftools/malloc_extension_c.h>
#endif

namespace svcplane::cmd {

void LimitMallocArenas(int arenas) {
#if defined(__GLIBC__) && !SVCPLANE_WITH_TCMALLOC
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr) mallopt(M_ARENA_MAX, arenas);
#else
  (void)arenas;
#endif
}

void DisableMallocFastbins() {
#if defined(__GLIBC__) && !SVCPLANE_WITH_TCMALLOC
  mallopt(M_MXFAST, 0);
#endif
}

namespace {

void ReleaseFreeMemory() {
#if SVCPLANE_WITH_TCMALLOC
  MallocExtension_ReleaseFreeMemory();
#elif defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace

MallocTrimmer::MallocTrimmer(std::chrono::seconds interval) {
  thread_ = std::thread([this, interval] {
    std::unique_lock lock(mu_);
    while (!cv_.wait_for(lock, interval, [this] { return stopping_; })) {
      lock.unlock();
      ReleaseFreeMemory();
      lock.lock();
    }
  });
}

MallocTrimmer::~MallocTrimmer() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

}  // namespace svcplane::cmd
