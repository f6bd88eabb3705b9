#include "apiserver/patch/schema.h"

#include <string>
#include <utility>

#include "base/check.h"

namespace svcplane::apiserver::patch {
namespace {

std::vector<std::string> SplitPath(std::string_view path) {
  std::vector<std::string> parts;
  while (!path.empty()) {
    size_t dot = path.find('.');
    std::string_view part = path.substr(0, dot);
    if (part.size() > 2 && part.substr(part.size() - 2) == "[]") part.remove_suffix(2);
    SVC_CHECK(!part.empty()) << "empty segment in schema path";
    parts.emplace_back(part);
    if (dot == std::string_view::npos) break;
    path.remove_prefix(dot + 1);
  }
  return parts;
}

// Rules every kind shares: ObjectMeta's tagged lists.
void AddObjectMetaRules(std::vector<PathRule>& rules) {
  rules.push_back({"metadata.finalizers", ListStrategy::kMergeSet});
  rules.push_back({"metadata.ownerReferences", ListStrategy::kMergeByKey, "uid"});
}

// core/v1 Container's tagged lists under `list` (containers, initContainers, ...).
void AddContainerRules(std::vector<PathRule>& rules, const std::string& list) {
  rules.push_back({list + "[].ports", ListStrategy::kMergeByKey, "containerPort"});
  rules.push_back({list + "[].env", ListStrategy::kMergeByKey, "name"});
  rules.push_back({list + "[].volumeMounts", ListStrategy::kMergeByKey, "mountPath"});
  rules.push_back({list + "[].volumeDevices", ListStrategy::kMergeByKey, "devicePath"});
}

// core/v1 PodSpec's tagged lists, the spec at `spec` ("spec" or "spec.template.spec").
void AddPodSpecRules(std::vector<PathRule>& rules, const std::string& spec) {
  for (std::string list : {".containers", ".initContainers", ".ephemeralContainers"}) {
    list = spec + list;
    rules.push_back({list, ListStrategy::kMergeByKey, "name"});
    AddContainerRules(rules, list);
  }
  rules.push_back({spec + ".imagePullSecrets", ListStrategy::kMergeByKey, "name"});
  rules.push_back({spec + ".volumes", ListStrategy::kMergeByKey, "name", /*retain_keys=*/true});
  rules.push_back({spec + ".hostAliases", ListStrategy::kMergeByKey, "ip"});
  rules.push_back({spec + ".topologySpreadConstraints", ListStrategy::kMergeByKey, "topologyKey"});
  rules.push_back({spec + ".resourceClaims", ListStrategy::kMergeByKey, "name", true});
  rules.push_back({spec + ".schedulingGates", ListStrategy::kMergeByKey, "name"});
}

// Deployment and ReplicaSet: the pod template's lists, and status conditions keyed by type.
std::unique_ptr<Schema> WorkloadSchema() {
  std::vector<PathRule> rules;
  AddObjectMetaRules(rules);
  rules.push_back({"spec.template.metadata.finalizers", ListStrategy::kMergeSet});
  rules.push_back({"spec.template.metadata.ownerReferences", ListStrategy::kMergeByKey, "uid"});
  AddPodSpecRules(rules, "spec.template.spec");
  rules.push_back({"status.conditions", ListStrategy::kMergeByKey, "type"});
  return Schema::FromRules(rules);
}

std::unique_ptr<Schema> PodSchema() {
  std::vector<PathRule> rules;
  AddObjectMetaRules(rules);
  AddPodSpecRules(rules, "spec");
  rules.push_back({"status.conditions", ListStrategy::kMergeByKey, "type"});
  rules.push_back({"status.podIPs", ListStrategy::kMergeByKey, "ip"});
  rules.push_back({"status.hostIPs", ListStrategy::kMergeByKey, "ip"});
  rules.push_back({"status.resourceClaimStatuses", ListStrategy::kMergeByKey, "name", true});
  return Schema::FromRules(rules);
}

std::unique_ptr<Schema> ServiceSchema() {
  std::vector<PathRule> rules;
  AddObjectMetaRules(rules);
  // clusterIPs, ipFamilies, externalIPs and status.loadBalancer.ingress carry no tag: atomic.
  rules.push_back({"spec.ports", ListStrategy::kMergeByKey, "port"});
  rules.push_back({"status.conditions", ListStrategy::kMergeByKey, "type"});
  return Schema::FromRules(rules);
}

std::unique_ptr<Schema> NodeSchema() {
  std::vector<PathRule> rules;
  AddObjectMetaRules(rules);
  rules.push_back({"spec.podCIDRs", ListStrategy::kMergeSet});  // taints stay atomic
  rules.push_back({"status.conditions", ListStrategy::kMergeByKey, "type"});
  rules.push_back({"status.addresses", ListStrategy::kMergeByKey, "type"});
  return Schema::FromRules(rules);
}

std::unique_ptr<Schema> NamespaceSchema() {
  std::vector<PathRule> rules;
  AddObjectMetaRules(rules);
  rules.push_back({"status.conditions", ListStrategy::kMergeByKey, "type"});
  return Schema::FromRules(rules);
}

// ServiceAccount: secrets merge by name (+patchMergeKey=name +patchStrategy=merge);
// imagePullSecrets replace.
std::unique_ptr<Schema> ServiceAccountSchema() {
  std::vector<PathRule> rules;
  AddObjectMetaRules(rules);
  rules.push_back({"secrets", ListStrategy::kMergeByKey, "name"});
  return Schema::FromRules(rules);
}

// Endpoints (subsets), Event, EndpointSlice (endpoints, ports), Lease and the RBAC kinds (rules,
// subjects, clusterRoleSelectors) have no tagged lists beyond ObjectMeta: everything else
// replaces.
std::unique_ptr<Schema> MetaOnlySchema() {
  std::vector<PathRule> rules;
  AddObjectMetaRules(rules);
  return Schema::FromRules(rules);
}

}  // namespace

std::unique_ptr<Schema> Schema::FromRules(const std::vector<PathRule>& rules) {
  auto root = std::make_unique<Schema>();
  for (const PathRule& rule : rules) {
    std::vector<std::string> parts = SplitPath(rule.path);
    SVC_CHECK(!parts.empty()) << "empty schema path";
    Schema* node = root.get();
    for (size_t i = 0; i + 1 < parts.size(); ++i) node = &node->ChildSchema(parts[i]);
    FieldMeta meta;
    if (const FieldMeta* existing = node->Field(parts.back())) meta = *existing;
    meta.list = rule.list;
    meta.merge_key = rule.merge_key;
    meta.retain_keys = rule.retain_keys;
    meta.replace_map = rule.replace_map;
    SVC_CHECK((meta.list == ListStrategy::kMergeByKey) == !meta.merge_key.empty())
        << "merge key must be given exactly for kMergeByKey: " << rule.path;
    node->SetField(parts.back(), std::move(meta));
  }
  return root;
}

const FieldMeta* Schema::Field(std::string_view name) const {
  auto it = fields_.find(name);
  return it == fields_.end() ? nullptr : &it->second;
}

FieldMeta& Schema::SetField(std::string name, FieldMeta meta) {
  FieldMeta& slot = fields_[std::move(name)];
  slot = std::move(meta);
  return slot;
}

Schema& Schema::ChildSchema(const std::string& name) {
  FieldMeta& meta = fields_[name];
  if (meta.schema == nullptr) {
    owned_.push_back(std::make_unique<Schema>());
    meta.schema = owned_.back().get();
  }
  // Builders only ever reach schemas this tree owns or that the caller handed in as mutable.
  return const_cast<Schema&>(*meta.schema);
}

const Schema& Schema::Empty() {
  static const Schema* const kEmpty = new Schema();
  return *kEmpty;
}

const Schema* StrategicSchemaForKind(std::string_view kind) {
  // Leaked on purpose: no non-trivial destructors at exit (Envoy's rule on globals).
  static const auto* const kSchemas = [] {
    auto* m = new std::map<std::string, std::unique_ptr<Schema>, std::less<>>();
    (*m)["Pod"] = PodSchema();
    (*m)["Service"] = ServiceSchema();
    (*m)["Node"] = NodeSchema();
    (*m)["Namespace"] = NamespaceSchema();
    (*m)["Deployment"] = WorkloadSchema();
    (*m)["ReplicaSet"] = WorkloadSchema();
    (*m)["ServiceAccount"] = ServiceAccountSchema();
    // ConfigMap and Secret: data, binaryData and stringData are maps, merged key by key.
    for (const char* k : {"Endpoints", "Event", "EndpointSlice", "Lease", "Role", "ClusterRole",
                          "RoleBinding", "ClusterRoleBinding", "Scale", "ConfigMap", "Secret"}) {
      (*m)[k] = MetaOnlySchema();
    }
    return m;
  }();
  auto it = kSchemas->find(kind);
  return it == kSchemas->end() ? nullptr : it->second.get();
}

}  // namespace svcplane::apiserver::patch
