// Differential test against upstream's own code: `kubectl patch --local` applies strategic, merge
// and JSON patches client-side with the same apimachinery/evanphx libraries the API server uses.
// Every case runs through kubectl and through ApplyPatch and the results must agree. Skipped when
// /usr/bin/kubectl is not installed.

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "apiserver/patch/patch.h"

namespace svcplane::apiserver::patch {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

constexpr const char* kKubectl = "/usr/bin/kubectl";

struct KubectlResult {
  bool ok = false;
  json::value object;
  std::string error;  // stderr on failure, without trailing newlines
};

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `kubectl patch --local` in a private temp directory that is removed afterwards.
KubectlResult RunKubectl(std::string_view type, std::string_view current, std::string_view patch) {
  std::string tmpl = (fs::temp_directory_path() / "svcplane-patch-XXXXXX").string();
  const char* dir_c = mkdtemp(tmpl.data());
  EXPECT_NE(dir_c, nullptr);
  fs::path dir(tmpl);
  std::ofstream(dir / "obj.json") << current;
  std::ofstream(dir / "patch.json") << patch;
  std::string cmd = std::string(kKubectl) +
                    " patch --local --kubeconfig=/dev/null -o json --type=" + std::string(type) +
                    " -f " + (dir / "obj.json").string() +
                    " --patch-file=" + (dir / "patch.json").string() + " >" +
                    (dir / "out").string() + " 2>" + (dir / "err").string();
  int rc = std::system(cmd.c_str());
  KubectlResult r;
  r.ok = rc == 0;
  if (r.ok) {
    r.object = json::parse(ReadFile(dir / "out"));
  } else {
    r.error = ReadFile(dir / "err");
    while (r.error.ends_with('\n')) r.error.pop_back();
  }
  fs::remove_all(dir);
  return r;
}

// kubectl prints the patched map as is, where the API server decodes it into the typed object:
// that drops empty and zero values (omitempty) and the directive keys upstream leaves inside
// values it copies verbatim (replaced lists and maps). Drop both on both sides, so only real
// differences remain.
bool IsEmpty(const json::value& v) {
  return v.is_null() || (v.is_object() && v.get_object().empty()) ||
         (v.is_array() && v.get_array().empty()) || (v.is_string() && v.get_string().empty()) ||
         (v.is_bool() && !v.get_bool()) || (v.is_int64() && v.get_int64() == 0);
}

void Normalize(json::value& v) {
  if (v.is_object()) {
    json::object& obj = v.get_object();
    std::vector<std::string> drop;
    for (auto& kv : obj) {
      Normalize(kv.value());
      if (IsEmpty(kv.value()) || kv.key().starts_with("$")) drop.emplace_back(kv.key());
    }
    for (const std::string& k : drop) obj.erase(k);
  } else if (v.is_array()) {
    for (json::value& e : v.get_array()) Normalize(e);
  }
}

struct DiffCase {
  const char* name;
  PatchType type;
  const char* kind;
  const char* current;
  const char* patch;
  bool compare_error_text = true;  // false where our messages are deliberately clearer
};

void PrintTo(const DiffCase& c, std::ostream* os) { *os << c.name; }

std::string_view KubectlType(PatchType t) {
  switch (t) {
    case PatchType::kJsonPatch:
      return "json";
    case PatchType::kMergePatch:
      return "merge";
    default:
      return "strategic";
  }
}

class KubectlDiffTest : public testing::TestWithParam<DiffCase> {};

TEST_P(KubectlDiffTest, MatchesKubectlPatchLocal) {
  if (access(kKubectl, X_OK) != 0) GTEST_SKIP() << "kubectl not installed";
  const DiffCase& c = GetParam();
  KubectlResult want = RunKubectl(KubectlType(c.type), c.current, c.patch);
  Result<json::value> got = ApplyPatch(c.type, c.kind, json::parse(c.current), c.patch);
  if (!want.ok) {
    ASSERT_FALSE(got.ok()) << "kubectl failed with: " << want.error
                           << "\nwe produced: " << json::serialize(*got);
    if (c.compare_error_text) {
      // kubectl adds a newline unless the message ends with one: compare without them.
      std::string ours = "error: " + got.status().message();
      while (ours.ends_with('\n')) ours.pop_back();
      EXPECT_EQ(ours, want.error);
    }
    return;
  }
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  json::value ours = *got;
  Normalize(ours);
  Normalize(want.object);
  EXPECT_EQ(ours, want.object) << "ours:    " << json::serialize(ours)
                               << "\nkubectl: " << json::serialize(want.object);
}

constexpr const char* kPod = R"({"apiVersion":"v1","kind":"Pod",
  "metadata":{"name":"web-0","namespace":"d","labels":{"app":"web","tier":"fe"},
              "annotations":{"a":"1"},"finalizers":["a/x","b/y"],
              "ownerReferences":[{"apiVersion":"apps/v1","kind":"StatefulSet","name":"web",
                                  "uid":"u1","controller":true}]},
  "spec":{"nodeName":"n1",
          "containers":[
            {"name":"app","image":"nginx:1.25","args":["-v"],
             "ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":443}],
             "env":[{"name":"A","value":"1"},{"name":"C","value":"3"}],
             "volumeMounts":[{"name":"data","mountPath":"/data"}]},
            {"name":"sidecar","image":"envoy:1"}],
          "initContainers":[{"name":"init","image":"busybox"}],
          "volumes":[{"name":"data","emptyDir":{}},{"name":"cfg","configMap":{"name":"c"}}],
          "tolerations":[{"key":"k","operator":"Exists"}],
          "imagePullSecrets":[{"name":"s1"}],
          "hostAliases":[{"ip":"1.2.3.4","hostnames":["a"]}]},
  "status":{"phase":"Running","podIP":"10.1.0.5","podIPs":[{"ip":"10.1.0.5"}],
            "conditions":[{"type":"Ready","status":"False"},
                          {"type":"PodScheduled","status":"True"}]}})";

