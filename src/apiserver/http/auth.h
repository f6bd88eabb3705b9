#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/http/handler.h"
#include "apiserver/http/token_file.h"

// The authenticator chain of kube-apiserver (spec authn §2.1, pkg/kubeapiserver/authenticator):
//   WithAnonymous(WithAuthenticatedGroup(Union({X509Authenticator(), BearerTokenAuthenticator()})))
// Every piece is an http::Authenticator; the server answers 401 to anything but kAuthenticated.
namespace svcplane::apiserver::http {

inline constexpr std::string_view kAuthenticatedGroup = "system:authenticated";
inline constexpr std::string_view kUnauthenticatedGroup = "system:unauthenticated";
inline constexpr std::string_view kAnonymousUser = "system:anonymous";
inline constexpr std::string_view kCredentialIdKey = "authentication.kubernetes.io/credential-id";

// The warning upstream attaches when `Authorization: Bearer  <token>` has two spaces.
inline constexpr std::string_view kExtraSpaceWarning =
    "299 - \"the provided Authorization header contains extra space before the bearer token, "
    "and is ignored\"";

// What an Authorization header holds (k8s.io/apiserver bearertoken.go): the value trimmed of
// spaces, split on " " into at most 3 parts, scheme compared case-insensitively to "bearer",
// the token is the second part ("Bearer abc def" → "abc"). An empty second part ("Bearer  tok")
// is kExtraSpace: no credential, with kExtraSpaceWarning.
struct BearerHeader {
  enum class Kind { kNone, kToken, kExtraSpace };
  Kind kind = Kind::kNone;
  std::string_view token;  // a view into the header value
};
BearerHeader ParseBearerHeader(std::string_view authorization);

// Bearer tokens: `fast_token` (the admin token, compared in constant time without hashing: it
// is checked on nearly every request of the built-in clients) maps to `fast_identity`, the
// break-glass token (compared the same way) to `break_glass_identity`; any other token is
// looked up in `tokens` (may be null). A token nobody knows is kFailed ("invalid
// bearer token"); no Authorization header, another scheme or an empty token are kNoOpinion.
// Identities are returned as configured: WithAuthenticatedGroup adds system:authenticated.
struct BearerTokens {
  std::string fast_token;  // empty: none
  Identity fast_identity;
  std::shared_ptr<const TokenFile> tokens;
  std::string break_glass_token;  // empty: none
  Identity break_glass_identity;
};
Authenticator BearerTokenAuthenticator(BearerTokens tokens);
// One token (tests and benchmarks).
Authenticator BearerTokenAuthenticator(std::string token, Identity identity);

// The connection's client certificate (Request::peer_certificate, examined at the handshake):
// none, or an empty CN → kNoOpinion; not verified, or more than one / an empty UID attribute →
// kFailed (and a log line `verifying certificate SN=.., SKID=.., AKID=.. failed: ..`).
// Otherwise user = CN, groups = every O in order, uid = the UID attribute, extra
// credential-id = ["X509SHA256=<hex>"].
Authenticator X509Authenticator();

// Tries each in order; the first kAuthenticated wins (errors of the others dropped); else
// kFailed if any failed (errors joined), else kNoOpinion. Warnings of all that ran are kept.
Authenticator Union(std::vector<Authenticator> authenticators);

// Appends system:authenticated to an authenticated user unless it is system:anonymous or
// already has system:authenticated or system:unauthenticated (spec authn §2.6).
Authenticator WithAuthenticatedGroup(Authenticator inner);
// The group rule of WithAuthenticatedGroup, on one identity.
void AddAuthenticatedGroup(Identity* id);

// --anonymous-auth: kNoOpinion becomes system:anonymous / [system:unauthenticated];
// kFailed stays kFailed (upstream FailOnError: a bad credential is never anonymous).
Authenticator WithAnonymous(Authenticator inner);
Identity AnonymousIdentity();

// The identity the admin token and admin certificate of DATA_DIR/kubeconfig map to
// (system:authenticated included, as the chain would add it): kubernetes-admin in group
// svcplane:cluster-admins, which holds cluster-admin only through a ClusterRoleBinding of that
// name, so deleting the binding revokes it (as kubeadm's kubeadm:cluster-admins).
Identity AdminIdentity();
inline constexpr std::string_view kClusterAdminsGroup = "svcplane:cluster-admins";
// The break-glass identity of DATA_DIR/super-admin.kubeconfig: kubernetes-super-admin in
// system:masters, which no binding can take away (kubeadm's super-admin.conf).
Identity SuperAdminIdentity();

}  // namespace svcplane::apiserver::http
