#include "cmd/malloc_tuning.h"

#include <malloc.h>

#include <cstdlib>

namespace svcplane::cmd {

void LimitMallocArenas(int arenas) {
#if defined(__GLIBC__)
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr) mallopt(M_ARENA_MAX, arenas);
#else
  (void)arenas;
#endif
}

void DisableMallocFastbins() {
#if defined(__GLIBC__)
  mallopt(M_MXFAST, 0);
#endif
}

MallocTrimmer::MallocTrimmer(std::chrono::seconds interval) {
  thread_ = std::thread([this, interval] {
    std::unique_lock lock(mu_);
    while (!cv_.wait_for(lock, interval, [this] { return stopping_; })) {
      lock.unlock();
#if defined(__GLIBC__)
      malloc_trim(0);
#endif
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
