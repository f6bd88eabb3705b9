#include "client/transport/failover_policy.h"

#include <fmt/format.h>

namespace svcplane::client::transport {

bool IsIdempotent(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "OPTIONS";
}

FailoverVerdict JudgeAttempt(std::string_view method, const Result<HttpResponse>& result,
                             bool delivered) {
  FailoverVerdict v;
  if (result.ok()) {
    const int code = result->status;
    if (code != 429 && code < 500) return v;
    v.rotate = true;
    // A refused or failed response is returned whole, before any body reaches the caller.
    v.retry = IsIdempotent(method);
    v.reason = fmt::format("HTTP {}", code);
    return v;
  }
  const Status& st = result.status();
  if (IsNotSent(st)) {
    v.rotate = v.retry = true;
    v.reason = st.message();
    return v;
  }
  // Other transport failures: the request went out and the connection broke or went silent.
  // Errors of our own making (bad config, credentials, no StreamBytes) would fail anywhere.
  if (st.code() != Code::kUnavailable && st.code() != Code::kTimeout) return v;
  v.rotate = true;
  v.retry = IsIdempotent(method) && !delivered;
  v.reason = st.message();
  return v;
}

}  // namespace svcplane::client::transport
