#include "apiserver/http/status_response.h"

#include <fmt/format.h>

#include "base/json_string.h"

namespace svcplane::apiserver::http {

std::string StatusJson(int code, std::string_view reason, std::string_view message) {
  return fmt::format(
      R"({{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":{},)"
      R"("reason":{},"code":{}}})",
      JsonQuote(message), JsonQuote(reason), code);
}

// The body ends with a newline, as kube-apiserver's json.Encoder writes every document.
Response StatusResponse(int code, std::string_view reason, std::string_view message) {
  return Response{code, "application/json", StatusJson(code, reason, message) + "\n", {}};
}

int HttpCodeFor(Code code) {
  switch (code) {
    case Code::kOk:
      return 200;
    case Code::kNotFound:
      return 404;
    case Code::kAlreadyExists:
      return 409;
    case Code::kConflict:
    case Code::kAborted:
      return 409;
    case Code::kInvalid:
      return 422;
    case Code::kBadRequest:
      return 400;
    case Code::kGone:
      return 410;
    case Code::kTooManyRequests:
      return 429;
    case Code::kUnavailable:
      return 503;
    case Code::kTimeout:
      return 504;
    case Code::kUnauthorized:
      return 401;
    case Code::kForbidden:
      return 403;
    case Code::kMethodNotAllowed:
      return 405;
    case Code::kUnsupportedMediaType:
      return 415;
    case Code::kRequestEntityTooLarge:
      return 413;
    case Code::kInternal:
      return 500;
  }
  return 500;
}

Response StatusResponse(const Status& st) {
  return StatusResponse(HttpCodeFor(st.code()), CodeName(st.code()), st.message());
}

}  // namespace svcplane::apiserver::http
