#pragma once

#include <string>

namespace svcplane::apiserver::audit {

// Where encoded events go. Called concurrently from request workers, request fibers and I/O
// threads.
class Sink {
 public:
  virtual ~Sink() = default;
  // `line` is one event's JSON, without newline. With `may_wait` a blocking sink returns once
  // the line is written (a request fiber suspends meanwhile instead of blocking its I/O
  // thread); without, it only queues. A sink never fails the request: write errors are logged.
  virtual void Write(std::string line, bool may_wait) = 0;
};

}  // namespace svcplane::apiserver::audit
