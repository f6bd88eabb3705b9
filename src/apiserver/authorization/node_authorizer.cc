#include "apiserver/authorization/node_authorizer.h"

#include "api/selectors/field_selector.h"
#include "apiserver/authorization/bootstrap_policy.h"
#include "apiserver/authorization/internal/go_quote.h"
#include "apiserver/authorization/rbac_rules.h"

namespace svcplane::apiserver::authorization {
namespace {

constexpr std::string_view kNodeUserPrefix = "system:node:";
constexpr std::string_view kNodesGroup = "system:nodes";

Result NoOpinion(std::string reason) { return Result{Decision::kNoOpinion, std::move(reason), ""}; }
Result Allow() { return Result{Decision::kAllow, "", ""}; }

}  // namespace

std::optional<std::string> NodeNameOf(const http::Identity& user) {
  if (!user.user.starts_with(kNodeUserPrefix) || !HasGroup(user, kNodesGroup)) {
    return std::nullopt;
  }
  return user.user.substr(kNodeUserPrefix.size());
}

NodeAuthorizer::NodeAuthorizer(const NodeGraph& graph) : graph_(graph), node_rules_(NodeRules()) {}

Result NodeAuthorizer::Authorize(const Attributes& a) const {
  if (a.user == nullptr) return Result{};
  std::optional<std::string> node = NodeNameOf(*a.user);
  if (!node) return Result{};
  if (node->empty()) return NoOpinion("unknown node for user " + internal::GoQuote(a.user->user));
  if (a.resource_request) {
    if (a.api_group.empty() && a.resource == "nodes") return AuthorizeNode(*node, a);
    if (a.api_group.empty() && a.resource == "pods") return AuthorizePod(*node, a);
    if (a.api_group == "coordination.k8s.io" && a.resource == "leases") {
      return AuthorizeLease(*node, a);
    }
  }
  return StaticRules(a);
}

Result NodeAuthorizer::StaticRules(const Attributes& a) const {
  return RulesAllow(a, node_rules_) ? Allow() : Result{};
}

Result NodeAuthorizer::AuthorizeNode(const std::string& node, const Attributes& a) const {
  if (a.subresource.empty() && (a.verb == "get" || a.verb == "list" || a.verb == "watch")) {
    if (a.name.empty()) {
      return NoOpinion("node '" + node + "' cannot read all nodes, only its own Node object");
    }
    if (a.name != node) {
      return NoOpinion("node '" + node + "' cannot read '" + a.name +
                       "', only its own Node object");
    }
    return Allow();
  }
  return StaticRules(a);
}

Result NodeAuthorizer::AuthorizePod(const std::string& node, const Attributes& a) const {
  auto related = [&]() -> Result {
    if (a.name.empty()) return NoOpinion("No Object name found");
    std::optional<std::string> bound = graph_.PodNodeName(a.ns, a.name);
    if (!bound || *bound != node) {
      return NoOpinion("no relationship found between node '" + node + "' and this object");
    }
    return Allow();
  };
  if (a.subresource.empty()) {
    if (a.verb == "get") return related();
    if (a.verb == "list" || a.verb == "watch") {
      if (auto selector = api::selectors::ParseFieldSelector(a.field_selector); selector.ok()) {
        for (const auto& req : selector->requirements()) {
          if (req.field == "spec.nodeName" && req.op == api::selectors::FieldOperator::kEquals &&
              req.value == node) {
            return Allow();
          }
        }
      }
      if (!a.name.empty()) return related();
      return NoOpinion("can only list/watch pods with spec.nodeName field selector");
    }
  }
  return StaticRules(a);
}

Result NodeAuthorizer::AuthorizeLease(const std::string& node, const Attributes& a) const {
  const std::string& verb = a.verb;
  if (verb != "get" && verb != "create" && verb != "update" && verb != "patch" &&
      verb != "delete") {
    return NoOpinion("can only get, create, update, patch, or delete a node lease");
  }
  if (a.ns != kNodeLeaseNamespace) {
    return NoOpinion("can only access leases in the \"kube-node-lease\" system namespace");
  }
  // The name of a create is in the body: NodeRestriction checks it.
  if (verb != "create" && a.name != node) {
    return NoOpinion("can only access node lease with the same name as the requesting node");
  }
  return Allow();
}

RulesResult NodeAuthorizer::RulesFor(const http::Identity& user, std::string_view) const {
  RulesResult out;
  if (NodeNameOf(user)) {
    out.incomplete = true;
    out.evaluation_error = "node authorizer does not support user rule resolution";
  }
  return out;
}

}  // namespace svcplane::apiserver::authorization
