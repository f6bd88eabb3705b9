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

// The client certificate a TLS connection presented, examined once at its handshake. The
// handshake never fails because of it (spec authn §2.1): the x509 authenticator decides.
struct PeerCertificate {
  // Verified against the client CAs, with the intermediates the client sent, at the handshake's
  // time, for ExtKeyUsage clientAuth. When false, verify_error says why.
  bool verified = false;
  std::string verify_error;
  std::string common_name;
  std::vector<std::string> organizations;  // every Subject O, in order
  std::vector<std::string> uids;           // every Subject UID (0.9.2342.19200300.100.1.1)
  std::string sha256_hex;                  // lowercase hex SHA-256 of the leaf's DER
  // For the failure log line: serial in decimal, key ids as "AA:BB:..".
  std::string serial;
  std::string subject_key_id;
  std::string authority_key_id;
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
  // The request's Audit-ID header as sent, or a new UUID; the response echoes it in its own
  // Audit-ID header (spec authn §1 item 1). Set by the server before authentication.
  std::string audit_id;
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

// What an authenticator made of a request (k8s.io/apiserver authenticator.Request's
// (response, ok, err)): a user, no credential it understands, or a credential that failed.
struct AuthResult {
  enum class Outcome { kNoOpinion, kAuthenticated, kFailed };
  Outcome outcome = Outcome::kNoOpinion;
  Identity identity;  // kAuthenticated
  std::string error;  // kFailed: why, for the server log only (never the response)
  // Values for Warning response headers ("299 - \"...\""), whatever the outcome.
  std::vector<std::string> warnings;
  // The credential came from the Authorization header, which the server then removes before
  // handlers see the request (never echoed, logged or audited).
  bool consumed_authorization = false;

  static AuthResult NoOpinion() { return {}; }
  static AuthResult Authenticated(Identity id) {
    AuthResult r;
    r.outcome = Outcome::kAuthenticated;
    r.identity = std::move(id);
    return r;
  }
  static AuthResult Failed(std::string why) {
    AuthResult r;
    r.outcome = Outcome::kFailed;
    r.error = std::move(why);
    return r;
  }
  bool authenticated() const { return outcome == Outcome::kAuthenticated; }
};

// Decides who a request comes from. Anything but kAuthenticated makes the server answer 401
// (anonymous access is an authenticator that turns kNoOpinion into system:anonymous).
// Runs on an I/O thread: it must be fast and must not throw.
using Authenticator = std::function<AuthResult(const Request&)>;

}  // namespace svcplane::apiserver::http
