#include "apiserver/http/internal/request_fiber.h"

#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include <boost/context/protected_fixedsize_stack.hpp>

#include "base/check.h"

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

// Boost.Context's StackAllocator over the shared pool.
struct PooledStack {
  ctx::stack_context allocate() { return StackPool::Shared().Take(); }
  void deallocate(ctx::stack_context& sc) noexcept { StackPool::Shared().Give(sc); }
};

}  // namespace

RequestFiber::RequestFiber(std::function<Reply()> handler, std::function<void()> post_resume)
    : handler_(std::move(handler)), post_resume_(std::move(post_resume)) {
  fiber_ = ctx::fiber(std::allocator_arg, PooledStack{}, [this](ctx::fiber&& owner) {
    owner_ = std::move(owner);
    reply_ = handler_();
    return std::move(owner_);
  });
}

RequestFiber::~RequestFiber() = default;

bool RequestFiber::Resume() {
  SVC_CHECK(fiber_) << "resuming a finished request fiber";
  ScopedSuspender current(this);
  fiber_ = std::move(fiber_).resume();
  return !fiber_;
}

void RequestFiber::Suspend() { owner_ = std::move(owner_).resume(); }

}  // namespace svcplane::apiserver::http::internal
