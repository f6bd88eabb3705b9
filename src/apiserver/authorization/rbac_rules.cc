#include "apiserver/authorization/rbac_rules.h"

#include <string>

namespace svcplane::apiserver::authorization {
namespace {

constexpr std::string_view kAll = "*";

bool Contains(const std::vector<std::string>& set, std::string_view value) {
  for (const std::string& s : set) {
    if (s == value) return true;
  }
  return false;
}

bool ContainsOrAll(const std::vector<std::string>& set, std::string_view value) {
  for (const std::string& s : set) {
    if (s == kAll || s == value) return true;
  }
  return false;
}

}  // namespace

bool VerbMatches(const PolicyRule& rule, std::string_view verb) {
  return ContainsOrAll(rule.verbs, verb);
}

bool ApiGroupMatches(const PolicyRule& rule, std::string_view group) {
  return ContainsOrAll(rule.api_groups, group);
}

bool ResourceMatches(const PolicyRule& rule, std::string_view resource,
                     std::string_view subresource) {
  for (const std::string& r : rule.resources) {
    if (r == kAll) return true;
    std::string_view rv = r;
    if (subresource.empty()) {
      if (rv == resource) return true;
      continue;
    }
    // "res/sub" or "*/sub", compared in place.
    if (rv.size() != resource.size() + 1 + subresource.size() &&
        rv.size() != 2 + subresource.size()) {
      continue;
    }
    size_t slash = rv.find('/');
    if (slash == std::string_view::npos || rv.substr(slash + 1) != subresource) continue;
    std::string_view head = rv.substr(0, slash);
    if (head == resource || head == kAll) return true;
  }
  return false;
}

bool ResourceNameMatches(const PolicyRule& rule, std::string_view name) {
  if (rule.resource_names.empty()) return true;
  return Contains(rule.resource_names, name);
}

bool NonResourceUrlMatches(const PolicyRule& rule, std::string_view path) {
  for (const std::string& u : rule.non_resource_urls) {
    if (u == kAll || u == path) return true;
    std::string_view uv = u;
    if (!uv.empty() && uv.back() == '*' &&
        path.substr(0, uv.size() - 1) == uv.substr(0, uv.size() - 1)) {
      return true;
    }
  }
  return false;
}

bool RuleAllows(const Attributes& request, const PolicyRule& rule) {
  if (request.resource_request) {
    return VerbMatches(rule, request.verb) && ApiGroupMatches(rule, request.api_group) &&
           ResourceMatches(rule, request.resource, request.subresource) &&
           ResourceNameMatches(rule, request.name);
  }
  return VerbMatches(rule, request.verb) && NonResourceUrlMatches(rule, request.path);
}

bool RulesAllow(const Attributes& request, const std::vector<PolicyRule>& rules) {
  for (const PolicyRule& rule : rules) {
    if (RuleAllows(request, rule)) return true;
  }
  return false;
}

std::string ServiceAccountUsername(std::string_view ns, std::string_view name) {
  std::string out(kServiceAccountUsernamePrefix);
  out.append(ns).append(":").append(name);
  return out;
}

bool SubjectMatches(const http::Identity& user, const Subject& subject,
                    std::string_view binding_namespace) {
  if (subject.kind == api::rbac::v1::kUserKind) return user.user == subject.name;
  if (subject.kind == api::rbac::v1::kGroupKind) return HasGroup(user, subject.name);
  if (subject.kind == api::rbac::v1::kServiceAccountKind) {
    std::string_view ns = subject.ns.empty() ? binding_namespace : std::string_view(subject.ns);
    if (ns.empty()) return false;
    std::string_view u = user.user;
    std::string_view p = kServiceAccountUsernamePrefix;
    return u.size() == p.size() + ns.size() + 1 + subject.name.size() && u.starts_with(p) &&
           u.substr(p.size(), ns.size()) == ns && u[p.size() + ns.size()] == ':' &&
           u.substr(p.size() + ns.size() + 1) == subject.name;
  }
  return false;
}

bool AppliesTo(const http::Identity& user, const std::vector<Subject>& subjects,
               std::string_view binding_namespace) {
  for (const Subject& s : subjects) {
    if (SubjectMatches(user, s, binding_namespace)) return true;
  }
  return false;
}

}  // namespace svcplane::apiserver::authorization
