#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "apiserver/http/stream_writer.h"

namespace svcplane::apiserver::audit {
class RequestContext;  // apiserver/audit/context.h
}

// The contract between the HTTPS server and whatever routes requests above it. Nothing here
// knows about Kubernetes kinds: a handler gets bytes and answers with bytes.
namespace svcplane::apiserver::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

// Who made the request, as the authenticator established it (k8s.io/apiserver user.Info).
struct Identity {
  std::string user;
  std::vector<std::string> groups;
  std::string uid;
  std::map<std::string, std::vector<std::string>, std::less<>> extra;
  bool operator==(const Identity&) const = default;
};

// The subject of a client certificate that verified against the server's client CA.
struct PeerCertificate {
  std::string common_name;
  std::vector<std::string> organizations;
};

struct Request {
  std::string method;     // "GET", "POST", ...
  std::string target;     // the request-target as sent: "/api/v1/pods?watch=1"
  std::string path;       // percent-decoded path: "/api/v1/pods"
  std::string raw_query;  // still encoded, without '?': "watch=1"
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in order, repeats kept
  Headers headers;                                         // in order, names as sent
  std::string body;
  std::string remote_address;  // "127.0.0.1:53412"
  std::optional<PeerCertificate> peer_certificate;
  Identity identity;  // filled in after authentication succeeded
  // When the request head arrived (the audit log's requestReceivedTimestamp).
  std::chrono::system_clock::time_point received_at;
  // The audit filter's per-request state, null when the request is not audited. The server
  // never touches it; mutable because filters in front of the handler attach it to the
  // request they were given as const (see apiserver/audit/context.h for annotating it).
  mutable std::shared_ptr<audit::RequestContext> audit;

  // First header with this name, compared case-insensitively.
  std::optional<std::string_view> Header(std::string_view name) const;
  // First query parameter with this name (exact match); "" for a key without value ("?watch").
  std::optional<std::string_view> Query(std::string_view name) const;
};

// Produces a response body piece by piece while the server sends it: each call appends the
// next bytes to *out and returns false once the whole body has been appended. A LIST of 100k
// Pods is ~260 MB of JSON; produced this way it is never held whole (no giant allocation and
// its page faults) and the client receives the first bytes at once instead of after the last.
// The status is decided before the body starts, so a source must not fail. It runs on an I/O
// thread and, past its first piece, on a worker building the next piece while one is sent; one
// call at a time, and it must not block; what it reads must stay alive as long as it does
// (capture it by value / shared_ptr).
using BodySource = std::function<bool(std::string* out)>;

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  Headers headers;  // extra headers; Content-Length and Connection are set by the server
  // When set, the body instead (`body` is ignored): sent with Transfer-Encoding: chunked, or with
  // Content-Length when body_source_size gives the exact size it will produce (a client can
  // then size its buffer once), assembled whole for an HTTP/1.0 client.
  BodySource body_source;
  std::optional<uint64_t> body_source_size;
};

// The whole body of `r`: its body_source, if any, runs to the end into `body` (and is dropped).
// For tests and for callers that need the bytes at once.
const std::string& DrainBody(Response& r);

// A handler answers with a complete Response, or with a StreamWriter it created (and keeps, to
// write to later): the server then sends the head at once and the writer's bytes as chunks.
using Reply = std::variant<Response, std::shared_ptr<StreamWriter>>;

// Runs on the server's worker pool, never on an I/O thread, so it may block briefly (a storage
// write); it must not wait for long (use a stream for that). Called concurrently from several
// workers. An exception escaping it becomes a 500 Status.
using Handler = std::function<Reply(const Request&)>;

// Decides who a request comes from; nullopt means unauthenticated (the server answers 401).
// Runs on an I/O thread: it must be fast and must not throw.
using Authenticator = std::function<std::optional<Identity>(const Request&)>;

}  // namespace svcplane::apiserver::http
