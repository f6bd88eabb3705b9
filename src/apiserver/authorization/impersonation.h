#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "apiserver/authorization/authorizer.h"
#include "apiserver/http/handler.h"

// Impersonation headers (upstream k8s.io/apiserver pkg/endpoints/filters/impersonation.go,
// legacy mode; spec §3.10). Runs after authentication and audit, before authorization.
namespace svcplane::apiserver::authorization {

// One requested item, in header order: the user (or ServiceAccount) first, then each group,
// each extra value, then the uid.
struct ImpersonationItem {
  enum class Kind { kUser, kServiceAccount, kGroup, kUserExtra, kUid };
  Kind kind = Kind::kUser;
  std::string ns;         // ServiceAccount
  std::string name;       // user name, SA name, group, extra value, uid
  std::string extra_key;  // UserExtra: lowercased and %-unescaped header suffix
};

struct ImpersonationRequest {
  std::vector<ImpersonationItem> items;  // empty: no impersonation requested
  std::string error;  // "requested [...] without impersonating a user" (answer 400)
};

// Reads Impersonate-User (first value), Impersonate-Group (every header), Impersonate-Extra-<key>
// (every header), Impersonate-Uid (first value). Header names compare case-insensitively.
ImpersonationRequest ParseImpersonationHeaders(const http::Headers& headers);

// The attributes the real user must be allowed for one item (verb impersonate).
Attributes ImpersonationAttributes(const http::Identity& requester, const ImpersonationItem& item);

struct ImpersonationOutcome {
  enum class Kind {
    kNone,          // no Impersonate-* headers: continue as the authenticated user
    kImpersonated,  // continue as `identity`
    kForbidden,     // answer ForbiddenResponse(denied, reason)
    kBadRequest,    // answer 400 BadRequest Status with `message`
  };
  Kind kind = Kind::kNone;
  http::Identity identity;
  Attributes denied;  // denied.user points at the requester passed in; an authorizer error
                      // also answers 403 (as upstream)
  std::string reason;
  std::string message;
};

// Authorizes every requested item for `requester` and builds the impersonated identity: groups
// as requested, or [system:serviceaccounts, system:serviceaccounts:<ns>] for a ServiceAccount
// without groups; then system:authenticated appended unless system:authenticated or
// system:unauthenticated is listed (for system:anonymous, system:unauthenticated appended
// unless listed); uid and extra as requested.
ImpersonationOutcome Impersonate(const http::Identity& requester, const http::Headers& headers,
                                 const Authorizer& authorizer);

// Whether a header is one of the Impersonate-* headers (all are removed before the handler).
bool IsImpersonationHeader(std::string_view name);

}  // namespace svcplane::apiserver::authorization
