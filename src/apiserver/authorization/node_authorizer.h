#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/rbac/v1/rbac.h"
#include "apiserver/authorization/authorizer.h"

// The Node authorizer (upstream plugin/pkg/auth/authorizer/node, AuthorizeNodeWithSelectors on),
// trimmed to svcplane's kinds (spec §3.8). Upstream walks a pod→node graph fed by informers;
// here the caller injects a lookup of the stored objects, which is equivalent and stricter.
namespace svcplane::apiserver::authorization {

// What the node checks need to know about stored objects. Called from request workers
// concurrently; must be fast and must not block on I/O for long.
class NodeGraph {
 public:
  virtual ~NodeGraph() = default;
  // spec.nodeName of the pod ns/name; nullopt when there is no such pod.
  virtual std::optional<std::string> PodNodeName(std::string_view ns,
                                                 std::string_view name) const = 0;
  // metadata.uid of the Node `name`; nullopt when there is no such node.
  virtual std::optional<std::string> NodeUid(std::string_view name) const = 0;
};

// NodeIdentity: nullopt unless the user is named system:node:<n> and is in group system:nodes;
// then <n> (possibly "" for the bare prefix).
std::optional<std::string> NodeNameOf(const http::Identity& user);

inline constexpr std::string_view kNodeLeaseNamespace = "kube-node-lease";

class NodeAuthorizer final : public AuthorizerWithRules {
 public:
  // `graph` is borrowed and must outlive the authorizer.
  explicit NodeAuthorizer(const NodeGraph& graph);

  // NoOpinion for non-nodes. For nodes: nodes (own name only for reads), pods (bound to it,
  // or listed with spec.nodeName=<n>), leases (kube-node-lease, own name) get their own checks
  // with upstream's reasons; everything else is allowed iff the static system:node rules allow.
  Result Authorize(const Attributes& attributes) const override;
  // Nodes: incomplete, "node authorizer does not support user rule resolution". Others: none.
  RulesResult RulesFor(const http::Identity& user, std::string_view ns) const override;

 private:
  Result AuthorizeNode(const std::string& node, const Attributes& a) const;
  Result AuthorizePod(const std::string& node, const Attributes& a) const;
  Result AuthorizeLease(const std::string& node, const Attributes& a) const;
  Result StaticRules(const Attributes& a) const;

  const NodeGraph& graph_;
  const std::vector<api::rbac::v1::PolicyRule>& node_rules_;
};

}  // namespace svcplane::apiserver::authorization
