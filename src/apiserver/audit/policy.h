#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "apiserver/authorization/authorizer.h"
#include "base/result.h"

// The audit policy (audit.k8s.io/v1 Policy, spec authn-authz-audit §5.3): which requests are
// logged, at what level, and which stages are left out. Evaluated like upstream's
// pkg/audit/policy/checker.go: the first matching rule wins, no match means level None.
namespace svcplane::apiserver::audit {

// Ordered: a level includes everything the ones before it log.
enum class Level { kNone, kMetadata, kRequest, kRequestResponse };

enum class Stage { kRequestReceived, kResponseStarted, kResponseComplete, kPanic };

std::string_view LevelName(Level level);
std::string_view StageName(Stage stage);

struct GroupResources {
  std::string group;                   // "" = core
  std::vector<std::string> resources;  // "pods", "pods/status", "*/status", "pods/*", "*"
  std::vector<std::string> resource_names;
};

struct PolicyRule {
  Level level = Level::kNone;
  std::vector<std::string> users;
  std::vector<std::string> user_groups;
  std::vector<std::string> verbs;
  std::vector<GroupResources> resources;
  std::vector<std::string> namespaces;  // "" matches cluster-scoped requests
  std::vector<std::string> non_resource_urls;
  std::vector<Stage> omit_stages;
};

// What the policy says about one request.
struct RuleEvaluation {
  Level level = Level::kNone;
  std::vector<Stage> omit_stages;  // the policy's and the rule's, unioned

  bool Omits(Stage s) const;
};

struct Policy {
  std::vector<Stage> omit_stages;
  std::vector<PolicyRule> rules;

  // `attributes.user` may be null (a request that failed authentication): rules naming users
  // or groups then do not match it.
  RuleEvaluation Evaluate(const authorization::Attributes& attributes) const;
};

// Parses a Policy from YAML or JSON text. Errors (kInvalid) as kube-apiserver words them:
// "Object 'Kind' is missing in ...", "no kind \"Policy\" is registered for version ...",
// "loaded illegal policy with 0 rules", an unknown level or stage.
Result<Policy> ParsePolicy(std::string_view text);

// Reads and parses --audit-policy-file; errors name the file.
Result<Policy> LoadPolicyFile(const std::string& path);

}  // namespace svcplane::apiserver::audit
