#include "apiserver/rest/status_body.h"

#include "api/codec/json.h"
#include "api/codec/protobuf.h"
#include "apiserver/http/status_response.h"

namespace svcplane::apiserver::rest {

api::meta::StatusObject FailureStatus(const Status& st, const StatusTarget& target) {
  api::meta::StatusObject body;
  body.status = "Failure";
  body.message = st.message();
  body.reason = std::string(CodeName(st.code()));
  body.code = http::HttpCodeFor(st.code());
  if (st.code() == Code::kBadRequest) body.reason = "BadRequest";
  if (st.code() == Code::kInternal) {
    // apierrors.NewInternalError words its message "Internal error occurred: ..." and has a
    // reason; any other error reaches upstream's ErrorToAPIStatus as a plain Go error, which
    // becomes a 500 with no reason at all (e.g. server-side apply's schema errors).
    body.reason = st.message().starts_with("Internal error occurred: ") ? "InternalError" : "";
  }
  if (!target.name.empty() || !target.resource.empty() || !st.causes().empty()) {
    api::meta::StatusDetails details;
    details.name = std::string(target.name);
    details.group = std::string(target.group);
    details.kind = std::string(
        st.code() == Code::kInvalid && !target.kind.empty() ? target.kind : target.resource);
    for (const auto& c : st.causes()) {
      details.causes.push_back({.reason = c.type, .message = c.message, .field = c.field});
    }
    if (st.code() == Code::kTimeout || st.code() == Code::kTooManyRequests) {
      details.retry_after_seconds = 1;
    }
    if (st.code() != Code::kBadRequest || !details.causes.empty())
      body.details = std::move(details);
  }
  return body;
}

std::string FailureStatusJson(const Status& st, const StatusTarget& target) {
  return api::codec::EncodeJson(FailureStatus(st, target));
}

std::string FailureStatusProtobuf(const Status& st, const StatusTarget& target) {
  return api::codec::EncodeProtobuf(FailureStatus(st, target), "v1", "Status");
}

http::Response ErrorResponse(const Status& st, const StatusTarget& target, bool protobuf) {
  http::Response r;
  r.status = http::HttpCodeFor(st.code());
  if (protobuf) {
    r.body = FailureStatusProtobuf(st, target);
    r.content_type = std::string(api::codec::kProtobufContentType);
  } else {
    // kube-apiserver writes JSON with Go's json.Encoder, which ends the document with a
    // newline; clients that print an error's body show it (the Python client's
    // FailToCreateError text is "Error from server (Conflict): {...}\n").
    r.body = FailureStatusJson(st, target);
    r.body += '\n';
  }
  if (st.code() == Code::kTimeout || st.code() == Code::kTooManyRequests) {
    r.headers.emplace_back("Retry-After", "1");
  }
  return r;
}

http::Response ErrorResponse(const Status& st, const StatusTarget& target) {
  return ErrorResponse(st, target, false);
}

std::string SuccessStatusJson(const StatusTarget& target, std::string_view uid) {
  return api::codec::EncodeJson(SuccessStatus(target, uid));
}

api::meta::StatusObject SuccessStatus(const StatusTarget& target, std::string_view uid) {
  api::meta::StatusObject body;
  body.status = "Success";
  api::meta::StatusDetails details;
  details.name = std::string(target.name);
  details.group = std::string(target.group);
  details.kind = std::string(target.resource);
  details.uid = std::string(uid);
  body.details = std::move(details);
  return body;
}

}  // namespace svcplane::apiserver::rest