constexpr const char* kService = R"({"apiVersion":"v1","kind":"Service",
  "metadata":{"name":"web","namespace":"d","labels":{"app":"web"}},
  "spec":{"type":"ClusterIP","clusterIP":"10.0.0.7","clusterIPs":["10.0.0.7"],
          "ipFamilies":["IPv4"],"selector":{"app":"web","tier":"fe"},
          "ports":[{"name":"http","port":80,"targetPort":8080,"protocol":"TCP"},
                   {"name":"alt","port":8080,"targetPort":8080,"protocol":"TCP"}]}})";

constexpr const char* kNode = R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},
  "spec":{"podCIDR":"10.1.0.0/24","podCIDRs":["10.1.0.0/24"],
          "taints":[{"key":"a","effect":"NoSchedule"}]},
  "status":{"addresses":[{"type":"InternalIP","address":"1.1.1.1"},
                         {"type":"Hostname","address":"n1"}],
            "conditions":[{"type":"Ready","status":"False","reason":"x"},
                          {"type":"MemoryPressure","status":"False"}]}})";

constexpr const char* kSlice = R"({"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice",
  "metadata":{"name":"web-abc","namespace":"d","labels":{"kubernetes.io/service-name":"web"}},
  "addressType":"IPv4",
  "endpoints":[{"addresses":["10.1.0.5"],"conditions":{"ready":true},"nodeName":"n1"}],
  "ports":[{"name":"http","port":8080,"protocol":"TCP"}]})";

constexpr const char* kNamespace = R"({"apiVersion":"v1","kind":"Namespace",
  "metadata":{"name":"team","labels":{"kubernetes.io/metadata.name":"team"}},
  "spec":{"finalizers":["kubernetes"]},
  "status":{"phase":"Active","conditions":[{"type":"A","status":"True"}]}})";

constexpr const char* kEvent = R"({"apiVersion":"v1","kind":"Event",
  "metadata":{"name":"web.1","namespace":"d"},"involvedObject":{"kind":"Pod","name":"web-0"},
  "reason":"Pulled","message":"m1","count":1,"type":"Normal",
  "lastTimestamp":"2024-01-01T00:00:00Z"})";

constexpr const char* kLease = R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
  "metadata":{"name":"n1","namespace":"kube-node-lease"},
  "spec":{"holderIdentity":"n1","leaseDurationSeconds":40,
          "renewTime":"2024-01-01T00:00:00.000000Z"}})";

constexpr const char* kEndpoints = R"({"apiVersion":"v1","kind":"Endpoints",
  "metadata":{"name":"web","namespace":"d"},
  "subsets":[{"addresses":[{"ip":"10.1.0.5"}],"ports":[{"port":8080}]}]})";

