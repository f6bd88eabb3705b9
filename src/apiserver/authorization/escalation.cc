#include "apiserver/authorization/escalation.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "apiserver/authorization/forbidden.h"
#include "apiserver/authorization/internal/go_quote.h"

namespace svcplane::apiserver::authorization {

using internal::GoQuote;
using internal::GoQuoteList;

namespace {

constexpr std::string_view kAll = "*";

bool Has(const std::vector<std::string>& set, std::string_view v) {
  return std::find(set.begin(), set.end(), v) != set.end();
}

bool HasAll(const std::vector<std::string>& set, const std::vector<std::string>& values) {
  for (const std::string& v : values) {
    if (!Has(set, v)) return false;
  }
  return true;
}

bool ResourceCoversAll(const std::vector<std::string>& owner,
                       const std::vector<std::string>& requested) {
  if (Has(owner, kAll) || HasAll(owner, requested)) return true;
  for (const std::string& path : requested) {
    if (Has(owner, path)) continue;
    size_t slash = path.find('/');
    if (slash == std::string::npos) return false;
    if (!Has(owner, "*/" + path.substr(slash + 1))) return false;
  }
  return true;
}

bool NonResourceUrlCovers(std::string_view owner, std::string_view path) {
  if (owner == path) return true;
  if (owner.empty() || owner.back() != '*') return false;
  while (!owner.empty() && owner.back() == '*') owner.remove_suffix(1);  // TrimRight "*"
  return path.starts_with(owner);
}

bool NonResourceUrlsCoverAll(const std::vector<std::string>& owner,
                             const std::vector<std::string>& requested) {
  for (const std::string& path : requested) {
    bool covered = false;
    for (const std::string& o : owner) covered = covered || NonResourceUrlCovers(o, path);
    if (!covered) return false;
  }
  return true;
}

std::string GroupsText(const http::Identity& user) { return GoQuoteList(user.groups); }

api::meta::StatusObject NotFoundStatus(std::string_view resource, std::string_view name) {
  api::meta::StatusObject st;
  st.status = "Failure";
  st.reason = "NotFound";
  st.code = 404;
  st.message = std::string(resource) + ".rbac.authorization.k8s.io " + GoQuote(name) + " not found";
  st.details.emplace();
  st.details->name = std::string(name);
  st.details->group = std::string(api::rbac::v1::kGroupName);
  st.details->kind = std::string(resource);
  return st;
}

bool Authorized(const EscalationContext& ctx, Attributes attrs) {
  attrs.user = &ctx.user;
  attrs.resource_request = true;
  return ctx.authorizer.Authorize(attrs).decision == Decision::kAllow;
}

// rbacregistry.RoleEscalationAuthorized: `escalate` on the request's own role resource.
bool RoleEscalationAuthorized(const EscalationContext& ctx, const Attributes& request) {
  if (!request.resource_request || request.api_group != api::rbac::v1::kGroupName) return false;
  if (request.resource != "roles" && request.resource != "clusterroles") return false;
  Attributes attrs;
  attrs.verb = "escalate";
  attrs.api_group = request.api_group;
  attrs.api_version = request.api_version;
  attrs.resource = request.resource;
  attrs.name = request.name;
  attrs.ns = request.ns;
  return Authorized(ctx, std::move(attrs));
}

const std::vector<PolicyRule>& FullAuthority() {
  static const std::vector<PolicyRule> rules = [] {
    PolicyRule all;
    all.verbs = {"*"};
    all.api_groups = {"*"};
    all.resources = {"*"};
    PolicyRule urls;
    urls.verbs = {"*"};
    urls.non_resource_urls = {"*"};
    return std::vector<PolicyRule>{all, urls};
  }();
  return rules;
}

bool HasAggregationRule(const api::rbac::v1::ClusterRole& role) {
  return role.aggregation_rule.has_value() &&
         !role.aggregation_rule->cluster_role_selectors.empty();
}

}  // namespace

std::vector<PolicyRule> BreakdownRule(const PolicyRule& rule) {
  std::vector<PolicyRule> atoms;
  for (const std::string& group : rule.api_groups) {
    for (const std::string& resource : rule.resources) {
      for (const std::string& verb : rule.verbs) {
        PolicyRule atom;
        atom.api_groups = {group};
        atom.resources = {resource};
        atom.verbs = {verb};
        if (rule.resource_names.empty()) {
          atoms.push_back(std::move(atom));
          continue;
        }
        for (const std::string& name : rule.resource_names) {
          PolicyRule named = atom;
          named.resource_names = {name};
          atoms.push_back(std::move(named));
        }
      }
    }
  }
  for (const std::string& url : rule.non_resource_urls) {
    for (const std::string& verb : rule.verbs) {
      PolicyRule atom;
      atom.non_resource_urls = {url};
      atom.verbs = {verb};
      atoms.push_back(std::move(atom));
    }
  }
  return atoms;
}

bool RuleCovers(const PolicyRule& owner, const PolicyRule& atom) {
  bool verbs = Has(owner.verbs, kAll) || HasAll(owner.verbs, atom.verbs);
  bool groups = Has(owner.api_groups, kAll) || HasAll(owner.api_groups, atom.api_groups);
  bool resources = ResourceCoversAll(owner.resources, atom.resources);
  bool urls = NonResourceUrlsCoverAll(owner.non_resource_urls, atom.non_resource_urls);
  bool names = owner.resource_names.empty() ||
               (!atom.resource_names.empty() && HasAll(owner.resource_names, atom.resource_names));
  return verbs && groups && resources && names && urls;
}

Coverage Covers(const std::vector<PolicyRule>& owner_rules,
                const std::vector<PolicyRule>& requested) {
  Coverage out;
  for (const PolicyRule& rule : requested) {
    for (PolicyRule& atom : BreakdownRule(rule)) {
      bool covered = false;
      for (const PolicyRule& owner : owner_rules) {
        if (RuleCovers(owner, atom)) {
          covered = true;
          break;
        }
      }
      if (!covered) out.missing.push_back(std::move(atom));
    }
  }
  out.covered = out.missing.empty();
  return out;
}

std::vector<PolicyRule> CompactRules(const std::vector<PolicyRule>& rules) {
  std::vector<PolicyRule> compacted;
  // (group, resource, has name, name) -> position in `simple`.
  std::map<std::tuple<std::string, std::string, bool, std::string>, size_t> index;
  std::vector<PolicyRule> simple;
  for (const PolicyRule& rule : rules) {
    bool is_simple = rule.resource_names.size() <= 1 && rule.non_resource_urls.empty() &&
                     rule.api_groups.size() == 1 && rule.resources.size() == 1;
    if (!is_simple) {
      compacted.push_back(rule);
      continue;
    }
    std::tuple<std::string, std::string, bool, std::string> key{
        rule.api_groups[0], rule.resources[0], !rule.resource_names.empty(),
        rule.resource_names.empty() ? "" : rule.resource_names[0]};
    auto [it, inserted] = index.emplace(key, simple.size());
    if (inserted) {
      simple.push_back(rule);
    } else {
      auto& verbs = simple[it->second].verbs;
      verbs.insert(verbs.end(), rule.verbs.begin(), rule.verbs.end());
    }
  }
  compacted.insert(compacted.end(), simple.begin(), simple.end());
  return compacted;
}

std::string CompactString(const PolicyRule& rule) {
  std::vector<std::string> parts;
  if (!rule.api_groups.empty()) parts.push_back("APIGroups:" + GoQuoteList(rule.api_groups));
  if (!rule.resources.empty()) parts.push_back("Resources:" + GoQuoteList(rule.resources));
  if (!rule.non_resource_urls.empty()) {
    parts.push_back("NonResourceURLs:" + GoQuoteList(rule.non_resource_urls));
  }
  if (!rule.resource_names.empty()) {
    parts.push_back("ResourceNames:" + GoQuoteList(rule.resource_names));
  }
  if (!rule.verbs.empty()) parts.push_back("Verbs:" + GoQuoteList(rule.verbs));
  std::string out = "{";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += ", ";
    out += parts[i];
  }
  out += "}";
  return out;
}

