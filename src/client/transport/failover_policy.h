#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "client/transport/http.h"

namespace svcplane::client::transport {

// What a client with several API servers does after one attempt on one of them (spec
// etcd-backend-and-ha §4.6). Pure: no I/O, so every case is a table entry in the test.
//
// Rotate (stop using this server) on what says the server, not the request, is at fault: a
// transport error (connect refused, reset, TLS failure, timeout, a stream declared dead), 429
// and any 5xx. Any other answer (2xx, 3xx, 4xx other than 429) means the server works.
//
// Retry at once on the next server only what cannot be applied twice by doing so:
//  - a request that never reached the server (IsNotSent), whatever its method;
//  - a read (GET, HEAD, OPTIONS: lists and watches too) of which nothing was handed to the
//    caller yet (a watch that already delivered events resumes from its resourceVersion in the
//    caller's loop instead).
// A mutation that was sent and then failed (a 5xx, a reset) may have been committed, so its
// result goes back to the caller as with one server.
struct FailoverVerdict {
  bool rotate = false;
  bool retry = false;  // implies rotate
  std::string reason;  // why the server is left, for the log: "HTTP 503", "connect: ..."
};

// `delivered`: some of the response body was already handed to the caller (streams only).
FailoverVerdict JudgeAttempt(std::string_view method, const Result<HttpResponse>& result,
                             bool delivered);

// GET, HEAD and OPTIONS: safe to send again (a watch is a GET).
bool IsIdempotent(std::string_view method);

}  // namespace svcplane::client::transport