const DiffCase kCases[] = {
    // Strategic merge patch on Pods.
    {"PodKubectlApplyImageEnvLabels", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"metadata":{"labels":{"tier":null,"version":"2"}},
         "spec":{"$setElementOrder/containers":[{"name":"app"},{"name":"sidecar"}],
                 "containers":[{"name":"app","image":"nginx:1.26",
                                "$setElementOrder/env":[{"name":"A"},{"name":"B"},{"name":"C"}],
                                "env":[{"name":"B","value":"2"}]}]}})"},
    {"PodNewContainerNoOrder", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"spec":{"containers":[{"name":"debug","image":"busybox"}]}})"},
    {"PodNewContainerWithOrder", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"spec":{"$setElementOrder/containers":[{"name":"app"},{"name":"debug"},
                                                 {"name":"sidecar"}],
                 "containers":[{"name":"debug","image":"busybox"}]}})"},
    {"PodDeleteContainerAndPort", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"spec":{"containers":[{"name":"sidecar","$patch":"delete"},
                 {"name":"app","ports":[{"containerPort":80,"$patch":"delete"},
                                        {"containerPort":8080}]}]}})"},
    {"PodReplaceContainers", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"spec":{"containers":[{"$patch":"replace"},{"name":"solo","image":"i"}]}})"},
    {"PodReplaceLabelsMap", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"metadata":{"labels":{"$patch":"replace","only":"this"}}})"},
    {"PodDeleteLabelsMap", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"metadata":{"labels":{"$patch":"delete"}}})"},
    {"PodRetainKeysVolume", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"spec":{"$setElementOrder/volumes":[{"name":"data"},{"name":"cfg"}],
                 "volumes":[{"name":"data","$retainKeys":["configMap","name"],
                             "configMap":{"name":"cm"}}]}})"},
    {"PodRetainKeysViolation", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"spec":{"volumes":[{"name":"data","$retainKeys":["name"],"configMap":{"name":"c"}}]}})"},
    {"PodFinalizersSetAndOrder", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"metadata":{"$setElementOrder/finalizers":["c/z","a/x","b/y"],"finalizers":["c/z"]}})"},
    {"PodFinalizersAddNoOrder", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"metadata":{"finalizers":["c/z","a/x"]}})"},
    {"PodFinalizersDelete", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a/x"]}})"},
    {"PodOwnerReferencesByUid", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"Node","name":"n1","uid":"u2"},
                                        {"uid":"u1","blockOwnerDeletion":true}]}})"},
    {"PodStatusConditionsAndIPs", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"status":{"$setElementOrder/conditions":[{"type":"Ready"},{"type":"PodScheduled"}],
                   "conditions":[{"type":"Ready","status":"True"}],
                   "podIPs":[{"ip":"fd00::5"}]}})"},
    {"PodTolerationsAtomicArgsAtomic", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"spec":{"tolerations":[{"key":"other","operator":"Exists"}],
                 "containers":[{"name":"app","args":["-q"]}]}})"},
    {"PodImagePullSecretsAndHostAliases", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"spec":{"imagePullSecrets":[{"name":"s2"}],
                 "hostAliases":[{"ip":"1.2.3.4","hostnames":["b"]},{"ip":"5.6.7.8"}]}})"},
    {"PodInitContainerEnv", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"spec":{"initContainers":[{"name":"init","env":[{"name":"X","value":"1"}]}]}})"},
    {"PodNewValuesWithDirectives", PatchType::kStrategicMerge, "Pod",
     R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}})",
     R"({"spec":{"containers":[{"name":"a","image":"x","args":null},
                               {"name":"b","$patch":"delete"}],
                 "securityContext":{"runAsUser":null,"fsGroup":1}}})"},
    {"PodMissingMergeKey", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"spec":{"containers":[{"image":"q"}]}})"},
    {"PodPatchMergeInMap", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"metadata":{"labels":{"$patch":"merge"}}})"},
    {"PodPatchMergeInList", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"spec":{"containers":[{"$patch":"merge"}]}})"},
    {"PodBadSetElementOrderKey", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"metadata":{"$setElementOrder":["a/x"]}})"},
    {"PodOrderMismatch", PatchType::kStrategicMerge, "Pod", kPod,
     R"({"spec":{"$setElementOrder/containers":[{"name":"sidecar"},{"name":"app"}],
                 "containers":[{"name":"app","image":"a"},{"name":"sidecar","image":"b"}]}})"},
    // Services.
    {"ServiceScenario16", PatchType::kStrategicMerge, "Service", kService,
     R"({"spec":{"$setElementOrder/ports":[{"port":80},{"port":443}],
                 "ports":[{"port":443,"targetPort":8443}]}})"},
    {"ServiceKubectlApply", PatchType::kStrategicMerge, "Service", kService,
     R"({"spec":{"$setElementOrder/ports":[{"port":80},{"port":443}],
                 "ports":[{"name":"https","port":443,"targetPort":8443},
                          {"$patch":"delete","port":8080}],
                 "selector":{"tier":null,"version":"v2"},"ipFamilies":["IPv4"]}})"},
    {"ServicePortsNoOrder", PatchType::kStrategicMerge, "Service", kService,
     R"({"spec":{"ports":[{"port":9090,"name":"m"},{"port":80,"targetPort":9000}]}})"},
    {"ServiceAtomicClusterIPs", PatchType::kStrategicMerge, "Service", kService,
     R"({"spec":{"clusterIPs":["10.0.0.7","fd00::7"],"ipFamilies":["IPv4","IPv6"]}})"},
    // Nodes, Namespaces and the kinds without merge lists.
    {"NodeStatusAndSpec", PatchType::kStrategicMerge, "Node", kNode,
     R"({"spec":{"podCIDRs":["fd00:1::/64"],"taints":[{"key":"b","effect":"NoExecute"}]},
         "status":{"addresses":[{"type":"InternalIP","address":"2.2.2.2"}],
                   "conditions":[{"type":"Ready","status":"True"}]}})"},
    {"NamespaceConditions", PatchType::kStrategicMerge, "Namespace", kNamespace,
     R"({"status":{"conditions":[{"type":"B","status":"False"}]},"spec":{"finalizers":[]}})"},
    {"EndpointSliceAtomic", PatchType::kStrategicMerge, "EndpointSlice", kSlice,
     R"({"endpoints":[{"addresses":["10.1.0.6"]}],"ports":[{"port":81}]})"},
    {"EndpointsAtomic", PatchType::kStrategicMerge, "Endpoints", kEndpoints,
     R"({"subsets":[{"addresses":[{"ip":"10.1.0.6"}]}]})"},
    {"EventRecorderBump", PatchType::kStrategicMerge, "Event", kEvent,
     R"({"count":2,"lastTimestamp":"2024-01-01T00:01:00Z","message":"m2"})"},
    {"LeaseRenew", PatchType::kStrategicMerge, "Lease", kLease,
     R"({"spec":{"renewTime":"2024-01-01T00:00:10.000000Z"}})"},
    // JSON merge patch (kubectl label/annotate).
    {"MergeLabels", PatchType::kMergePatch, "Pod", kPod,
     R"({"metadata":{"labels":{"tier":null,"v":"2"},"annotations":{"b":"x"}}})"},
    {"MergeReplacesLists", PatchType::kMergePatch, "Service", kService,
     R"({"spec":{"ports":[{"port":443}]}})"},
    // JSON patch (client-node typed patch* default).
    {"JsonPatchOps", PatchType::kJsonPatch, "Service", kService,
     R"([{"op":"replace","path":"/spec/selector/app","value":"x"},
         {"op":"add","path":"/spec/ports/-","value":{"port":9,"name":"d"}},
         {"op":"remove","path":"/spec/ports/0"},
         {"op":"copy","from":"/metadata/labels","path":"/metadata/annotations"},
         {"op":"move","from":"/spec/selector/tier","path":"/metadata/labels/tier"},
         {"op":"test","path":"/metadata/labels/app","value":"web"}])"},
    {"JsonPatchFailingTest", PatchType::kJsonPatch, "Service", kService,
     R"([{"op":"test","path":"/metadata/labels/app","value":"nope"}])", false},
    {"JsonPatchReplaceMissingKey", PatchType::kJsonPatch, "Service", kService,
     R"([{"op":"replace","path":"/metadata/annotations","value":{"a":"b"}}])"},
    {"JsonPatchRemoveMissingKey", PatchType::kJsonPatch, "Service", kService,
     R"([{"op":"remove","path":"/metadata/annotations"}])", false},
    {"JsonPatchNegativeIndex", PatchType::kJsonPatch, "Service", kService,
     R"([{"op":"remove","path":"/spec/ports/-1"},
         {"op":"add","path":"/spec/clusterIPs/-1","value":"10.0.0.9"}])"},
    {"JsonPatchAddAtEndIndex", PatchType::kJsonPatch, "Service", kService,
     R"([{"op":"add","path":"/spec/ports/2","value":{"port":7}}])"},
    {"JsonPatchAddOutOfRange", PatchType::kJsonPatch, "Service", kService,
     R"([{"op":"add","path":"/spec/ports/5","value":{"port":7}}])", false},
    {"JsonPatchTestNumbers", PatchType::kJsonPatch, "Service", kService,
     R"([{"op":"test","path":"/spec/ports/0/port","value":80.0},
         {"op":"test","path":"/spec/nope","value":null}])"},
    {"JsonPatchMoveIntoList", PatchType::kJsonPatch, "Service", kService,
     R"([{"op":"move","from":"/spec/ports/1","path":"/spec/ports/0"}])"},
    {"MergeNestedNullsAndNewMaps", PatchType::kMergePatch, "Pod", kPod,
     R"({"spec":{"securityContext":{"runAsUser":1,"fsGroup":null},"nodeName":null},
         "metadata":{"annotations":null}})"},
    {"JsonPatchEscapes", PatchType::kJsonPatch, "Service", kService,
     R"([{"op":"add","path":"/metadata/labels/app.kubernetes.io~1name","value":"w"}])"},
};

