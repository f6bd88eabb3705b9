#include <algorithm>

#include "apiserver/authorization/authorizer.h"

namespace svcplane::apiserver::authorization {

bool HasGroup(const http::Identity& user, std::string_view group) {
  return std::find(user.groups.begin(), user.groups.end(), group) != user.groups.end();
}

Result PrivilegedGroupAuthorizer::Authorize(const Attributes& attributes) const {
  if (attributes.user != nullptr && HasGroup(*attributes.user, kSystemMasters)) {
    return Result{Decision::kAllow, "", ""};
  }
  return Result{};
}

RulesResult PrivilegedGroupAuthorizer::RulesFor(const http::Identity&, std::string_view) const {
  return RulesResult{};
}

AuthorizerChain::AuthorizerChain(std::vector<const AuthorizerWithRules*> members)
    : members_(std::move(members)) {}

Result AuthorizerChain::Authorize(const Attributes& attributes) const {
  std::vector<std::string> reasons;
  std::vector<std::string> errors;
  for (const AuthorizerWithRules* member : members_) {
    Result r = member->Authorize(attributes);
    if (!r.error.empty()) errors.push_back(r.error);
    if (r.decision != Decision::kNoOpinion) return r;
    if (!r.reason.empty()) reasons.push_back(std::move(r.reason));
  }
  Result out;
  for (size_t i = 0; i < reasons.size(); ++i) {
    if (i > 0) out.reason += '\n';
    out.reason += reasons[i];
  }
  out.error = AggregateErrors(errors);
  return out;
}

RulesResult AuthorizerChain::RulesFor(const http::Identity& user, std::string_view ns) const {
  RulesResult out;
  std::vector<std::string> errors;
  for (const AuthorizerWithRules* member : members_) {
    RulesResult r = member->RulesFor(user, ns);
    for (auto& rule : r.resource_rules) out.resource_rules.push_back(std::move(rule));
    for (auto& rule : r.non_resource_rules) out.non_resource_rules.push_back(std::move(rule));
    out.incomplete = out.incomplete || r.incomplete;
    if (!r.evaluation_error.empty()) errors.push_back(std::move(r.evaluation_error));
  }
  out.evaluation_error = AggregateErrors(errors);
  return out;
}

std::string AggregateErrors(const std::vector<std::string>& errors) {
  std::vector<const std::string*> unique;
  for (const std::string& e : errors) {
    bool seen = false;
    for (const std::string* u : unique) seen = seen || *u == e;
    if (!seen) unique.push_back(&e);
  }
  if (unique.empty()) return "";
  if (unique.size() == 1) return *unique[0];
  std::string out = "[";
  for (size_t i = 0; i < unique.size(); ++i) {
    if (i > 0) out += ", ";
    out += *unique[i];
  }
  out += "]";
  return out;
}

}  // namespace svcplane::apiserver::authorization
