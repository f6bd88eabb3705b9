#include "apiserver/http/internal/piece_ahead.h"

#include <utility>

namespace svcplane::apiserver::http::internal {

PieceAhead::PieceAhead(BodySource source, std::size_t prefix, std::size_t target)
    : prefix_(prefix), target_(target), source_(std::move(source)) {}

void PieceAhead::Build() {
  std::string piece;
  {
    std::lock_guard lock(mu_);
    piece = std::move(built_);  // the buffer Take handed back: its capacity is reused
  }
  piece.assign(prefix_, '0');
  bool more = source_ != nullptr;
  while (more && piece.size() - prefix_ < target_) more = source_(&piece);
  if (!more) source_ = nullptr;  // what it holds (a LIST's items) goes now, not with the body
  std::function<void()> waiter;
  {
    std::lock_guard lock(mu_);
    built_ = std::move(piece);
    more_ = more;
    ready_ = true;
    waiter = std::move(waiter_);
    waiter_ = nullptr;
  }
  if (waiter) waiter();
}

std::optional<bool> PieceAhead::Take(std::string* piece, std::function<void()> when_built) {
  std::lock_guard lock(mu_);
  if (!ready_) {
    waiter_ = std::move(when_built);
    return std::nullopt;
  }
  piece->swap(built_);
  ready_ = false;
  return more_;
}

}  // namespace svcplane::apiserver::http::internal
