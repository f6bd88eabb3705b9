#pragma once

#include <string>
#include <string_view>

#include "api/meta/types.h"
#include "apiserver/http/handler.h"
#include "base/status.h"

namespace svcplane::apiserver::rest {

// Which object a Status is about (metav1.StatusDetails). For Invalid, upstream names the Kind
// ("Service"); for everything else the resource ("services").
struct StatusTarget {
  std::string_view name;
  std::string_view group;
  std::string_view resource;  // "services"
  std::string_view kind;      // "Service"
};

// The metav1.Status failure kube-apiserver sends for `st`, with details and causes.
api::meta::StatusObject FailureStatus(const Status& st, const StatusTarget& target);
std::string FailureStatusJson(const Status& st, const StatusTarget& target);
// The same Status in the protobuf envelope (for clients whose Accept prefers protobuf).
std::string FailureStatusProtobuf(const Status& st, const StatusTarget& target);
http::Response ErrorResponse(const Status& st, const StatusTarget& target = {});
// ErrorResponse in protobuf when `protobuf` (Content-Type application/vnd.kubernetes.protobuf).
http::Response ErrorResponse(const Status& st, const StatusTarget& target, bool protobuf);

// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{...}}: the
// answer to a DELETE that removed the object at once.
api::meta::StatusObject SuccessStatus(const StatusTarget& target, std::string_view uid);
std::string SuccessStatusJson(const StatusTarget& target, std::string_view uid);

}  // namespace svcplane::apiserver::rest
