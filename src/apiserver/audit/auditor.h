#pragma once

#include <functional>
#include <memory>
#include <string>

#include "apiserver/audit/context.h"
#include "apiserver/audit/log_backend.h"
#include "apiserver/audit/policy.h"
#include "apiserver/audit/sink.h"
#include "apiserver/http/handler.h"
#include "base/result.h"

namespace svcplane::apiserver::audit {

// The audit filter (upstream's WithAudit and WithFailedAuthenticationAudit): evaluates the
// policy for each authenticated request, attaches a RequestContext to it, and writes the
// events of its stages (spec §5.2) to the sink:
//   RequestReceived    before the handler runs;
//   ResponseStarted    for a stream (watch), once its head is written;
//   ResponseComplete   when the handler answered (a response whose body is produced while
//                      sent, at RequestResponse level, once the body is complete), or when the
//                      stream ended;
//   Panic              the handler threw (the server answers 500).
// A request refused by authentication gets one ResponseStarted event with `user: {}`.
//
// Events written from a request's own thread wait for the sink in blocking mode (a request
// fiber suspends); those written from an I/O thread (stream stages, 401s) only queue.
class Auditor {
 public:
  using Now = std::function<Timestamp()>;
  Auditor(Policy policy, std::shared_ptr<Sink> sink, Now now = nullptr);

  // `inner` behind the audit filter. Must run after authentication and before impersonation
  // and authorization (spec §1), which annotate the request's context.
  http::Handler Wrap(http::Handler inner) const;

  // For http::ServerOptions::on_unauthenticated.
  void LogFailedAuthentication(const http::Request& req, const http::Response& response) const;

  const Policy& policy() const { return policy_; }

 private:
  struct Shared;
  std::shared_ptr<Shared> shared_;
  const Policy& policy_;
};

// The request's audit ID: its Audit-ID header, else a new UUID.
// TODO(integrator): return the `http::Request::audit_id` the authentication work adds (the
// same ID the server echoes as the Audit-ID response header). #22
std::string AuditIdOf(const http::Request& req);

// --audit-policy-file and the --audit-log-* flags. Without a policy file nothing is logged,
// even with a path; without a path nothing is either.
struct AuditOptions {
  std::string policy_file;
  LogOptions log;
};

// Checks the flags and loads the policy (startup errors, as kube-apiserver's), opens the log.
// Null (no error) when auditing is off.
Result<std::unique_ptr<Auditor>> NewAuditor(const AuditOptions& options);

}  // namespace svcplane::apiserver::audit
