#pragma once

#include <cstddef>
#include <functional>
#include <optional>

#include <boost/context/fiber.hpp>

#include "apiserver/http/handler.h"
#include "base/suspend.h"

namespace svcplane::apiserver::http::internal {

// One request's handler run as a fiber on its connection's I/O thread. The handler runs on
// the fiber's own stack; where it would block on a store commit it suspends (base/suspend.h),
// the I/O thread goes back to its other connections, and the commit's completion posts
// Resume() back to the connection. Compared with the worker pool this saves two thread
// hand-offs per request (to a worker and back), which on a loaded server cost more CPU than
// the handler itself.
//
// Not thread-safe: Resume() runs on the owning connection's thread only, so the fiber never
// changes thread (thread-locals and locks taken before a suspension stay valid).
class RequestFiber final : public Suspender {
 public:
  // `handler` produces the reply (it must not throw); `post_resume` arranges for Resume() to
  // be called on the owner's thread, and may be called from any thread.
  RequestFiber(std::function<Reply()> handler, std::function<void()> post_resume);
  ~RequestFiber() override;
  RequestFiber(const RequestFiber&) = delete;
  RequestFiber& operator=(const RequestFiber&) = delete;

  // Runs the handler until it finishes (true: take the reply) or suspends (false).
  bool Resume();
  Reply TakeReply() { return std::move(*reply_); }

  // Suspender, called from inside the handler.
  std::function<void()> Resumer() override { return post_resume_; }
  void Suspend() override;

 private:
  std::function<Reply()> handler_;
  const std::function<void()> post_resume_;
  boost::context::fiber fiber_;  // the handler's side while it is suspended
  boost::context::fiber owner_;  // the I/O thread's side while the handler runs
  std::optional<Reply> reply_;
  // Where the two stacks are, for AddressSanitizer's bookkeeping of the switches.
  const void* stack_bottom_ = nullptr;
  std::size_t stack_size_ = 0;
  const void* owner_bottom_ = nullptr;
  std::size_t owner_size_ = 0;
};

}  // namespace svcplane::apiserver::http::internal
