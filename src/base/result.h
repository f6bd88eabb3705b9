#pragma once

#include <optional>
#include <utility>

#include "base/check.h"
#include "base/status.h"

namespace svcplane {

// Either a value or a non-OK Status, as absl::StatusOr.
//   Result<int> r = Parse(s);
//   if (!r.ok()) return r.status();
//   Use(*r);
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    SVC_CHECK(!status_.ok()) << "Result constructed from an OK Status without a value";
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & {
    SVC_CHECK(ok()) << "value() on error Result: " << status_.ToString();
    return *value_;
  }
  const T& value() const& {
    SVC_CHECK(ok()) << "value() on error Result: " << status_.ToString();
    return *value_;
  }
  T&& value() && {
    SVC_CHECK(ok()) << "value() on error Result: " << status_.ToString();
    return std::move(*value_);
  }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace svcplane

// Returns early with the error of a Status or Result expression.
#define SVC_RETURN_IF_ERROR(expr)              \
  do {                                         \
    auto svc_status_ = (expr);                 \
    if (!svc_status_.ok()) return svc_status_; \
  } while (0)