INSTANTIATE_TEST_SUITE_P(Kubectl, KubectlDiffTest, testing::ValuesIn(kCases),
                         [](const testing::TestParamInfo<DiffCase>& info) {
                           return std::string(info.param.name);
                         });

// --- randomized strategic patches on the Pod, checked against kubectl the same way ---

class PatchGen {
 public:
  explicit PatchGen(unsigned seed) : rng_(seed) {}

  json::value Pod() {
    json::object patch;
    json::object meta;
    if (Coin()) {
      json::object labels;
      for (const char* k : {"app", "tier", "new"}) {
        if (Coin()) labels[k] = Coin(3) ? json::value(nullptr) : json::value(Pick({"x", "y"}));
      }
      meta["labels"] = std::move(labels);
    }
    if (Coin()) AddScalarList(meta, "finalizers", {"a/x", "b/y", "c/z"});
    if (!meta.empty()) patch["metadata"] = std::move(meta);
    json::object spec;
    if (Coin(2)) {
      AddKeyedList(spec, "containers", "name", {"app", "sidecar", "debug"},
                   [this](json::object& c) {
                     if (Coin()) c["image"] = Pick({"i:1", "i:2"});
                     if (Coin(3)) {
                       json::object dummy;
                       AddKeyedList(dummy, "env", "name", {"A", "B", "C"}, [this](json::object& e) {
                         e["value"] = Pick({"1", "2"});
                       });
                       for (auto& kv : dummy) c[kv.key()] = kv.value();
                     }
                     if (Coin(4)) {
                       json::object dummy;
                       AddKeyedList(dummy, "ports", "containerPort", {80, 443, 8080},
                                    [this](json::object& p) {
                                      if (Coin()) p["name"] = Pick({"http", "https"});
                                    });
                       for (auto& kv : dummy) c[kv.key()] = kv.value();
                     }
                   });
    }
    if (Coin(3)) {
      AddKeyedList(spec, "volumes", "name", {"data", "cfg", "new"}, [this](json::object& v) {
        if (Coin()) v["emptyDir"] = json::object();
        if (Coin(3)) {
          v["$retainKeys"] = json::array{"name", "emptyDir"};
          v["emptyDir"] = json::object();
        }
      });
    }
    if (!spec.empty()) patch["spec"] = std::move(spec);
    if (Coin(3)) {
      json::object status;
      AddKeyedList(status, "conditions", "type", {"Ready", "PodScheduled", "Initialized"},
                   [this](json::object& c) {
                     c["status"] = Pick({"True", "False"});
                   });
      patch["status"] = std::move(status);
    }
    return patch;
  }

