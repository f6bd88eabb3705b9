#pragma once

#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "apiserver/http/handler.h"

namespace svcplane::apiserver::http::internal {

// Builds a sourced body's next piece on a worker while the connection encrypts and sends the
// current one. Building a LIST's piece copies its objects out of the store's memory, about a
// third of the I/O thread's work per piece; done ahead, it overlaps with the TLS and socket
// work on the other core instead of adding to it.
//
// Threading: Build runs on a worker, never twice at once (the connection starts the next one
// only after it took the previous piece); Take runs on the connection's I/O thread.
class PieceAhead {
 public:
  // Each piece starts with `prefix` placeholder bytes (room for a chunk-size line) and holds at
  // least `target` bytes of body unless the body ends first.
  PieceAhead(BodySource source, std::size_t prefix, std::size_t target);

  // Builds the next piece, then runs the waiter Take left, if any (on this thread).
  void Build();

  // The piece built ahead, swapped into *piece (whose old buffer the next Build reuses), and
  // whether more pieces follow; nullopt while it is still being built, and then `when_built`
  // runs once it is.
  std::optional<bool> Take(std::string* piece, std::function<void()> when_built);

 private:
  const std::size_t prefix_;
  const std::size_t target_;
  BodySource source_;  // only Build touches it; released when the body ended

  std::mutex mu_;
  std::string built_;             // guarded by mu_
  bool more_ = true;              // guarded by mu_
  bool ready_ = false;            // guarded by mu_
  std::function<void()> waiter_;  // guarded by mu_
};

}  // namespace svcplane::apiserver::http::internal
