#include "apiserver/http/internal/request_fiber.h"

#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include <boost/context/protected_fixedsize_stack.hpp>

#include "base/check.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace svcplane::apiserver::http::internal {
namespace {

namespace ctx = boost::context;

// Handlers decode, validate and encode objects with recursive code; 1 MiB of address space is
// far more than they use, and only the pages touched become memory.
constexpr std::size_t kStackSize = 1 << 20;
// Stacks kept for reuse: mapping a stack and its guard page costs three system calls.
constexpr std::size_t kMaxPooledStacks = 256;

// The stacks of finished fibers, reused by the next ones.
class StackPool {
 public:
  ctx::stack_context Take() {
    {
      std::lock_guard lock(mu_);
      if (!free_.empty()) {
        ctx::stack_context sc = free_.back();
        free_.pop_back();
        return sc;
      }
    }
    return ctx::protected_fixedsize_stack(kStackSize).allocate();
  }

  void Give(ctx::stack_context sc) {
    {
      std::lock_guard lock(mu_);
      if (free_.size() < kMaxPooledStacks) {
        free_.push_back(sc);
        return;
      }
    }
    ctx::protected_fixedsize_stack(kStackSize).deallocate(sc);
  }

  static StackPool& Shared() {
    static auto* pool = new StackPool();  // never destroyed: fibers may outlive static teardown
    return *pool;
  }

 private:
  std::mutex mu_;
  std::vector<ctx::stack_context> free_;  // guarded by mu_
};

// Boost.Context's StackAllocator over the shared pool; tells the fiber where its stack is.
struct PooledStack {
  const void** bottom;
  std::size_t* size;

  ctx::stack_context allocate() {
    ctx::stack_context sc = StackPool::Shared().Take();
    *bottom = static_cast<const char*>(sc.sp) - sc.size;
    *size = sc.size;
#if defined(__SANITIZE_ADDRESS__)
    ASAN_UNPOISON_MEMORY_REGION(*bottom, *size);  // what the last fiber on it left
#endif
    return sc;
  }
  void deallocate(ctx::stack_context& sc) noexcept { StackPool::Shared().Give(sc); }
};

// AddressSanitizer must be told each time the stack changes, or it cannot clean up after an
// exception unwinds frames of a fiber's stack and later reports overflows that are not there.
void StartSwitch(void** fake_stack_save, const void* bottom, std::size_t size) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(fake_stack_save, bottom, size);
#else
  (void)fake_stack_save, (void)bottom, (void)size;
#endif
}

void FinishSwitch(void* fake_stack_save, const void** old_bottom, std::size_t* old_size) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(fake_stack_save, old_bottom, old_size);
#else
  (void)fake_stack_save, (void)old_bottom, (void)old_size;
#endif
}

}  // namespace

RequestFiber::RequestFiber(std::function<Reply()> handler, std::function<void()> post_resume)
    : handler_(std::move(handler)), post_resume_(std::move(post_resume)) {
  fiber_ = ctx::fiber(std::allocator_arg, PooledStack{&stack_bottom_, &stack_size_},
                      [this](ctx::fiber&& owner) {
                        FinishSwitch(nullptr, &owner_bottom_, &owner_size_);
                        owner_ = std::move(owner);
                        reply_ = handler_();
                        StartSwitch(nullptr, owner_bottom_, owner_size_);  // for good
                        return std::move(owner_);
                      });
}

RequestFiber::~RequestFiber() = default;

bool RequestFiber::Resume() {
  SVC_CHECK(fiber_) << "resuming a finished request fiber";
  ScopedSuspender current(this);
  void* fake_stack = nullptr;
  StartSwitch(&fake_stack, stack_bottom_, stack_size_);
  fiber_ = std::move(fiber_).resume();
  FinishSwitch(fake_stack, nullptr, nullptr);
  return !fiber_;
}

void RequestFiber::Suspend() {
  void* fake_stack = nullptr;
  StartSwitch(&fake_stack, owner_bottom_, owner_size_);
  owner_ = std::move(owner_).resume();
  FinishSwitch(fake_stack, &owner_bottom_, &owner_size_);
}

}  // namespace svcplane::apiserver::http::internal