  // The live Pod with some list items dropped and a server-injected container sometimes added,
  // so patches meet varied live lists.
  json::value CurrentPod() {
    json::value pod = json::parse(kPod);
    auto thin = [this](json::value& list) {
      json::array kept;
      for (json::value& v : list.get_array()) {
        if (!Coin(4)) kept.push_back(std::move(v));
      }
      list = std::move(kept);
    };
    thin(pod.at_pointer("/metadata/finalizers"));
    thin(pod.at_pointer("/spec/containers"));
    thin(pod.at_pointer("/spec/volumes"));
    thin(pod.at_pointer("/status/conditions"));
    json::array& containers = pod.at_pointer("/spec/containers").get_array();
    if (Coin(3)) containers.push_back(json::object{{"name", "injected"}, {"image", "proxy"}});
    if (Coin(3)) std::shuffle(containers.begin(), containers.end(), rng_);
    for (json::value& c : containers) {
      if (c.get_object().contains("env")) thin(c.get_object()["env"]);
    }
    return pod;
  }

 private:
  bool Coin(int n = 2) { return std::uniform_int_distribution<int>(0, n - 1)(rng_) == 0; }
  const char* Pick(std::initializer_list<const char*> xs) {
    return xs.begin()[std::uniform_int_distribution<size_t>(0, xs.size() - 1)(rng_)];
  }

