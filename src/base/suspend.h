#pragma once

#include <functional>

namespace svcplane {

// A request may run as a fiber on an I/O thread instead of on a worker thread. Code that would
// block its thread on a long wait (a store commit and its fdatasync) asks for the current
// Suspender: with one, it arranges to be resumed and suspends, and the I/O thread goes on
// serving other connections meanwhile; without one (the usual case) it blocks as before.
//
// Only waits that hold no lock across them may suspend: another fiber on the same thread that
// wanted the lock would block the thread the holder needs to resume on.
class Suspender {
 public:
  virtual ~Suspender() = default;

  // The callable that resumes the suspended code, safe to call once from any thread, before
  // or after Suspend() (a wait that completes first makes Suspend() return soon).
  virtual std::function<void()> Resumer() = 0;

  // Returns once the Resumer was called.
  virtual void Suspend() = 0;
};

// The suspender of the code running on this thread right now, or null.
Suspender* CurrentSuspender();

// Makes `s` current on this thread for its lifetime (the fiber's owner sets it around each
// resume, so the thread's own code between resumes never sees it).
class ScopedSuspender {
 public:
  explicit ScopedSuspender(Suspender* s);
  ~ScopedSuspender();
  ScopedSuspender(const ScopedSuspender&) = delete;
  ScopedSuspender& operator=(const ScopedSuspender&) = delete;

 private:
  Suspender* previous_;
};

}  // namespace svcplane
