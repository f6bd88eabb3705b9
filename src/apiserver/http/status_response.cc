#include "apiserver/http/status_response.h"

#include <fmt/format.h>

namespace svcplane::apiserver::http {

std::string JsonQuote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string StatusJson(int code, std::string_view reason, std::string_view message) {
  return fmt::format(
      R"({{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":{},)"
      R"("reason":{},"code":{}}})",
      JsonQuote(message), JsonQuote(reason), code);
}

Response StatusResponse(int code, std::string_view reason, std::string_view message) {
  return Response{code, "application/json", StatusJson(code, reason, message), {}};
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
