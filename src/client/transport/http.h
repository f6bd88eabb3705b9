#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/result.h"

namespace svcplane::client::transport {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

// Marks a transport error of a request that certainly never reached the server: no connection
// could be made (name lookup, TCP connect, TLS handshake) and no earlier attempt was sent. Even
// a mutation may then be retried on another server. Carried as a cause of this type because
// Status has no field for it (as client::kRetryAfterCauseType).
inline constexpr char kNotSentCauseType[] = "RequestNotSent";
Status NotSent(Status status);
bool IsNotSent(const Status& status);

struct HttpRequest {
  std::string method = "GET";
  std::string target;  // path and query, e.g. "/api/v1/namespaces/default/pods?limit=500"
  HttpHeaders headers;
  std::string body;
};

struct HttpResponse {
  int status = 0;
  HttpHeaders headers;
  std::string body;

  // First value of a header (case-insensitive name), or "".
  std::string Header(std::string_view name) const;
};

// Lets another thread stop a streaming call. Cancel is sticky and safe from any thread; a call
// that sees it returns promptly with the lines delivered so far.
class CancelToken {
 public:
  void Cancel();
  bool cancelled() const;

  // For transports: `on_cancel` runs on Cancel (or at once if already cancelled) until the
  // returned registration is reset. It runs on the cancelling thread, under the token's lock.
  class Registration {
   public:
    explicit Registration(CancelToken* token) : token_(token) {}
    ~Registration();
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;

   private:
    CancelToken* token_;
  };
  [[nodiscard]] Registration OnCancel(std::function<void()> on_cancel);

 private:
  mutable std::mutex mu_;
  bool cancelled_ = false;           // guarded by mu_
  std::function<void()> on_cancel_;  // guarded by mu_
};

// Called with each line of a streamed body (without the newline). Return false to stop reading.
using LineHandler = std::function<bool(std::string_view line)>;
// Called with the response head (status, headers, empty body) and then each chunk of a streamed
// body as it arrives (a chunk may hold part of an event or several). Return false to stop.
using BytesHandler = std::function<bool(const HttpResponse& head, std::string_view chunk)>;

// A connection to one API server. Implementations add authentication, rate limiting and
// connection reuse. Safe from any thread.
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;

  // One request, the whole response. Errors are transport failures (kUnavailable: connect,
  // TLS, reset; kTimeout); HTTP error statuses come back as responses.
  virtual Result<HttpResponse> Do(const HttpRequest& request) = 0;

  // For watches: sends the request, then, if the status is 2xx, hands each line of the body to
  // `on_line` as it arrives and returns the response with an empty body when the server ends
  // the stream, `on_line` returns false, or `cancel` fires. A non-2xx response is returned whole.
  virtual Result<HttpResponse> Stream(const HttpRequest& request, const LineHandler& on_line,
                                      CancelToken& cancel) = 0;

  // As Stream, but hands the raw body bytes: protobuf watches are length-prefixed frames, not
  // lines. The default says the transport cannot (kMethodNotAllowed); callers fall back to JSON.
  virtual Result<HttpResponse> StreamBytes(const HttpRequest& request, const BytesHandler& on_bytes,
                                           CancelToken& cancel);
};

}  // namespace svcplane::client::transport