  // A merge list patch as kubectl apply (or a hand-written patch) would send it: some items
  // changed or deleted, optionally with a $setElementOrder list that is usually consistent.
  template <typename Key, typename Fill>
  void AddKeyedList(json::object& parent, const char* list, const char* key,
                    std::initializer_list<Key> keys, Fill fill) {
    std::vector<Key> order(keys);
    std::shuffle(order.begin(), order.end(), rng_);
    json::array items, set_order;
    for (const Key& k : order) {
      int what = std::uniform_int_distribution<int>(0, 3)(rng_);
      if (what == 0) continue;  // not mentioned
      json::object item;
      item[key] = k;
      if (what == 1) {
        item["$patch"] = "delete";
      } else {
        fill(item);
      }
      if (what != 1) set_order.push_back(json::object{{key, k}});
      items.push_back(std::move(item));
    }
    if (Coin(6)) items.push_back(json::object{{"$patch", "replace"}});
    if (!items.empty() || Coin()) parent[list] = std::move(items);
    if (Coin()) {
      if (Coin(4)) std::shuffle(set_order.begin(), set_order.end(), rng_);  // maybe invalid
      if (Coin()) set_order.push_back(json::object{{key, *keys.begin()}});
      parent[std::string("$setElementOrder/") + list] = std::move(set_order);
    }
  }

  void AddScalarList(json::object& parent, const char* list,
                     std::initializer_list<const char*> values) {
    std::vector<const char*> vs(values);
    std::shuffle(vs.begin(), vs.end(), rng_);
    json::array add, del;
    for (const char* v : vs) {
      int what = std::uniform_int_distribution<int>(0, 2)(rng_);
      if (what == 1) add.push_back(json::string(v));
      if (what == 2) del.push_back(json::string(v));
    }
    if (!add.empty()) parent[list] = add;
    if (!del.empty()) parent[std::string("$deleteFromPrimitiveList/") + list] = del;
    if (Coin()) parent[std::string("$setElementOrder/") + list] = add;
  }

  std::mt19937 rng_;
};

int RandomCaseCount() {
  const char* env = std::getenv("SVCPLANE_PATCH_FUZZ_CASES");
  return env != nullptr ? std::atoi(env) : 25;
}

TEST(KubectlRandomDiffTest, RandomPodPatchesMatchKubectl) {
  if (access(kKubectl, X_OK) != 0) GTEST_SKIP() << "kubectl not installed";
  const int n = RandomCaseCount();
  int errors = 0;
  for (int i = 0; i < n; ++i) {
    PatchGen gen(1000 + i);
    std::string current = json::serialize(gen.CurrentPod());
    std::string patch = json::serialize(gen.Pod());
    SCOPED_TRACE("seed " + std::to_string(1000 + i) + " patch " + patch + " current " + current);
    KubectlResult want = RunKubectl("strategic", current, patch);
    Result<json::value> got =
        ApplyPatch(PatchType::kStrategicMerge, "Pod", json::parse(current), patch);
    ASSERT_EQ(got.ok(), want.ok) << (got.ok() ? want.error : got.status().ToString());
    if (!want.ok) {
      ++errors;
      std::string ours = "error: " + got.status().message();
      while (ours.ends_with('\n')) ours.pop_back();
      EXPECT_EQ(ours, want.error);
      continue;
    }
    json::value ours = *got;
    Normalize(ours);
    Normalize(want.object);
    ASSERT_EQ(ours, want.object) << "ours:    " << json::serialize(ours)
                                 << "\nkubectl: " << json::serialize(want.object);
  }
  RecordProperty("error_cases", errors);
}

}  // namespace
}  // namespace svcplane::apiserver::patch
