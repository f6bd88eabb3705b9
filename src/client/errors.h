#pragma once

#include <optional>

#include "base/status.h"

namespace svcplane::client {

// Predicates on errors returned by clients, as k8s.io/apimachinery/pkg/api/errors. Controllers
// branch on these, never on messages.
inline bool IsNotFound(const Status& s) { return s.code() == Code::kNotFound; }
inline bool IsAlreadyExists(const Status& s) { return s.code() == Code::kAlreadyExists; }
inline bool IsConflict(const Status& s) { return s.code() == Code::kConflict; }
inline bool IsInvalid(const Status& s) { return s.code() == Code::kInvalid; }
inline bool IsBadRequest(const Status& s) { return s.code() == Code::kBadRequest; }
// 410 Gone and reason "Expired" (a too old resourceVersion or continue token).
inline bool IsGone(const Status& s) { return s.code() == Code::kGone; }
inline bool IsResourceExpired(const Status& s) { return s.code() == Code::kGone; }
inline bool IsTooManyRequests(const Status& s) { return s.code() == Code::kTooManyRequests; }
inline bool IsUnauthorized(const Status& s) { return s.code() == Code::kUnauthorized; }
inline bool IsForbidden(const Status& s) { return s.code() == Code::kForbidden; }
inline bool IsServiceUnavailable(const Status& s) { return s.code() == Code::kUnavailable; }
inline bool IsTimeout(const Status& s) { return s.code() == Code::kTimeout; }
inline bool IsInternalError(const Status& s) { return s.code() == Code::kInternal; }
inline bool IsMethodNotSupported(const Status& s) { return s.code() == Code::kMethodNotAllowed; }

// The server's suggested delay before retrying (metav1.StatusDetails.retryAfterSeconds or the
// Retry-After header), carried as a cause of this type because Status has no field for it.
inline constexpr char kRetryAfterCauseType[] = "RetryAfterSeconds";

inline std::optional<int> RetryAfterSeconds(const Status& s) {
  for (const StatusCause& c : s.causes()) {
    if (c.type == kRetryAfterCauseType) {
      try {
        return std::stoi(c.message);
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
  }
  return std::nullopt;
}

}  // namespace svcplane::client
