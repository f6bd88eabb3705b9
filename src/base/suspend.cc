#include "base/suspend.h"

namespace svcplane {
namespace {
thread_local Suspender* current_suspender = nullptr;
}  // namespace

Suspender* CurrentSuspender() { return current_suspender; }

ScopedSuspender::ScopedSuspender(Suspender* s) : previous_(current_suspender) {
  current_suspender = s;
}

ScopedSuspender::~ScopedSuspender() { current_suspender = previous_; }

}  // namespace svcplane
