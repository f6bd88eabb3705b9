#include "base/status.h"

namespace svcplane {

std::string_view CodeName(Code code) {
  switch (code) {
    case Code::kOk:
      return "OK";
    case Code::kNotFound:
      return "NotFound";
    case Code::kAlreadyExists:
      return "AlreadyExists";
    case Code::kConflict:
      return "Conflict";
    case Code::kInvalid:
      return "Invalid";
    case Code::kBadRequest:
      return "BadRequest";
    case Code::kGone:
      return "Expired";
    case Code::kTooManyRequests:
      return "TooManyRequests";
    case Code::kUnavailable:
      return "ServiceUnavailable";
    case Code::kTimeout:
      return "Timeout";
    case Code::kUnauthorized:
      return "Unauthorized";
    case Code::kForbidden:
      return "Forbidden";
    case Code::kMethodNotAllowed:
      return "MethodNotAllowed";
    case Code::kUnsupportedMediaType:
      return "UnsupportedMediaType";
    case Code::kRequestEntityTooLarge:
      return "RequestEntityTooLarge";
    case Code::kInternal:
      return "InternalError";
    case Code::kAborted:
      return "Conflict";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(CodeName(code_));
  out += ": ";
  out += message_;
  return out;
}

}  // namespace svcplane
