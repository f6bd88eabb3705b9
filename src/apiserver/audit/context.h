#pragma once

#include <mutex>
#include <string>
#include <string_view>

#include "apiserver/audit/event.h"
#include "apiserver/audit/policy.h"
#include "apiserver/http/handler.h"

// The per-request audit state (upstream's AuditContext), reachable from the request as
// `req.audit` for the stages behind the audit filter to annotate:
//
//   audit::SetAuthorizationDecision(req, /*allowed=*/true, result.reason);   // the authorizer
//   audit::SetImpersonatedUser(req, impersonated);                           // impersonation
//   audit::AddAnnotation(req, "pod-security.kubernetes.io/enforce-policy", "restricted:latest");
//
// Each free function is a no-op when the request is not audited (no policy, or level None),
// so callers never check. Safe from any thread.
namespace svcplane::apiserver::audit {

// What a handler learned from the decoded request body (upstream's LogRequestObject).
struct DecodedObjectMeta {
  std::string ns;
  std::string name;
  std::string uid;
  std::string resource_version;
};

class RequestContext {
 public:
  RequestContext(RuleEvaluation rule, Event event)
      : rule_(std::move(rule)), event_(std::move(event)) {}

  Level level() const { return rule_.level; }
  bool Omits(Stage s) const { return rule_.Omits(s); }

  // A key set twice keeps its first value, as upstream does.
  void AddAnnotation(std::string_view key, std::string_view value);
  void SetImpersonatedUser(const http::Identity& user);
  // Fills objectRef's namespace, name, uid and resourceVersion where still empty; the JSON (an
  // object) becomes requestObject at level Request and above. Later calls do not replace it.
  void LogRequestObject(const DecodedObjectMeta& meta, std::string object_json);
  bool HasRequestObject() const;
  void SetResponse(ResponseStatus status, std::string response_object_json);

  // Appends the event as it stands, for one stage, as one JSON line (without newline), encoded
  // under the lock rather than copied first (the copy would hold the request body again).
  void EncodeAt(Stage stage, Timestamp now, std::string* out) const;

 private:
  const RuleEvaluation rule_;
  mutable std::mutex mu_;
  Event event_;                         // guarded by mu_
  bool request_object_logged_ = false;  // guarded by mu_
};

// The request's audit context, or null when it is not audited.
inline RequestContext* ContextOf(const http::Request& req) { return req.audit.get(); }

void AddAnnotation(const http::Request& req, std::string_view key, std::string_view value);
// authorization.k8s.io/decision = allow | forbid and authorization.k8s.io/reason (written even
// when empty, spec §5.1). On an authorizer error with no allow, upstream writes the reason
// alone: AddAnnotation(req, kReasonAnnotation, "internal error").
void SetAuthorizationDecision(const http::Request& req, bool allowed, std::string_view reason);
void SetImpersonatedUser(const http::Request& req, const http::Identity& user);
void LogRequestObject(const http::Request& req, const DecodedObjectMeta& meta,
                      std::string object_json);

inline constexpr std::string_view kDecisionAnnotation = "authorization.k8s.io/decision";
inline constexpr std::string_view kReasonAnnotation = "authorization.k8s.io/reason";

}  // namespace svcplane::apiserver::audit
