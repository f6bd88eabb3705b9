#include "apiserver/authorization/rbac_authorizer.h"

#include <algorithm>
#include <array>

#include "apiserver/authorization/internal/go_quote.h"
#include "apiserver/authorization/internal/rbac_snapshot.h"
#include "apiserver/authorization/rbac_rules.h"

namespace svcplane::apiserver::authorization {

using api::rbac::v1::PolicyRule;
using api::rbac::v1::RoleRef;
using api::rbac::v1::Subject;
using internal::BindingIndex;
using internal::GoQuote;
using internal::IndexedBinding;
using internal::NamespacePolicy;
using internal::RbacSnapshot;
using internal::RuleList;
using internal::RuleTable;
using internal::StringMap;
using NamespaceTable = StringMap<std::shared_ptr<const NamespacePolicy>>;

namespace internal {

std::shared_ptr<const BindingIndex> BuildBindingIndex(
    std::vector<std::shared_ptr<const IndexedBinding>> bindings) {
  auto index = std::make_shared<BindingIndex>();
  std::sort(bindings.begin(), bindings.end(),
            [](const auto& a, const auto& b) { return a->name < b->name; });
  index->bindings = std::move(bindings);
  auto add = [](StringMap<std::vector<uint32_t>>& map, std::string key, uint32_t i) {
    std::vector<uint32_t>& list = map[std::move(key)];
    if (list.empty() || list.back() != i) list.push_back(i);
  };
  for (uint32_t i = 0; i < index->bindings.size(); ++i) {
    const IndexedBinding& b = *index->bindings[i];
    for (const Subject& s : b.subjects) {
      if (s.kind == api::rbac::v1::kUserKind) {
        add(index->by_user, s.name, i);
      } else if (s.kind == api::rbac::v1::kGroupKind) {
        add(index->by_group, s.name, i);
      } else if (s.kind == api::rbac::v1::kServiceAccountKind) {
        std::string_view ns = s.ns.empty() ? std::string_view(b.ns) : std::string_view(s.ns);
        if (!ns.empty()) add(index->by_user, ServiceAccountUsername(ns, s.name), i);
      }
    }
  }
  return index;
}

}  // namespace internal

namespace {

std::string NotFound(std::string_view resource, std::string_view name) {
  std::string out(resource);
  out += ".rbac.authorization.k8s.io ";
  out += GoQuote(name);
  out += " not found";
  return out;
}

// Upstream DefaultRuleResolver.GetRoleReferenceRules over the snapshot. On failure sets *error
// (lister wording: `role.rbac.authorization.k8s.io "x" not found`).
const RuleList* ResolveRole(const RbacSnapshot& snap, const RoleRef& ref,
                            std::string_view binding_namespace, std::string* error) {
  if (ref.kind == "ClusterRole") {
    auto it = snap.cluster_roles->find(std::string_view(ref.name));
    if (it != snap.cluster_roles->end()) return it->second.get();
    *error = NotFound("clusterrole", ref.name);
    return nullptr;
  }
  if (ref.kind == "Role") {
    if (!binding_namespace.empty()) {
      auto ns = snap.namespaces->find(binding_namespace);
      if (ns != snap.namespaces->end() && ns->second->roles) {
        auto it = ns->second->roles->find(std::string_view(ref.name));
        if (it != ns->second->roles->end()) return it->second.get();
      }
    }
    *error = NotFound("role", ref.name);
    return nullptr;
  }
  *error = "unsupported role reference kind: " + GoQuote(ref.kind);
  return nullptr;
}

// Positions of the bindings in `index` that name the user, ascending and unique. Most users
// match a handful of bindings, so the common case stays on the stack.
class Candidates {
 public:
  Candidates(const BindingIndex& index, const http::Identity& user) {
    if (auto it = index.by_user.find(std::string_view(user.user)); it != index.by_user.end()) {
      Add(it->second);
    }
    for (const std::string& g : user.groups) {
      if (auto it = index.by_group.find(std::string_view(g)); it != index.by_group.end()) {
        Add(it->second);
      }
    }
    if (!heap_.empty()) {
      std::sort(heap_.begin(), heap_.end());
      heap_.erase(std::unique(heap_.begin(), heap_.end()), heap_.end());
    } else {
      std::sort(inline_.begin(), inline_.begin() + size_);
      size_ = static_cast<size_t>(std::unique(inline_.begin(), inline_.begin() + size_) -
                                  inline_.begin());
    }
  }
  const uint32_t* begin() const { return heap_.empty() ? inline_.data() : heap_.data(); }
  const uint32_t* end() const {
    return heap_.empty() ? inline_.data() + size_ : heap_.data() + heap_.size();
  }

