#pragma once

#include <string_view>
#include <vector>

#include "api/rbac/v1/rbac.h"
#include "apiserver/authorization/authorizer.h"

// RBAC rule and subject matching (upstream pkg/apis/rbac/v1/evaluation_helpers.go, spec §3.5).
// Pure functions; no allocation on the matching path.
namespace svcplane::apiserver::authorization {

using api::rbac::v1::PolicyRule;
using api::rbac::v1::Subject;

bool VerbMatches(const PolicyRule& rule, std::string_view verb);
bool ApiGroupMatches(const PolicyRule& rule, std::string_view group);
// `*`, `res` (no subresource), `res/sub`, or `*/sub`; `pods` never matches pods/status.
bool ResourceMatches(const PolicyRule& rule, std::string_view resource,
                     std::string_view subresource);
// No resourceNames matches any name; otherwise the request name must be listed (an unnamed
// request never matches).
bool ResourceNameMatches(const PolicyRule& rule, std::string_view name);
// `*`, exact, or a rule ending in `*` whose prefix prefixes the path.
bool NonResourceUrlMatches(const PolicyRule& rule, std::string_view path);

// Whether `rule` allows the request (resource rules for resource requests, URL rules for the
// others).
bool RuleAllows(const Attributes& request, const PolicyRule& rule);
bool RulesAllow(const Attributes& request, const std::vector<PolicyRule>& rules);

// Whether a binding's subject names this user. A ServiceAccount subject matches username
// system:serviceaccount:<ns>:<name>, <ns> defaulting to the binding's namespace (empty in a
// ClusterRoleBinding, which then never matches).
bool SubjectMatches(const http::Identity& user, const Subject& subject,
                    std::string_view binding_namespace);
bool AppliesTo(const http::Identity& user, const std::vector<Subject>& subjects,
               std::string_view binding_namespace);

inline constexpr std::string_view kServiceAccountUsernamePrefix = "system:serviceaccount:";
// "system:serviceaccount:<ns>:<name>".
std::string ServiceAccountUsername(std::string_view ns, std::string_view name);

}  // namespace svcplane::apiserver::authorization
