#include "storage/etcd/internal/errors.h"

#include <string>

namespace svcplane::storage::etcd::internal {

namespace {

bool MessageHas(const grpc::Status& status, std::string_view text) {
  return std::string_view(status.error_message()).find(text) != std::string_view::npos;
}

}  // namespace

bool IsCompacted(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::OUT_OF_RANGE && MessageHas(status, "compacted");
}

bool IsFutureRevision(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::OUT_OF_RANGE &&
         MessageHas(status, "future revision");
}

bool IsTooManyRequests(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
         MessageHas(status, kErrTooManyRequests);
}

bool NotSent(const grpc::Status& status) {
  // gRPC core's pick_first/round_robin text for a channel in TRANSIENT_FAILURE when the call
  // does not wait for ready (gRPC 1.51, verified by EtcdFaultsTest against a killed etcd).
  return status.error_code() == grpc::StatusCode::UNAVAILABLE &&
         std::string_view(status.error_message()).starts_with("failed to connect to all addresses");
}

Status FromGrpc(const grpc::Status& status, std::string_view what) {
  const std::string message = std::string(what) + ": " + status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::OK:
      return Status::Ok();
    case grpc::StatusCode::OUT_OF_RANGE:
      if (IsCompacted(status)) return GoneError(message);
      if (IsFutureRevision(status)) return Status(Code::kTimeout, message);
      return BadRequestError(message);
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      // Upstream's 504 "Timeout: request did not complete within requested timeout".
      return Status(Code::kTimeout, message + " (outcome unknown)");
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::CANCELLED:
      return UnavailableError(message);
    case grpc::StatusCode::INVALID_ARGUMENT:
      if (MessageHas(status, "request is too large")) {
        return Status(Code::kRequestEntityTooLarge, message);
      }
      return BadRequestError(message);
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      // "database space exceeded" (NOSPACE alarm: only reads and deletes work) or "too many
      // requests" after its one retry.
      if (IsTooManyRequests(status)) return Status(Code::kTooManyRequests, message);
      return UnavailableError(message);
    default:
      return InternalError(message);
  }
}

}  // namespace svcplane::storage::etcd::internal
