#pragma once

// In-process clients that are someone (issue 22, spec authn-authz-audit §4.4). The loopback
// Clientset (apiserver/loopback) calls the registries directly and asks nobody's permission;
// an IdentityClientset in front of it makes every call what the same call over HTTPS would be
// after authentication: authorized as its identity by the server's chain (system:masters →
// Node → RBAC), and audited under the server's policy with that user, its user agent and the
// request URI the REST client would have sent. So the in-process endpointslice controller acts
// as system:serviceaccount:kube-system:endpointslice-controller with exactly the upstream
// controller role, a simulated node as system:node:<name>, and the audit log says so.
//
// What is not modelled: a watch is audited as one ResponseComplete event when it ends (no
// ResponseStarted), and a request body is encoded for the audit log only when auditing is on.

#include <memory>
#include <string>

#include "apiserver/http/handler.h"
#include "client/typed/interface.h"

namespace svcplane::apiserver::audit {
class Auditor;
}

namespace svcplane::apiserver::server {

class AccessControl;

// What every in-process call passes. Either may be null: no authorization (AlwaysAllow), no
// audit. Both must outlive every IdentityClientset made with them.
struct LoopbackGate {
  const AccessControl* access = nullptr;
  const audit::Auditor* auditor = nullptr;
};

// How a component identifies itself: the user the authenticator would have established, and
// the User-Agent its REST client would send (audit's userAgent).
struct ComponentIdentity {
  http::Identity identity;
  std::string user_agent;
  // The managedFields manager of its writes that name none (WriteOptions::field_manager).
  std::string field_manager;
};

// The identity of a ServiceAccount token (kube-controller-manager's
// --use-service-account-credentials): system:serviceaccount:<ns>:<name> in system:serviceaccounts,
// system:serviceaccounts:<ns> and system:authenticated.
ComponentIdentity ServiceAccountIdentity(std::string_view ns, std::string_view name);
// A kubelet's: system:node:<name> in system:nodes and system:authenticated.
ComponentIdentity NodeIdentity(std::string_view node_name);
// A user's certificate identity (CN = user, O = groups) plus system:authenticated.
// `field_manager` empty: the product of `user_agent`.
ComponentIdentity UserIdentity(std::string_view user, std::vector<std::string> groups,
                               std::string_view user_agent, std::string_view field_manager = "");

// `inner` (must outlive the result) acting as `who` through `gate`. A refused call fails with the
// Forbidden (or BadRequest/Internal) Status the REST client would have received, and changes
// nothing. Safe from any thread.
std::unique_ptr<client::Clientset> MakeIdentityClientset(client::Clientset& inner,
                                                         ComponentIdentity who, LoopbackGate gate);

}  // namespace svcplane::apiserver::server
