#pragma once

#include <cstdlib>
#include <iostream>
#include <sstream>

namespace svcplane::internal {

// Collects a message and aborts in its destructor. Used only for broken invariants, never for
// conditions that come from outside the process (those get a Status).
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* expr) {
    stream_ << file << ":" << line << ": check failed: " << expr << " ";
  }
  [[noreturn]] ~CheckFailure() {
    std::cerr << stream_.str() << std::endl;
    std::abort();
  }
  std::ostream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};

// Lets `SVC_CHECK(x) << "msg"` be an expression of type void in both branches.
struct Voidify {
  void operator&(std::ostream&) {}
};

}  // namespace svcplane::internal

#define SVC_CHECK(cond)                      \
  (cond) ? (void)0                           \
         : ::svcplane::internal::Voidify() & \
               ::svcplane::internal::CheckFailure(__FILE__, __LINE__, #cond).stream()
