#pragma once

#include <string>
#include <string_view>

#include "apiserver/http/handler.h"
#include "base/status.h"

namespace svcplane::apiserver::http {

// A metav1.Status failure body:
// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":...,
//  "reason":...,"code":...}. The REST layer builds richer ones (details, causes); the HTTP layer
// needs only these for its own errors (401, 413, 400, 431, 500).
std::string StatusJson(int code, std::string_view reason, std::string_view message);

Response StatusResponse(int code, std::string_view reason, std::string_view message);

// The HTTP code for a Status code, as the Kubernetes API server maps its reasons.
int HttpCodeFor(Code code);

// StatusResponse(HttpCodeFor(st.code()), CodeName(st.code()), st.message()); causes omitted.
Response StatusResponse(const Status& st);

}  // namespace svcplane::apiserver::http
