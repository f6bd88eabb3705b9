#include "apiserver/patch/schema.h"

#include <gtest/gtest.h>

namespace svcplane::apiserver::patch {
namespace {

// Follows a dotted path through value schemas and returns the metadata of the last field.
const FieldMeta* Lookup(const Schema& root, std::initializer_list<const char*> path) {
  const Schema* s = &root;
  const FieldMeta* f = nullptr;
  for (const char* part : path) {
    if (s == nullptr) return nullptr;
    f = s->Field(part);
    if (f == nullptr) return nullptr;
    s = f->schema;
  }
  return f;
}

TEST(SchemaTest, EveryServedKindHasASchema) {
  for (const char* kind : {"Namespace", "Service", "Pod", "Node", "Endpoints", "Event",
                           "EndpointSlice", "Lease", "ConfigMap", "Secret", "ServiceAccount"}) {
    const Schema* s = StrategicSchemaForKind(kind);
    ASSERT_NE(s, nullptr) << kind;
    const FieldMeta* fin = Lookup(*s, {"metadata", "finalizers"});
    ASSERT_NE(fin, nullptr) << kind;
    EXPECT_EQ(fin->list, ListStrategy::kMergeSet);
    const FieldMeta* owners = Lookup(*s, {"metadata", "ownerReferences"});
    ASSERT_NE(owners, nullptr) << kind;
    EXPECT_EQ(owners->merge_key, "uid");
  }
  EXPECT_EQ(StrategicSchemaForKind("DaemonSet"), nullptr);
  EXPECT_EQ(StrategicSchemaForKind("pod"), nullptr);
}

// ServiceAccount.secrets merge by name (+patchMergeKey=name); imagePullSecrets replace.
TEST(SchemaTest, ServiceAccountSecretsMergeByName) {
  const Schema* s = StrategicSchemaForKind("ServiceAccount");
  ASSERT_NE(s, nullptr);
  const FieldMeta* secrets = Lookup(*s, {"secrets"});
  ASSERT_NE(secrets, nullptr);
  EXPECT_EQ(secrets->merge_key, "name");
  EXPECT_EQ(Lookup(*s, {"imagePullSecrets"}), nullptr);
}

// Deployment and ReplicaSet: the pod template's lists merge as a Pod's do.
TEST(SchemaTest, WorkloadTemplateLists) {
  for (const char* kind : {"Deployment", "ReplicaSet"}) {
    const Schema* s = StrategicSchemaForKind(kind);
    ASSERT_NE(s, nullptr) << kind;
    const FieldMeta* containers = Lookup(*s, {"spec", "template", "spec", "containers"});
    ASSERT_NE(containers, nullptr) << kind;
    EXPECT_EQ(containers->merge_key, "name");
    const FieldMeta* ports = Lookup(*s, {"spec", "template", "spec", "containers", "ports"});
    ASSERT_NE(ports, nullptr) << kind;
    EXPECT_EQ(ports->merge_key, "containerPort");
    const FieldMeta* conditions = Lookup(*s, {"status", "conditions"});
    ASSERT_NE(conditions, nullptr) << kind;
    EXPECT_EQ(conditions->merge_key, "type");
  }
}

TEST(SchemaTest, PodListsFollowUpstreamTags) {
  const Schema& pod = *StrategicSchemaForKind("Pod");
  struct Want {
    std::initializer_list<const char*> path;
    const char* key;
  };
  for (const Want& w : {
           Want{{"spec", "containers"}, "name"},
           Want{{"spec", "initContainers"}, "name"},
           Want{{"spec", "ephemeralContainers"}, "name"},
           Want{{"spec", "containers", "ports"}, "containerPort"},
           Want{{"spec", "initContainers", "env"}, "name"},
           Want{{"spec", "containers", "volumeMounts"}, "mountPath"},
           Want{{"spec", "imagePullSecrets"}, "name"},
           Want{{"spec", "volumes"}, "name"},
           Want{{"spec", "hostAliases"}, "ip"},
           Want{{"spec", "topologySpreadConstraints"}, "topologyKey"},
           Want{{"status", "conditions"}, "type"},
           Want{{"status", "podIPs"}, "ip"},
           Want{{"status", "hostIPs"}, "ip"},
       }) {
    const FieldMeta* f = Lookup(pod, w.path);
    ASSERT_NE(f, nullptr) << *w.path.begin();
    EXPECT_EQ(f->list, ListStrategy::kMergeByKey);
    EXPECT_EQ(f->merge_key, w.key);
  }
  EXPECT_TRUE(Lookup(pod, {"spec", "volumes"})->retain_keys);
  EXPECT_EQ(Lookup(pod, {"spec", "tolerations"}), nullptr);  // undescribed: atomic
}

TEST(SchemaTest, ServiceAndNodeLists) {
  const Schema& svc = *StrategicSchemaForKind("Service");
  EXPECT_EQ(Lookup(svc, {"spec", "ports"})->merge_key, "port");
  EXPECT_EQ(Lookup(svc, {"spec", "clusterIPs"}), nullptr);
  const Schema& node = *StrategicSchemaForKind("Node");
  EXPECT_EQ(Lookup(node, {"spec", "podCIDRs"})->list, ListStrategy::kMergeSet);
  EXPECT_EQ(Lookup(node, {"status", "addresses"})->merge_key, "type");
  EXPECT_EQ(Lookup(node, {"spec", "taints"}), nullptr);
  const Schema& slice = *StrategicSchemaForKind("EndpointSlice");
  EXPECT_EQ(Lookup(slice, {"endpoints"}), nullptr);
}

TEST(SchemaTest, FromRulesBuildsNestedFields) {
  auto s = Schema::FromRules({{"a.b[].c", ListStrategy::kMergeByKey, "k"},
                              {"a.b", ListStrategy::kMergeByKey, "name"},
                              {"x", ListStrategy::kReplace, "", false, /*replace_map=*/true}});
  const FieldMeta* b = Lookup(*s, {"a", "b"});
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->merge_key, "name");
  EXPECT_EQ(Lookup(*s, {"a", "b", "c"})->merge_key, "k");  // rule order does not matter
  EXPECT_TRUE(Lookup(*s, {"x"})->replace_map);
}

}  // namespace
}  // namespace svcplane::apiserver::patch
