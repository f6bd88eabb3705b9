#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/rbac/v1/rbac.h"
#include "apiserver/http/handler.h"

// The authorizer contract (k8s.io/apiserver pkg/authorization/authorizer): what a request asks
// to do, and who decides. The request pipeline builds Attributes from each request (spec
// authn-authz-audit §3.1); the chain (privileged group → Node → RBAC) answers.
namespace svcplane::apiserver::authorization {

struct Attributes {
  const http::Identity* user = nullptr;  // never null when authorizing
  std::string verb;                      // get list watch create update patch delete ...
  bool resource_request = false;
  // Resource requests.
  std::string ns;
  std::string api_group;  // "" = core
  std::string api_version;
  std::string resource;
  std::string subresource;
  std::string name;
  std::string field_selector;  // raw, list/watch/deletecollection only
  std::string label_selector;
  // Non-resource requests.
  std::string path;
};

enum class Decision { kNoOpinion, kAllow, kDeny };

struct Result {
  Decision decision = Decision::kNoOpinion;
  std::string reason;  // shown after the 403 text, and in audit
  std::string error;   // evaluation error; with no allow the request answers 500
};

class Authorizer {
 public:
  virtual ~Authorizer() = default;
  // Called concurrently from request workers; must not block on I/O.
  virtual Result Authorize(const Attributes& attributes) const = 0;
};

// What a user may do in one namespace, as SelfSubjectRulesReview reports it (upstream
// authorizer.RuleResolver). Rules are listed unmerged, in evaluation order.
struct RulesResult {
  std::vector<api::rbac::v1::PolicyRule> resource_rules;      // verbs apiGroups resources names
  std::vector<api::rbac::v1::PolicyRule> non_resource_rules;  // verbs nonResourceURLs
  bool incomplete = false;
  std::string evaluation_error;  // "" unless incomplete
};

class RuleResolver {
 public:
  virtual ~RuleResolver() = default;
  // Safe from any thread.
  virtual RulesResult RulesFor(const http::Identity& user, std::string_view ns) const = 0;
};

// Both halves of one authorization mode (RBAC, Node, privileged group).
class AuthorizerWithRules : public Authorizer, public RuleResolver {};

// The group whose members every request is allowed for (upstream user.SystemPrivilegedGroup).
inline constexpr std::string_view kSystemMasters = "system:masters";

bool HasGroup(const http::Identity& user, std::string_view group);

// Upstream authorizerfactory.NewPrivilegedGroups(system:masters): Allow with reason "" for a
// member, NoOpinion otherwise; lists no rules.
class PrivilegedGroupAuthorizer final : public AuthorizerWithRules {
 public:
  Result Authorize(const Attributes& attributes) const override;
  RulesResult RulesFor(const http::Identity& user, std::string_view ns) const override;
};

// Upstream union authorizer + union rule resolver: the first Allow or Deny wins; when every
// member has no opinion the non-empty reasons are joined with "\n" and the errors aggregated.
// Rule listing concatenates members' rules in order; any incomplete member makes it incomplete.
// Members are borrowed and must outlive the chain.
class AuthorizerChain final : public AuthorizerWithRules {
 public:
  explicit AuthorizerChain(std::vector<const AuthorizerWithRules*> members);
  Result Authorize(const Attributes& attributes) const override;
  RulesResult RulesFor(const http::Identity& user, std::string_view ns) const override;

 private:
  std::vector<const AuthorizerWithRules*> members_;
};

// utilerrors.NewAggregate(errs).Error(): "" for none, the message for one, "[a, b]" for more
// (duplicates dropped, first occurrence kept).
std::string AggregateErrors(const std::vector<std::string>& errors);

}  // namespace svcplane::apiserver::authorization