 private:
  void Add(const std::vector<uint32_t>& list) {
    if (heap_.empty() && size_ + list.size() <= inline_.size()) {
      std::copy(list.begin(), list.end(), inline_.begin() + size_);
      size_ += list.size();
      return;
    }
    if (heap_.empty()) heap_.assign(inline_.begin(), inline_.begin() + size_);
    heap_.insert(heap_.end(), list.begin(), list.end());
  }
  std::array<uint32_t, 32> inline_{};
  size_t size_ = 0;
  std::vector<uint32_t> heap_;
};

// Upstream DefaultRuleResolver.VisitRulesFor: every ClusterRoleBinding, then (ns != "") every
// RoleBinding of ns, that names the user, in binding-name order. visit(binding, rule) returns
// false to stop; errors(text) reports a role that did not resolve.
template <typename Visit, typename Errors>
void VisitRules(const RbacSnapshot& snap, const http::Identity& user, std::string_view ns,
                Visit&& visit, Errors&& errors) {
  auto walk = [&](const BindingIndex& index, std::string_view binding_namespace) {
    Candidates candidates(index, user);
    std::string error;
    for (uint32_t i : candidates) {
      const IndexedBinding& b = *index.bindings[i];
      const RuleList* rules = ResolveRole(snap, b.role_ref, binding_namespace, &error);
      if (rules == nullptr) {
        errors(std::move(error));
        error.clear();
        continue;
      }
      for (const PolicyRule& rule : *rules) {
        if (!visit(b, rule)) return false;
      }
    }
    return true;
  };
  if (!walk(*snap.cluster_bindings, "")) return;
  if (ns.empty()) return;
  auto it = snap.namespaces->find(ns);
  if (it == snap.namespaces->end() || !it->second->bindings) return;
  walk(*it->second->bindings, ns);
}

// `Kind "name"` of the first subject naming the user (upstream describeSubject).
void AppendSubject(const IndexedBinding& b, const http::Identity& user, std::string* out) {
  for (const Subject& s : b.subjects) {
    if (!SubjectMatches(user, s, b.ns)) continue;
    out->append(s.kind).push_back(' ');
    if (s.kind == api::rbac::v1::kServiceAccountKind) {
      internal::AppendGoQuote(s.name + "/" + (s.ns.empty() ? b.ns : s.ns), out);
    } else {
      internal::AppendGoQuote(s.name, out);
    }
    return;
  }
}

// Built with one allocation: it is on every allowed request's path.
std::string AllowReason(const IndexedBinding& b, const http::Identity& user) {
  std::string out;
  out.reserve(96 + b.name.size() + b.ns.size() + b.role_ref.name.size() + 2 * user.user.size());
  out.append("RBAC: allowed by ");
  if (b.ns.empty()) {
    out.append("ClusterRoleBinding ");
    internal::AppendGoQuote(b.name, &out);
  } else {
    out.append("RoleBinding ");
    internal::AppendGoQuote(b.name + "/" + b.ns, &out);
  }
  out.append(" of ").append(b.role_ref.kind).push_back(' ');
  internal::AppendGoQuote(b.role_ref.name, &out);
  out.append(" to ");
  AppendSubject(b, user, &out);
  return out;
}

std::shared_ptr<const RbacSnapshot> EmptySnapshot() {
  auto s = std::make_shared<RbacSnapshot>();
  s->cluster_roles = std::make_shared<RuleTable>();
  s->cluster_bindings = internal::BuildBindingIndex({});
  s->namespaces = std::make_shared<NamespaceTable>();
  return s;
}

std::shared_ptr<const IndexedBinding> Index(std::string ns, const api::meta::ObjectMeta& meta,
                                            const RoleRef& ref,
                                            const std::vector<Subject>& subjects) {
  auto b = std::make_shared<IndexedBinding>();
  b->name = meta.name;
  b->ns = std::move(ns);
  b->role_ref = ref;
  b->subjects = subjects;
  return b;
}

// A copy of `index`'s bindings with the one named `name` replaced by `binding` (or removed when
// null), re-indexed.
std::shared_ptr<const BindingIndex> WithBinding(const BindingIndex* index, std::string_view name,
                                                std::shared_ptr<const IndexedBinding> binding) {
  std::vector<std::shared_ptr<const IndexedBinding>> list;
  if (index != nullptr) {
    list.reserve(index->bindings.size() + 1);
    for (const auto& b : index->bindings) {
      if (b->name != name) list.push_back(b);
    }
  }
  if (binding) list.push_back(std::move(binding));
  return internal::BuildBindingIndex(std::move(list));
}

std::shared_ptr<const RuleTable> WithRules(const RuleTable* table, std::string_view name,
                                           const std::vector<PolicyRule>* rules) {
  auto next = table ? std::make_shared<RuleTable>(*table) : std::make_shared<RuleTable>();
  if (rules != nullptr) {
    (*next)[std::string(name)] = std::make_shared<const RuleList>(*rules);
  } else if (auto it = next->find(name); it != next->end()) {
    next->erase(it);
  }
  return next;
}

// The snapshot with namespace `ns`'s policy changed by `change(NamespacePolicy&)`; a namespace
// left with nothing is dropped.
template <typename Change>
std::shared_ptr<const RbacSnapshot> WithNamespace(const RbacSnapshot& snap, std::string_view ns,
                                                  Change&& change) {
  NamespacePolicy policy;
  if (auto it = snap.namespaces->find(ns); it != snap.namespaces->end()) policy = *it->second;
  change(policy);
  auto namespaces = std::make_shared<NamespaceTable>(*snap.namespaces);
  bool empty = (!policy.roles || policy.roles->empty()) &&
               (!policy.bindings || policy.bindings->bindings.empty());
  if (empty) {
    if (auto it = namespaces->find(ns); it != namespaces->end()) namespaces->erase(it);
  } else {
    (*namespaces)[std::string(ns)] = std::make_shared<const NamespacePolicy>(std::move(policy));
  }
  auto next = std::make_shared<RbacSnapshot>(snap);
  next->namespaces = std::move(namespaces);
  return next;
}

}  // namespace

namespace {
std::atomic<uint64_t> next_version{1};
}  // namespace

RbacAuthorizer::RbacAuthorizer() { Publish(EmptySnapshot()); }
RbacAuthorizer::~RbacAuthorizer() = default;

std::shared_ptr<const RbacSnapshot> RbacAuthorizer::Load() const {
  return snapshot_.load(std::memory_order_acquire);
}

const RbacSnapshot& RbacAuthorizer::ReadSnapshot() const {
  struct Cached {
    uint64_t version = 0;
    std::shared_ptr<const RbacSnapshot> snapshot;
  };
  thread_local Cached cached;
  uint64_t version = version_.load(std::memory_order_acquire);
  if (cached.version != version || !cached.snapshot) {
    // The snapshot is stored before its version, so this one is at least as new.
    cached.snapshot = Load();
    cached.version = version;
  }
  return *cached.snapshot;
}

void RbacAuthorizer::Publish(std::shared_ptr<const RbacSnapshot> next) {
  snapshot_.store(std::move(next), std::memory_order_release);
  version_.store(next_version.fetch_add(1, std::memory_order_relaxed), std::memory_order_release);
}

template <typename Change>
void RbacAuthorizer::Update(Change&& change) {
  std::lock_guard<std::mutex> lock(mu_);
  Publish(change(*Load()));
}

Result RbacAuthorizer::Authorize(const Attributes& attributes) const {
  if (attributes.user == nullptr) return Result{};
  const http::Identity& user = *attributes.user;
  const RbacSnapshot& snap = ReadSnapshot();
  const IndexedBinding* allowed_by = nullptr;
  std::vector<std::string> errors;
  VisitRules(
      snap, user, attributes.ns,
      [&](const IndexedBinding& b, const PolicyRule& rule) {
        if (!RuleAllows(attributes, rule)) return true;
        allowed_by = &b;
        return false;
      },
      [&](std::string e) { errors.push_back(std::move(e)); });
  if (allowed_by != nullptr) return Result{Decision::kAllow, AllowReason(*allowed_by, user), ""};
  if (errors.empty()) return Result{};
  return Result{Decision::kNoOpinion, "RBAC: " + AggregateErrors(errors), ""};
}

PolicyRules RbacAuthorizer::PolicyRulesFor(const http::Identity& user, std::string_view ns) const {
  std::shared_ptr<const RbacSnapshot> snap = Load();
  PolicyRules out;
  std::vector<std::string> errors;
  VisitRules(
      *snap, user, ns,
      [&](const IndexedBinding&, const PolicyRule& rule) {
        out.rules.push_back(rule);
        return true;
      },
      [&](std::string e) { errors.push_back(std::move(e)); });
  out.error = AggregateErrors(errors);
  return out;
}

RulesResult RbacAuthorizer::RulesFor(const http::Identity& user, std::string_view ns) const {
  PolicyRules rules = PolicyRulesFor(user, ns);
  RulesResult out;
  for (const PolicyRule& r : rules.rules) {
    if (!r.resources.empty()) {
      PolicyRule info;
      info.verbs = r.verbs;
      info.api_groups = r.api_groups;
      info.resources = r.resources;
      info.resource_names = r.resource_names;
      out.resource_rules.push_back(std::move(info));
    }
    if (!r.non_resource_urls.empty()) {
      PolicyRule info;
      info.verbs = r.verbs;
      info.non_resource_urls = r.non_resource_urls;
      out.non_resource_rules.push_back(std::move(info));
    }
  }
  out.evaluation_error = std::move(rules.error);
  return out;
}

std::optional<std::vector<PolicyRule>> RbacAuthorizer::RoleReferenceRules(
    const RoleRef& ref, std::string_view binding_namespace) const {
  std::shared_ptr<const RbacSnapshot> snap = Load();
  std::string error;
  const RuleList* rules = ResolveRole(*snap, ref, binding_namespace, &error);
  if (rules == nullptr) return std::nullopt;
  return *rules;
}

void RbacAuthorizer::UpsertRole(const api::rbac::v1::Role& role) {
  Update([&](const RbacSnapshot& snap) {
    return WithNamespace(snap, role.metadata.namespace_, [&](NamespacePolicy& p) {
      p.roles = WithRules(p.roles.get(), role.metadata.name, &role.rules);
    });
  });
}

void RbacAuthorizer::DeleteRole(std::string_view ns, std::string_view name) {
  Update([&](const RbacSnapshot& snap) {
    return WithNamespace(
        snap, ns, [&](NamespacePolicy& p) { p.roles = WithRules(p.roles.get(), name, nullptr); });
  });
}

void RbacAuthorizer::UpsertClusterRole(const api::rbac::v1::ClusterRole& role) {
  Update([&](const RbacSnapshot& snap) {
    auto next = std::make_shared<RbacSnapshot>(snap);
    next->cluster_roles = WithRules(snap.cluster_roles.get(), role.metadata.name, &role.rules);
    return std::shared_ptr<const RbacSnapshot>(std::move(next));
  });
}

void RbacAuthorizer::DeleteClusterRole(std::string_view name) {
  Update([&](const RbacSnapshot& snap) {
    auto next = std::make_shared<RbacSnapshot>(snap);
    next->cluster_roles = WithRules(snap.cluster_roles.get(), name, nullptr);
    return std::shared_ptr<const RbacSnapshot>(std::move(next));
  });
}

void RbacAuthorizer::UpsertRoleBinding(const api::rbac::v1::RoleBinding& binding) {
  const std::string& ns = binding.metadata.namespace_;
  auto indexed = Index(ns, binding.metadata, binding.role_ref, binding.subjects);
  Update([&](const RbacSnapshot& snap) {
    return WithNamespace(snap, ns, [&](NamespacePolicy& p) {
      p.bindings = WithBinding(p.bindings.get(), binding.metadata.name, indexed);
    });
  });
}

void RbacAuthorizer::DeleteRoleBinding(std::string_view ns, std::string_view name) {
  Update([&](const RbacSnapshot& snap) {
    return WithNamespace(snap, ns, [&](NamespacePolicy& p) {
      p.bindings = WithBinding(p.bindings.get(), name, nullptr);
    });
  });
}

void RbacAuthorizer::UpsertClusterRoleBinding(const api::rbac::v1::ClusterRoleBinding& binding) {
  auto indexed = Index("", binding.metadata, binding.role_ref, binding.subjects);
  Update([&](const RbacSnapshot& snap) {
    auto next = std::make_shared<RbacSnapshot>(snap);
    next->cluster_bindings =
        WithBinding(snap.cluster_bindings.get(), binding.metadata.name, indexed);
    return std::shared_ptr<const RbacSnapshot>(std::move(next));
  });
}

void RbacAuthorizer::DeleteClusterRoleBinding(std::string_view name) {
  Update([&](const RbacSnapshot& snap) {
    auto next = std::make_shared<RbacSnapshot>(snap);
    next->cluster_bindings = WithBinding(snap.cluster_bindings.get(), name, nullptr);
    return std::shared_ptr<const RbacSnapshot>(std::move(next));
  });
}

void RbacAuthorizer::ReplaceAll(const Objects& objects) {
  auto cluster_roles = std::make_shared<RuleTable>();
  for (const auto& r : objects.cluster_roles) {
    (*cluster_roles)[r.metadata.name] = std::make_shared<const RuleList>(r.rules);
  }
  StringMap<std::shared_ptr<RuleTable>> roles;
  for (const auto& r : objects.roles) {
    auto& table = roles[r.metadata.namespace_];
    if (!table) table = std::make_shared<RuleTable>();
    (*table)[r.metadata.name] = std::make_shared<const RuleList>(r.rules);
  }
  StringMap<std::vector<std::shared_ptr<const IndexedBinding>>> bindings;
  for (const auto& b : objects.role_bindings) {
    bindings[b.metadata.namespace_].push_back(
        Index(b.metadata.namespace_, b.metadata, b.role_ref, b.subjects));
  }
  std::vector<std::shared_ptr<const IndexedBinding>> cluster_bindings;
  for (const auto& b : objects.cluster_role_bindings) {
    cluster_bindings.push_back(Index("", b.metadata, b.role_ref, b.subjects));
  }
  StringMap<NamespacePolicy> staged;
  for (auto& [ns, table] : roles) staged[ns].roles = std::move(table);
  for (auto& [ns, list] : bindings) {
    staged[ns].bindings = internal::BuildBindingIndex(std::move(list));
  }
  auto namespaces = std::make_shared<NamespaceTable>();
  for (auto& [ns, policy] : staged) {
    (*namespaces)[ns] = std::make_shared<const NamespacePolicy>(std::move(policy));
  }
  auto next = std::make_shared<RbacSnapshot>();
  next->cluster_roles = std::move(cluster_roles);
  next->cluster_bindings = internal::BuildBindingIndex(std::move(cluster_bindings));
  next->namespaces = std::move(namespaces);
  std::lock_guard<std::mutex> lock(mu_);
  Publish(std::move(next));
}

}  // namespace svcplane::apiserver::authorization