bool EscalationAllowed(const http::Identity& user) { return HasGroup(user, kSystemMasters); }

std::optional<std::string> ConfirmNoEscalation(const EscalationContext& ctx, std::string_view ns,
                                               const std::vector<PolicyRule>& rules) {
  PolicyRules owner = ctx.resolver.PolicyRulesFor(ctx.user, ns);
  Coverage coverage = Covers(owner.rules, rules);
  if (coverage.covered) return std::nullopt;
  std::set<std::string> descriptions;
  for (const PolicyRule& r : CompactRules(coverage.missing)) descriptions.insert(CompactString(r));
  std::string msg = "user " + GoQuote(ctx.user.user) + " (groups=" + GroupsText(ctx.user) +
                    ") is attempting to grant RBAC permissions not currently held:\n";
  bool first = true;
  for (const std::string& d : descriptions) {
    if (!first) msg += "\n";
    msg += d;
    first = false;
  }
  if (!owner.error.empty()) msg += "; resolution errors: [" + owner.error + "]";
  return msg;
}

std::optional<api::meta::StatusObject> CheckRoleWrite(const EscalationContext& ctx,
                                                      const Attributes& request,
                                                      std::string_view object_name,
                                                      const std::vector<PolicyRule>& rules,
                                                      bool only_gc_fields_changed) {
  if (EscalationAllowed(ctx.user) || RoleEscalationAuthorized(ctx, request)) return std::nullopt;
  if (only_gc_fields_changed) return std::nullopt;
  if (auto err = ConfirmNoEscalation(ctx, request.ns, rules)) {
    return ForbiddenStatus(api::rbac::v1::kGroupName, request.resource, object_name, *err);
  }
  return std::nullopt;
}

