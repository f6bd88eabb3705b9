#pragma once

#include <string>
#include <vector>

#include "api/rbac/v1/rbac.h"
#include "apiserver/authorization/authorizer.h"

// Builders shared by this folder's tests.
namespace svcplane::apiserver::authorization::testing {

using namespace api::rbac::v1;

inline PolicyRule Rule(std::vector<std::string> verbs, std::vector<std::string> groups,
                       std::vector<std::string> resources, std::vector<std::string> names = {}) {
  PolicyRule r;
  r.verbs = std::move(verbs);
  r.api_groups = std::move(groups);
  r.resources = std::move(resources);
  r.resource_names = std::move(names);
  return r;
}

inline PolicyRule UrlRule(std::vector<std::string> verbs, std::vector<std::string> urls) {
  PolicyRule r;
  r.verbs = std::move(verbs);
  r.non_resource_urls = std::move(urls);
  return r;
}

inline Subject UserSubject(std::string name) {
  return Subject{"User", std::string(kGroupName), std::move(name), "", {}};
}

inline ClusterRole MakeClusterRole(std::string name, std::vector<PolicyRule> rules) {
  ClusterRole r;
  r.metadata.name = std::move(name);
  r.rules = std::move(rules);
  return r;
}

inline Role MakeRole(std::string ns, std::string name, std::vector<PolicyRule> rules) {
  Role r;
  r.metadata.namespace_ = std::move(ns);
  r.metadata.name = std::move(name);
  r.rules = std::move(rules);
  return r;
}

inline RoleBinding MakeRoleBinding(std::string ns, std::string name, std::string kind,
                                   std::string role, std::vector<Subject> subjects) {
  RoleBinding b;
  b.metadata.namespace_ = std::move(ns);
  b.metadata.name = std::move(name);
  b.role_ref = RoleRef{std::string(kGroupName), std::move(kind), std::move(role), {}};
  b.subjects = std::move(subjects);
  return b;
}

inline ClusterRoleBinding MakeClusterRoleBinding(std::string name, std::string role,
                                                 std::vector<Subject> subjects) {
  ClusterRoleBinding b;
  b.metadata.name = std::move(name);
  b.role_ref = RoleRef{std::string(kGroupName), "ClusterRole", std::move(role), {}};
  b.subjects = std::move(subjects);
  return b;
}

inline Attributes ResourceAttributes(const http::Identity& u, std::string verb, std::string ns,
                                     std::string group, std::string resource, std::string sub = "",
                                     std::string name = "") {
  Attributes a;
  a.user = &u;
  a.resource_request = true;
  a.verb = std::move(verb);
  a.ns = std::move(ns);
  a.api_group = std::move(group);
  a.resource = std::move(resource);
  a.subresource = std::move(sub);
  a.name = std::move(name);
  return a;
}

}  // namespace svcplane::apiserver::authorization::testing
