#include "apiserver/authorization/bootstrap_policy.h"

#include <algorithm>
#include <initializer_list>
#include <string>

namespace svcplane::apiserver::authorization {

using api::rbac::v1::ClusterRole;
using api::rbac::v1::ClusterRoleBinding;
using api::rbac::v1::PolicyRule;
using api::rbac::v1::Subject;

namespace {

using Strings = std::initializer_list<const char*>;

std::vector<std::string> Sorted(Strings values) {
  std::vector<std::string> out(values.begin(), values.end());
  std::sort(out.begin(), out.end());
  return out;
}

// rbacv1helpers.NewRule(verbs...).Groups(...).Resources(...).Names(...).RuleOrDie().
PolicyRule R(Strings verbs, Strings groups, Strings resources, Strings names = {}) {
  PolicyRule r;
  r.verbs = Sorted(verbs);
  r.api_groups = Sorted(groups);
  r.resources = Sorted(resources);
  r.resource_names = Sorted(names);
  return r;
}

// NewRule(verbs...).URLs(...).
PolicyRule U(Strings verbs, Strings urls) {
  PolicyRule r;
  r.verbs = Sorted(verbs);
  r.non_resource_urls = Sorted(urls);
  return r;
}

// eventsRule(): create/update/patch events in "" and events.k8s.io.
PolicyRule Events() { return R({"create", "update", "patch"}, {"", "events.k8s.io"}, {"events"}); }

const char* const kAggregateToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin";
const char* const kAggregateToEdit = "rbac.authorization.k8s.io/aggregate-to-edit";
const char* const kAggregateToView = "rbac.authorization.k8s.io/aggregate-to-view";

api::meta::ObjectMeta Meta(std::string name) {
  api::meta::ObjectMeta m;
  m.name = std::move(name);
  m.labels[std::string(kBootstrappingLabel)] = "rbac-defaults";
  m.annotations[std::string(kAutoUpdateAnnotation)] = "true";
  return m;
}

ClusterRole Role(std::string name, std::vector<PolicyRule> rules,
                 const char* aggregate_label = nullptr) {
  ClusterRole r;
  r.kind = "ClusterRole";
  r.api_version = "rbac.authorization.k8s.io/v1";
  r.metadata = Meta(std::move(name));
  r.rules = std::move(rules);
  if (aggregate_label != nullptr) r.metadata.labels[aggregate_label] = "true";
  return r;
}

// admin / edit / view: no rules until the aggregation controller fills them.
ClusterRole Aggregated(std::string name, const char* selects, const char* aggregate_label) {
  ClusterRole r = Role(std::move(name), {}, aggregate_label);
  api::rbac::v1::AggregationRule rule;
  api::selectors::LabelSelectorSpec selector;
  selector.match_labels[selects] = "true";
  rule.cluster_role_selectors.push_back(std::move(selector));
  r.aggregation_rule = std::move(rule);
  return r;
}

std::vector<ClusterRole> ApiServerRoles() {
  std::vector<ClusterRole> roles;
  roles.push_back(Aggregated("admin", kAggregateToAdmin, nullptr));
  roles.push_back(Role("cluster-admin", {R({"*"}, {"*"}, {"*"}), U({"*"}, {"*"})}));
  roles.push_back(Aggregated("edit", kAggregateToEdit, kAggregateToAdmin));
  roles.push_back(
      Role("system:aggregate-to-admin",
           {R({"create"}, {"authorization.k8s.io"}, {"localsubjectaccessreviews"}),
            R({"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
              {"rbac.authorization.k8s.io"}, {"rolebindings", "roles"})},
           kAggregateToAdmin));
  const Strings kWrite = {"create", "delete", "deletecollection", "patch", "update"};
  roles.push_back(Role(
      "system:aggregate-to-edit",
      {R({"get", "list", "watch"}, {""},
         {"pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets",
          "services/proxy"}),
       R({"impersonate"}, {""}, {"serviceaccounts"}),
       R(kWrite, {""}, {"pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"}),
       R({"create"}, {""}, {"pods/eviction"}),
       R(kWrite, {""},
         {"configmaps", "events", "persistentvolumeclaims", "replicationcontrollers",
          "replicationcontrollers/scale", "secrets", "serviceaccounts", "services",
          "services/proxy"}),
       R({"create"}, {""}, {"serviceaccounts/token"}),
       R(kWrite, {"apps"},
         {"daemonsets", "deployments", "deployments/rollback", "deployments/scale", "replicasets",
          "replicasets/scale", "statefulsets", "statefulsets/scale"}),
       R(kWrite, {"autoscaling"}, {"horizontalpodautoscalers"}),
       R(kWrite, {"batch"}, {"cronjobs", "jobs"}),
       R(kWrite, {"extensions"},
         {"daemonsets", "deployments", "deployments/rollback", "deployments/scale", "ingresses",
          "networkpolicies", "replicasets", "replicasets/scale", "replicationcontrollers/scale"}),
       R(kWrite, {"policy"}, {"poddisruptionbudgets"}),
       R(kWrite, {"networking.k8s.io"}, {"ingresses", "networkpolicies"}),
       R({"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
         {"coordination.k8s.io"}, {"leases"})},
      kAggregateToEdit));
  const Strings kRead = {"get", "list", "watch"};
  roles.push_back(Role(
      "system:aggregate-to-view",
      {R(kRead, {""},
         {"configmaps", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status",
          "pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
          "services", "services/status"}),
       R(kRead, {""},
         {"bindings", "events", "limitranges", "namespaces/status", "pods/log", "pods/status",
          "replicationcontrollers/status", "resourcequotas", "resourcequotas/status"}),
       R(kRead, {""}, {"namespaces"}), R(kRead, {"discovery.k8s.io"}, {"endpointslices"}),
       R(kRead, {"apps"},
         {"controllerrevisions", "daemonsets", "daemonsets/status", "deployments",
          "deployments/scale", "deployments/status", "replicasets", "replicasets/scale",
          "replicasets/status", "statefulsets", "statefulsets/scale", "statefulsets/status"}),
       R(kRead, {"autoscaling"}, {"horizontalpodautoscalers", "horizontalpodautoscalers/status"}),
       R(kRead, {"batch"}, {"cronjobs", "cronjobs/status", "jobs", "jobs/status"}),
       R(kRead, {"extensions"},
         {"daemonsets", "daemonsets/status", "deployments", "deployments/scale",
          "deployments/status", "ingresses", "ingresses/status", "networkpolicies", "replicasets",
          "replicasets/scale", "replicasets/status", "replicationcontrollers/scale"}),
       R(kRead, {"policy"}, {"poddisruptionbudgets", "poddisruptionbudgets/status"}),
       R(kRead, {"networking.k8s.io"}, {"ingresses", "ingresses/status", "networkpolicies"})},
      kAggregateToView));
  roles.push_back(Role("system:auth-delegator",
                       {R({"create"}, {"authentication.k8s.io"}, {"tokenreviews"}),
                        R({"create"}, {"authorization.k8s.io"}, {"subjectaccessreviews"})}));
  roles.push_back(Role("system:basic-user",
                       {R({"create"}, {"authorization.k8s.io"},
                          {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}),
                        R({"create"}, {"authentication.k8s.io"}, {"selfsubjectreviews"})}));
  roles.push_back(
      Role("system:discovery",
           {U({"get"}, {"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi",
                        "/openapi/*", "/readyz", "/version", "/version/"})}));
  roles.push_back(Role("system:kube-aggregator", {R(kRead, {""}, {"endpoints", "services"})}));
  roles.push_back(
      Role("system:kube-controller-manager",
           {Events(), R({"create"}, {"coordination.k8s.io"}, {"leases"}),
            R({"get", "update"}, {"coordination.k8s.io"}, {"leases"}, {"kube-controller-manager"}),
            R({"create"}, {""}, {"secrets", "serviceaccounts"}), R({"delete"}, {""}, {"secrets"}),
            R({"get"}, {""}, {"configmaps", "namespaces", "secrets", "serviceaccounts"}),
            R({"update"}, {""}, {"secrets", "serviceaccounts"}),
            R({"create"}, {"authentication.k8s.io"}, {"tokenreviews"}),
            R({"create"}, {"authorization.k8s.io"}, {"subjectaccessreviews"}),
            R({"list", "watch"}, {"*"}, {"*"}), R({"create"}, {""}, {"serviceaccounts/token"})}));
  // Not upstream: svcplane's controller manager elects its leader on its own Lease
  // (--leader-elect-resource-name, default svcplane-controller-manager), which
  // system:kube-controller-manager's rules (lease "kube-controller-manager" only) do not cover.
  roles.push_back(Role("system:svcplane:leader-locking-controller-manager",
                       {R({"get", "update"}, {"coordination.k8s.io"}, {"leases"},
                          {"svcplane-controller-manager"})}));
  roles.push_back(Role("system:kube-dns", {R({"list", "watch"}, {""}, {"endpoints", "services"})}));
  roles.push_back(
      Role("system:kube-scheduler",
           {Events(), R({"create"}, {"coordination.k8s.io"}, {"leases"}),
            R({"get", "update"}, {"coordination.k8s.io"}, {"leases"}, {"kube-scheduler"}),
            R(kRead, {""}, {"nodes"}), R({"delete", "get", "list", "watch"}, {""}, {"pods"}),
            R({"create"}, {""}, {"bindings", "pods/binding"}),
            R({"patch", "update"}, {""}, {"pods/status"}),
            R(kRead, {""}, {"replicationcontrollers", "services"}),
            R(kRead, {"apps", "extensions"}, {"replicasets"}), R(kRead, {"apps"}, {"statefulsets"}),
            R(kRead, {"policy"}, {"poddisruptionbudgets"}),
            R(kRead, {""}, {"persistentvolumeclaims", "persistentvolumes"}),
            R({"create"}, {"authentication.k8s.io"}, {"tokenreviews"}),
            R({"create"}, {"authorization.k8s.io"}, {"subjectaccessreviews"}),
            R(kRead, {"storage.k8s.io"}, {"csinodes"}), R(kRead, {""}, {"namespaces"}),
            R(kRead, {"storage.k8s.io"}, {"csidrivers"}),
            R(kRead, {"storage.k8s.io"}, {"csistoragecapacities"})}));
  roles.push_back(Role("system:monitoring",
                       {U({"get"}, {"/healthz", "/healthz/*", "/livez", "/livez/*", "/metrics",
                                    "/metrics/slis", "/readyz", "/readyz/*"})}));
  roles.push_back(Role("system:node", NodeRules()));
  roles.push_back(
      Role("system:node-proxier",
           {R({"list", "watch"}, {""}, {"endpoints", "services"}), R(kRead, {""}, {"nodes"}),
            Events(), R({"list", "watch"}, {"discovery.k8s.io"}, {"endpointslices"})}));
  roles.push_back(Role("system:public-info-viewer",
                       {U({"get"}, {"/healthz", "/livez", "/readyz", "/version", "/version/"})}));
  roles.push_back(Role("system:service-account-issuer-discovery",
                       {U({"get"}, {"/.well-known/openid-configuration", "/openid/v1/jwks"})}));
  roles.push_back(
      Role("system:volume-scheduler",
           {R({"get", "list", "patch", "update", "watch"}, {""}, {"persistentvolumes"}),
            R(kRead, {"storage.k8s.io"}, {"storageclasses"}),
            R({"get", "list", "patch", "update", "watch"}, {""}, {"persistentvolumeclaims"})}));
  roles.push_back(Aggregated("view", kAggregateToView, kAggregateToEdit));
  return roles;
}

// upstream controller_policy.go, the controllers svcplane runs (or whose identities it uses).
std::vector<ClusterRole> ControllerRoles() {
  const Strings kRead = {"get", "list", "watch"};
  std::vector<ClusterRole> roles;
  roles.push_back(Role("system:controller:clusterrole-aggregation-controller",
                       {R({"escalate", "get", "list", "watch", "update", "patch"},
                          {"rbac.authorization.k8s.io"}, {"clusterroles"})}));
  roles.push_back(
      Role("system:controller:deployment-controller",
           {R({"get", "list", "watch", "update"}, {"extensions", "apps"}, {"deployments"}),
            R({"update"}, {"extensions", "apps"}, {"deployments/status"}),
            R({"update"}, {"extensions", "apps"}, {"deployments/finalizers"}),
            R({"get", "list", "watch", "create", "update", "patch", "delete"},
              {"apps", "extensions"}, {"replicasets"}),
            // Upstream keeps "update" on pods (kubernetes#36897).
            R({"get", "list", "watch", "update"}, {""}, {"pods"}), Events()}));
  roles.push_back(
      Role("system:controller:endpoint-controller",
           {R(kRead, {""}, {"services", "pods"}),
            R({"get", "list", "watch", "create", "update", "delete"}, {""}, {"endpoints"}),
            R({"create"}, {""}, {"endpoints/restricted"}), Events()}));
  roles.push_back(Role(
      "system:controller:endpointslice-controller",
      {R(kRead, {""}, {"services", "pods", "nodes"}), R({"update"}, {""}, {"services/finalizers"}),
       R({"get", "list", "watch", "create", "update", "delete"}, {"discovery.k8s.io"},
         {"endpointslices"}),
       Events()}));
  roles.push_back(
      Role("system:controller:endpointslicemirroring-controller",
           {R(kRead, {""}, {"services", "endpoints"}), R({"update"}, {""}, {"services/finalizers"}),
            R({"update"}, {""}, {"endpoints/finalizers"}),
            R({"get", "list", "watch", "create", "update", "delete"}, {"discovery.k8s.io"},
              {"endpointslices"}),
            Events()}));
  roles.push_back(Role("system:controller:namespace-controller",
                       {R({"get", "list", "watch", "delete"}, {""}, {"namespaces"}),
                        R({"update"}, {""}, {"namespaces/finalize", "namespaces/status"}),
                        R({"get", "list", "watch", "delete", "deletecollection"}, {"*"}, {"*"})}));
  roles.push_back(Role("system:controller:node-controller",
                       {R({"get", "list", "watch", "update", "delete", "patch"}, {""}, {"nodes"}),
                        R({"patch", "update"}, {""}, {"nodes/status"}),
                        R({"patch", "update"}, {""}, {"pods/status"}),
                        R({"list", "watch", "get", "delete"}, {""}, {"pods"}), Events()}));
  roles.push_back(Role("system:controller:pod-garbage-collector",
                       {R({"list", "watch", "delete"}, {""}, {"pods"}), R(kRead, {""}, {"nodes"}),
                        R({"patch"}, {""}, {"pods/status"})}));
  roles.push_back(
      Role("system:controller:replicaset-controller",
           {R({"get", "list", "watch", "update"}, {"apps", "extensions"}, {"replicasets"}),
            R({"update"}, {"apps", "extensions"}, {"replicasets/status"}),
            R({"update"}, {"apps", "extensions"}, {"replicasets/finalizers"}),
            R({"list", "watch", "patch", "create", "delete"}, {""}, {"pods"}), Events()}));
  return roles;
}

Subject User(const char* name) {
  return Subject{"User", "rbac.authorization.k8s.io", name, "", {}};
}
Subject Group(const char* name) {
  return Subject{"Group", "rbac.authorization.k8s.io", name, "", {}};
}
Subject ServiceAccount(std::string ns, std::string name) {
  return Subject{"ServiceAccount", "", std::move(name), std::move(ns), {}};
}

ClusterRoleBinding Binding(std::string role, std::vector<Subject> subjects) {
  ClusterRoleBinding b;
  b.kind = "ClusterRoleBinding";
  b.api_version = "rbac.authorization.k8s.io/v1";
  b.metadata = Meta(role);
  b.role_ref = api::rbac::v1::RoleRef{"rbac.authorization.k8s.io", "ClusterRole", role, {}};
  b.subjects = std::move(subjects);
  return b;
}

}  // namespace

const std::vector<PolicyRule>& NodeRules() {
  static const std::vector<PolicyRule> rules = {
      R({"create"}, {"authentication.k8s.io"}, {"tokenreviews"}),
      R({"create"}, {"authorization.k8s.io"},
        {"localsubjectaccessreviews", "subjectaccessreviews"}),
      R({"get", "list", "watch"}, {""}, {"services"}),
      R({"create", "get", "list", "watch"}, {""}, {"nodes"}),
      R({"patch", "update"}, {""}, {"nodes/status"}),
      R({"patch", "update"}, {""}, {"nodes"}),
      R({"create", "patch", "update"}, {""}, {"events"}),
      R({"get", "list", "watch"}, {""}, {"pods"}),
      R({"create", "delete"}, {""}, {"pods"}),
      R({"patch", "update"}, {""}, {"pods/status"}),
      R({"create"}, {""}, {"pods/eviction"}),
      R({"get", "list", "watch"}, {""}, {"configmaps", "secrets"}),
      R({"get"}, {""}, {"persistentvolumeclaims", "persistentvolumes"}),
      R({"get"}, {""}, {"endpoints"}),
      R({"create", "get", "list", "watch"}, {"certificates.k8s.io"},
        {"certificatesigningrequests"}),
      R({"create", "delete", "get", "patch", "update"}, {"coordination.k8s.io"}, {"leases"}),
      R({"get"}, {"storage.k8s.io"}, {"volumeattachments"}),
      R({"create"}, {""}, {"serviceaccounts/token"}),
      R({"get", "patch", "update"}, {""}, {"persistentvolumeclaims/status"}),
      R({"get", "list", "watch"}, {"storage.k8s.io"}, {"csidrivers"}),
      R({"create", "delete", "get", "patch", "update"}, {"storage.k8s.io"}, {"csinodes"}),
      R({"get", "list", "watch"}, {"node.k8s.io"}, {"runtimeclasses"}),
  };
  return rules;
}

const std::vector<ClusterRole>& BootstrapClusterRoles() {
  static const std::vector<ClusterRole> roles = [] {
    std::vector<ClusterRole> all = ApiServerRoles();
    for (ClusterRole& r : ControllerRoles()) all.push_back(std::move(r));
    std::sort(all.begin(), all.end(),
              [](const auto& a, const auto& b) { return a.metadata.name < b.metadata.name; });
    return all;
  }();
  return roles;
}

const std::vector<ClusterRoleBinding>& BootstrapClusterRoleBindings() {
  static const std::vector<ClusterRoleBinding> bindings = [] {
    std::vector<ClusterRoleBinding> all = {
        Binding("cluster-admin", {Group("system:masters")}),
        Binding("system:basic-user", {Group("system:authenticated")}),
        Binding("system:discovery", {Group("system:authenticated")}),
        Binding("system:kube-controller-manager", {User("system:kube-controller-manager")}),
        Binding("system:kube-dns", {ServiceAccount("kube-system", "kube-dns")}),
        Binding("system:kube-scheduler", {User("system:kube-scheduler")}),
        Binding("system:monitoring", {Group("system:monitoring")}),
        Binding("system:node", {}),
        Binding("system:node-proxier", {User("system:kube-proxy")}),
        Binding("system:public-info-viewer",
                {Group("system:authenticated"), Group("system:unauthenticated")}),
        Binding("system:service-account-issuer-discovery", {Group("system:serviceaccounts")}),
        Binding("system:volume-scheduler", {User("system:kube-scheduler")}),
        Binding("system:svcplane:leader-locking-controller-manager",
                {User("system:kube-controller-manager")}),
    };
    for (const ClusterRole& r : ControllerRoles()) {
      const std::string& name = r.metadata.name;
      std::string sa = name.substr(std::string_view("system:controller:").size());
      all.push_back(Binding(name, {ServiceAccount("kube-system", sa)}));
    }
    std::sort(all.begin(), all.end(),
              [](const auto& a, const auto& b) { return a.metadata.name < b.metadata.name; });
    return all;
  }();
  return bindings;
}

}  // namespace svcplane::apiserver::authorization