std::optional<api::meta::StatusObject> CheckClusterRoleWrite(
    const EscalationContext& ctx, const Attributes& request, const api::rbac::v1::ClusterRole& role,
    const api::rbac::v1::ClusterRole* old_role, bool only_gc_fields_changed) {
  if (EscalationAllowed(ctx.user) || RoleEscalationAuthorized(ctx, request)) return std::nullopt;
  if (only_gc_fields_changed) return std::nullopt;
  const std::string& name = role.metadata.name;
  if (auto err = ConfirmNoEscalation(ctx, "", role.rules)) {
    return ForbiddenStatus(api::rbac::v1::kGroupName, "clusterroles", name, *err);
  }
  bool aggregation = HasAggregationRule(role) || (old_role && HasAggregationRule(*old_role));
  if (aggregation && ConfirmNoEscalation(ctx, "", FullAuthority())) {
    return ForbiddenStatus(api::rbac::v1::kGroupName, "clusterroles", name,
                           "must have cluster-admin privileges to use the aggregationRule");
  }
  return std::nullopt;
}

std::optional<api::meta::StatusObject> CheckBindingWrite(const EscalationContext& ctx,
                                                         std::string_view binding_namespace,
                                                         std::string_view binding_name,
                                                         const api::rbac::v1::RoleRef& role_ref,
                                                         bool only_gc_fields_changed) {
  if (EscalationAllowed(ctx.user)) return std::nullopt;
  if (only_gc_fields_changed) return std::nullopt;
  std::string_view binding_resource =
      binding_namespace.empty() ? "clusterrolebindings" : "rolebindings";
  std::string_view role_resource;
  if (role_ref.kind == "ClusterRole") {
    role_resource = "clusterroles";
  } else if (role_ref.kind == "Role") {
    role_resource = "roles";
  }
  if (!role_resource.empty()) {
    // rbacregistry.BindingAuthorized.
    Attributes bind;
    bind.verb = "bind";
    bind.ns = std::string(binding_namespace);
    bind.api_group = role_ref.api_group;
    bind.resource = std::string(role_resource);
    bind.name = role_ref.name;
    if (Authorized(ctx, std::move(bind))) return std::nullopt;
  }
  std::optional<std::vector<PolicyRule>> rules =
      ctx.resolver.RoleReferenceRules(role_ref, binding_namespace);
  if (!rules) {
    if (role_resource.empty()) {
      api::meta::StatusObject st;
      st.status = "Failure";
      st.reason = "InternalError";
      st.code = 500;
      st.message = "unsupported role reference kind: " + GoQuote(role_ref.kind);
      return st;
    }
    return NotFoundStatus(role_resource, role_ref.name);
  }
  if (auto err = ConfirmNoEscalation(ctx, binding_namespace, *rules)) {
    return ForbiddenStatus(api::rbac::v1::kGroupName, binding_resource, binding_name, *err);
  }
  return std::nullopt;
}

}  // namespace svcplane::apiserver::authorization
