#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace svcplane {

// Codes map one to one onto the `reason` of a Kubernetes Status (metav1.StatusReason), so that
// every layer can hand an error up unchanged and the API server only has to pick the HTTP code.
enum class Code {
  kOk,
  kNotFound,               // 404 NotFound
  kAlreadyExists,          // 409 AlreadyExists
  kConflict,               // 409 Conflict
  kInvalid,                // 422 Invalid (with causes)
  kBadRequest,             // 400 BadRequest
  kGone,                   // 410 Expired / Gone
  kTooManyRequests,        // 429 TooManyRequests
  kUnavailable,            // 503 ServiceUnavailable
  kTimeout,                // 504 Timeout
  kUnauthorized,           // 401 Unauthorized
  kForbidden,              // 403 Forbidden
  kMethodNotAllowed,       // 405 MethodNotAllowed
  kUnsupportedMediaType,   // 415 UnsupportedMediaType
  kRequestEntityTooLarge,  // 413 RequestEntityTooLarge
  kInternal,               // 500 InternalError
  // A write lost a race with a concurrent change and should be retried from a fresh read.
  // Internal to retry loops; it never reaches a client.
  kAborted,
};

std::string_view CodeName(Code code);

// One entry of Status.details.causes: a field error such as
// {type: FieldValueInvalid, field: "metadata.name", message: "Invalid value: ..."}.
struct StatusCause {
  std::string type;     // e.g. "FieldValueInvalid", "FieldValueRequired"
  std::string field;    // JSON path such as "spec.ports[0].port"
  std::string message;  // human readable, as upstream words it

  bool operator==(const StatusCause&) const = default;
};

// An error value. Cheap to move; the message is what a user reads.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  const std::vector<StatusCause>& causes() const { return causes_; }

  Status& WithCauses(std::vector<StatusCause> causes) {
    causes_ = std::move(causes);
    return *this;
  }

  // "NotFound: pods \"x\" not found"
  std::string ToString() const;

  // Marks an error as deliberately ignored, so the intent is visible at the call site.
  void IgnoreError() const {}

 private:
  Code code_ = Code::kOk;
  std::string message_;
  std::vector<StatusCause> causes_;
};

inline Status NotFoundError(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
inline Status AlreadyExistsError(std::string msg) {
  return Status(Code::kAlreadyExists, std::move(msg));
}
inline Status ConflictError(std::string msg) { return Status(Code::kConflict, std::move(msg)); }
inline Status InvalidError(std::string msg) { return Status(Code::kInvalid, std::move(msg)); }
inline Status BadRequestError(std::string msg) { return Status(Code::kBadRequest, std::move(msg)); }
inline Status GoneError(std::string msg) { return Status(Code::kGone, std::move(msg)); }
inline Status UnavailableError(std::string msg) {
  return Status(Code::kUnavailable, std::move(msg));
}
inline Status InternalError(std::string msg) { return Status(Code::kInternal, std::move(msg)); }

}  // namespace svcplane
