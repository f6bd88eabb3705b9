#include "apiserver/patch/strategic.h"

#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "apiserver/patch/schema.h"

namespace svcplane::apiserver::patch {
namespace {

namespace json = boost::json;

json::value J(std::string_view text) { return json::parse(text); }

const Schema& Kind(std::string_view kind) {
  const Schema* s = StrategicSchemaForKind(kind);
  EXPECT_NE(s, nullptr) << kind;
  return *s;
}

// Applies `patch` to `current` for `kind` and returns the result; fails the test on error.
json::value Apply(std::string_view kind, std::string_view current, std::string_view patch) {
  json::value target = J(current);
  Status s = ApplyStrategicMergePatch(target, J(patch), Kind(kind));
  EXPECT_TRUE(s.ok()) << s.ToString();
  return target;
}

Status ApplyError(std::string_view kind, std::string_view current, std::string_view patch) {
  json::value target = J(current);
  const json::value before = target;
  Status s = ApplyStrategicMergePatch(target, J(patch), Kind(kind));
  EXPECT_EQ(target, before) << "target must be untouched on error";
  return s;
}

// --- spec scenario 16 and Service lists ---

TEST(StrategicServiceTest, SetElementOrderKeepsPort80AndAdds443InOrder) {
  json::value got =
      Apply("Service", R"({"spec":{"ports":[{"port":80,"targetPort":8080,"protocol":"TCP"}]}})",
            R"({"spec":{"$setElementOrder/ports":[{"port":80},{"port":443}],
                                      "ports":[{"port":443,"targetPort":8443}]}})");
  EXPECT_EQ(got, J(R"({"spec":{"ports":[{"port":80,"targetPort":8080,"protocol":"TCP"},
                                        {"port":443,"targetPort":8443}]}})"));
}

TEST(StrategicServiceTest, SetElementOrderCanPutNewPortFirst) {
  json::value got = Apply("Service", R"({"spec":{"ports":[{"port":80}]}})",
                          R"({"spec":{"$setElementOrder/ports":[{"port":443},{"port":80}],
                                      "ports":[{"port":443}]}})");
  EXPECT_EQ(got, J(R"({"spec":{"ports":[{"port":443},{"port":80}]}})"));
}

TEST(StrategicServiceTest, KubectlApplyThreeWayPatch) {
  // kubectl apply after editing the manifest: selector changed, port 8080 removed, 443 added,
  // an annotation removed, clusterIPs (atomic) untouched by the patch.
  json::value got = Apply("Service", R"({
      "metadata":{"name":"web","annotations":{"a":"1","b":"2"},"labels":{"app":"web"}},
      "spec":{"selector":{"app":"web","tier":"fe"},"clusterIP":"10.0.0.7",
              "clusterIPs":["10.0.0.7"],"type":"ClusterIP",
              "ports":[{"name":"http","port":80,"targetPort":8080,"protocol":"TCP"},
                       {"name":"alt","port":8080,"targetPort":8080,"protocol":"TCP"}]},
      "status":{"loadBalancer":{}}})",
                          R"({
      "metadata":{"annotations":{"b":null}},
      "spec":{"$setElementOrder/ports":[{"port":80},{"port":443}],
              "ports":[{"name":"https","port":443,"targetPort":8443},
                       {"$patch":"delete","port":8080}],
              "selector":{"tier":null,"version":"v2"}}})");
  EXPECT_EQ(got, J(R"({
      "metadata":{"name":"web","annotations":{"a":"1"},"labels":{"app":"web"}},
      "spec":{"selector":{"app":"web","version":"v2"},"clusterIP":"10.0.0.7",
              "clusterIPs":["10.0.0.7"],"type":"ClusterIP",
              "ports":[{"name":"http","port":80,"targetPort":8080,"protocol":"TCP"},
                       {"name":"https","port":443,"targetPort":8443}]},
      "status":{"loadBalancer":{}}})"));
}

TEST(StrategicServiceTest, AtomicListsReplace) {
  json::value got = Apply("Service",
                          R"({"spec":{"clusterIPs":["10.0.0.1","fd00::1"],
                                      "ipFamilies":["IPv4","IPv6"],"externalIPs":["1.2.3.4"]}})",
                          R"({"spec":{"ipFamilies":["IPv4"],"externalIPs":["5.6.7.8"]}})");
  EXPECT_EQ(got, J(R"({"spec":{"clusterIPs":["10.0.0.1","fd00::1"],"ipFamilies":["IPv4"],
                               "externalIPs":["5.6.7.8"]}})"));
}

TEST(StrategicServiceTest, PortWithoutMergeKeyIsBadRequest) {
  Status s = ApplyError("Service", R"({"spec":{"ports":[{"port":80}]}})",
                        R"({"spec":{"ports":[{"targetPort":441}]}})");
  EXPECT_EQ(s.code(), Code::kBadRequest);
  EXPECT_EQ(s.message(), "map: map[targetPort:441] does not contain declared merge key: port");
}

// --- Pods ---

constexpr std::string_view kPod = R"({
  "apiVersion":"v1","kind":"Pod",
  "metadata":{"name":"web-0","namespace":"default","labels":{"app":"web","tier":"fe"},
              "finalizers":["a/x"],
              "ownerReferences":[{"apiVersion":"apps/v1","kind":"StatefulSet","name":"web",
                                  "uid":"u1","controller":true}]},
  "spec":{"nodeName":"n1",
          "containers":[
            {"name":"app","image":"nginx:1.25","terminationMessagePath":"/dev/termination-log",
             "ports":[{"containerPort":80,"protocol":"TCP"}],
             "env":[{"name":"A","value":"1"},{"name":"C","value":"3"}],
             "volumeMounts":[{"name":"data","mountPath":"/data"}]},
            {"name":"sidecar","image":"envoy:1"}],
          "volumes":[{"name":"data","emptyDir":{}}],
          "tolerations":[{"key":"k","operator":"Exists"}]},
  "status":{"phase":"Running","podIP":"10.1.0.5","podIPs":[{"ip":"10.1.0.5"}],
            "conditions":[{"type":"Ready","status":"False"},
                          {"type":"PodScheduled","status":"True"}]}})";

TEST(StrategicPodTest, KubectlApplyChangesImageAndEnvKeepingServerFields) {
  json::value got = Apply("Pod", kPod, R"({
    "metadata":{"labels":{"tier":null,"version":"2"}},
    "spec":{"$setElementOrder/containers":[{"name":"app"},{"name":"sidecar"}],
            "containers":[{"name":"app","image":"nginx:1.26",
                           "$setElementOrder/env":[{"name":"A"},{"name":"B"},{"name":"C"}],
                           "env":[{"name":"B","value":"2"}]}]}})");
  const json::value& app = got.at_pointer("/spec/containers/0");
  EXPECT_EQ(app.at("image"), "nginx:1.26");
  EXPECT_EQ(app.at("terminationMessagePath"), "/dev/termination-log");  // server-set, kept
  EXPECT_EQ(app.at("env"), J(R"([{"name":"A","value":"1"},{"name":"B","value":"2"},
                                 {"name":"C","value":"3"}])"));
  EXPECT_EQ(got.at_pointer("/spec/containers/1/name"), "sidecar");
  EXPECT_EQ(got.at_pointer("/metadata/labels"), J(R"({"app":"web","version":"2"})"));
  EXPECT_EQ(got.at_pointer("/status/phase"), "Running");
}

TEST(StrategicPodTest, DeleteContainerAndPortByMergeKey) {
  json::value got = Apply("Pod", kPod, R"({"spec":{
      "containers":[{"name":"sidecar","$patch":"delete"},
                    {"name":"app","ports":[{"containerPort":80,"$patch":"delete"},
                                           {"containerPort":8080}]}]}})");
  EXPECT_EQ(got.at_pointer("/spec/containers").as_array().size(), 1u);
  EXPECT_EQ(got.at_pointer("/spec/containers/0/ports"), J(R"([{"containerPort":8080}])"));
}

TEST(StrategicPodTest, NewContainerWithoutSetElementOrderComesFirstAsUpstream) {
  // mergeSortedSlice puts patch items that are not in the live list before server-only items.
  json::value got = Apply("Pod", kPod, R"({"spec":{"containers":[{"name":"debug","image":"b"}]}})");
  const json::array& cs = got.at_pointer("/spec/containers").as_array();
  ASSERT_EQ(cs.size(), 3u);
  EXPECT_EQ(cs[0].at("name"), "debug");
  EXPECT_EQ(cs[1].at("name"), "app");
  EXPECT_EQ(cs[2].at("name"), "sidecar");
}

TEST(StrategicPodTest, VolumeMountsMergeByMountPath) {
  json::value got = Apply("Pod", kPod, R"({"spec":{"containers":[{"name":"app",
      "volumeMounts":[{"mountPath":"/data","readOnly":true},{"name":"cfg","mountPath":"/cfg"}]}]}})");
  EXPECT_EQ(got.at_pointer("/spec/containers/0/volumeMounts"),
            J(R"([{"name":"data","mountPath":"/data","readOnly":true},
                  {"name":"cfg","mountPath":"/cfg"}])"));
}

TEST(StrategicPodTest, RetainKeysSwitchesVolumeSource) {
  // kubectl apply sends $retainKeys for volumes (patchStrategy "merge,retainKeys").
  json::value got = Apply("Pod", kPod, R"({"spec":{"volumes":[
      {"name":"data","$retainKeys":["configMap","name"],"configMap":{"name":"cm"}}]}})");
  EXPECT_EQ(got.at_pointer("/spec/volumes"), J(R"([{"name":"data","configMap":{"name":"cm"}}])"));
}

TEST(StrategicPodTest, RetainKeysRejectsPatchFieldsNotListed) {
  Status s = ApplyError("Pod", kPod, R"({"spec":{"volumes":[
      {"name":"data","$retainKeys":["name"],"configMap":{"name":"cm"}}]}})");
  EXPECT_EQ(s.code(), Code::kBadRequest);
  EXPECT_EQ(s.message(), "invalid patch format of retainKeys");
}

TEST(StrategicPodTest, TolerationsAreAtomic) {
  json::value got = Apply("Pod", kPod, R"({"spec":{"tolerations":[{"key":"other"}]}})");
  EXPECT_EQ(got.at_pointer("/spec/tolerations"), J(R"([{"key":"other"}])"));
}

TEST(StrategicPodTest, StatusConditionsMergeByTypeAndPodIPsByIp) {
  // What the kubelet sends on /status.
  json::value got = Apply("Pod", kPod, R"({"status":{
      "$setElementOrder/conditions":[{"type":"Ready"},{"type":"PodScheduled"}],
      "conditions":[{"type":"Ready","status":"True"}],
      "podIPs":[{"ip":"fd00::5"}]}})");
  EXPECT_EQ(got.at_pointer("/status/conditions"),
            J(R"([{"type":"Ready","status":"True"},{"type":"PodScheduled","status":"True"}])"));
  EXPECT_EQ(got.at_pointer("/status/podIPs"), J(R"([{"ip":"fd00::5"},{"ip":"10.1.0.5"}])"));
}

TEST(StrategicPodTest, FinalizersMergeAsSetAndDeleteFromPrimitiveList) {
  json::value got = Apply("Pod", kPod, R"({"metadata":{
      "$setElementOrder/finalizers":["b/y","a/x"],"finalizers":["b/y","a/x"]}})");
  EXPECT_EQ(got.at_pointer("/metadata/finalizers"), J(R"(["b/y","a/x"])"));
  got = Apply("Pod", json::serialize(got),
              R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a/x"]}})");
  EXPECT_EQ(got.at_pointer("/metadata/finalizers"), J(R"(["b/y"])"));
}

TEST(StrategicPodTest, DeleteFromMissingPrimitiveListIsNoop) {
  json::value got = Apply("Pod", R"({"metadata":{"name":"p"}})",
                          R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["x"]}})");
  EXPECT_EQ(got, J(R"({"metadata":{"name":"p"}})"));
}

TEST(StrategicPodTest, OwnerReferencesMergeByUid) {
  json::value got = Apply("Pod", kPod, R"({"metadata":{"ownerReferences":[
      {"apiVersion":"v1","kind":"Node","name":"n1","uid":"u2"},
      {"uid":"u1","blockOwnerDeletion":true}]}})");
  const json::array& refs = got.at_pointer("/metadata/ownerReferences").as_array();
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0].at("uid"), "u2");
  EXPECT_EQ(refs[1].at("name"), "web");
  EXPECT_EQ(refs[1].at("blockOwnerDeletion"), true);
}

TEST(StrategicPodTest, NewValuesLoseDirectivesAndNulls) {
  // removeDirectives + discardNullValuesFromPatch on values that have no live counterpart.
  json::value got = Apply("Pod", R"({"metadata":{"name":"p"}})", R"({"spec":{
      "containers":[{"name":"a","image":"x","args":null},{"name":"b","$patch":"delete"}],
      "securityContext":{"runAsUser":null,"fsGroup":1}}})");
  EXPECT_EQ(got, J(R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"a","image":"x"}],
                       "securityContext":{"fsGroup":1}}})"));
}

TEST(StrategicPodTest, ReplaceDirectiveOnListAndMap) {
  json::value got = Apply("Pod", kPod, R"({
      "metadata":{"labels":{"$patch":"replace","only":"this"}},
      "spec":{"containers":[{"$patch":"replace"},{"name":"solo","image":"i"}]}})");
  EXPECT_EQ(got.at_pointer("/metadata/labels"), J(R"({"only":"this"})"));
  EXPECT_EQ(got.at_pointer("/spec/containers"), J(R"([{"name":"solo","image":"i"}])"));
}

TEST(StrategicPodTest, DeleteDirectiveOnMapEmptiesIt) {
  json::value got = Apply("Pod", kPod, R"({"metadata":{"labels":{"$patch":"delete"}}})");
  EXPECT_EQ(got.at_pointer("/metadata/labels"), json::object());
}

TEST(StrategicPodTest, UnknownFieldsMergeMapsAndReplaceLists) {
  json::value got =
      Apply("Pod", R"({"spec":{"x":{"a":1,"l":[1,2]}}})", R"({"spec":{"x":{"b":2,"l":[3]}}})");
  EXPECT_EQ(got, J(R"({"spec":{"x":{"a":1,"b":2,"l":[3]}}})"));
}

TEST(StrategicPodTest, TypeChangeReplacesValue) {
  json::value got = Apply("Pod", R"({"spec":{"x":[1],"y":"s","z":{"a":1}}})",
                          R"({"spec":{"x":{"k":1},"y":2,"z":"str"}})");
  EXPECT_EQ(got, J(R"({"spec":{"x":{"k":1},"y":2,"z":"str"}})"));
}

// --- Nodes, Namespaces, EndpointSlices, Events ---

TEST(StrategicNodeTest, PodCIDRsSetAddressesByTypeTaintsAtomic) {
  json::value got = Apply("Node", R"({
      "spec":{"podCIDRs":["10.1.0.0/24"],"taints":[{"key":"a","effect":"NoSchedule"}]},
      "status":{"addresses":[{"type":"InternalIP","address":"1.1.1.1"},
                             {"type":"Hostname","address":"n1"}],
                "conditions":[{"type":"Ready","status":"False","reason":"x"}]}})",
                          R"({
      "spec":{"podCIDRs":["fd00:1::/64"],"taints":[]},
      "status":{"addresses":[{"type":"InternalIP","address":"2.2.2.2"}],
                "conditions":[{"type":"Ready","status":"True"}]}})");
  // New set members go before the live ones (mergeSortedSlice), as upstream.
  EXPECT_EQ(got.at_pointer("/spec/podCIDRs"), J(R"(["fd00:1::/64","10.1.0.0/24"])"));
  EXPECT_EQ(got.at_pointer("/spec/taints"), json::array());
  EXPECT_EQ(got.at_pointer("/status/addresses"),
            J(R"([{"type":"InternalIP","address":"2.2.2.2"},{"type":"Hostname","address":"n1"}])"));
  EXPECT_EQ(got.at_pointer("/status/conditions"),
            J(R"([{"type":"Ready","status":"True","reason":"x"}])"));
}

TEST(StrategicNamespaceTest, ConditionsByTypeAndFinalizersSpecAtomic) {
  json::value got = Apply("Namespace", R"({"spec":{"finalizers":["kubernetes"]},
      "status":{"phase":"Terminating","conditions":[{"type":"A","status":"True"}]}})",
                          R"({"spec":{"finalizers":[]},
      "status":{"conditions":[{"type":"B","status":"False"}]}})");
  EXPECT_EQ(got.at_pointer("/spec/finalizers"), json::array());
  EXPECT_EQ(got.at_pointer("/status/conditions"),
            J(R"([{"type":"B","status":"False"},{"type":"A","status":"True"}])"));
}

TEST(StrategicEndpointSliceTest, EndpointsAndPortsAreAtomic) {
  json::value got = Apply("EndpointSlice",
                          R"({"addressType":"IPv4","endpoints":[{"addresses":["1.1.1.1"]}],
                              "ports":[{"name":"http","port":80}]})",
                          R"({"endpoints":[{"addresses":["2.2.2.2"]}],"ports":[{"port":81}]})");
  EXPECT_EQ(got, J(R"({"addressType":"IPv4","endpoints":[{"addresses":["2.2.2.2"]}],
                       "ports":[{"port":81}]})"));
}

TEST(StrategicEndpointsTest, SubsetsAreAtomic) {
  json::value got = Apply("Endpoints", R"({"subsets":[{"addresses":[{"ip":"1.1.1.1"}]}]})",
                          R"({"subsets":[{"addresses":[{"ip":"2.2.2.2"}]}]})");
  EXPECT_EQ(got, J(R"({"subsets":[{"addresses":[{"ip":"2.2.2.2"}]}]})"));
}

TEST(StrategicEventTest, EventRecorderCountPatch) {
  // client-go's event recorder bumps count/lastTimestamp/message with a strategic patch.
  json::value got = Apply("Event",
                          R"({"metadata":{"name":"e1"},"count":1,"message":"m1",
                              "lastTimestamp":"2024-01-01T00:00:00Z","reason":"Pulled"})",
                          R"({"count":2,"lastTimestamp":"2024-01-01T00:01:00Z","message":"m2"})");
  EXPECT_EQ(got, J(R"({"metadata":{"name":"e1"},"count":2,"message":"m2",
                       "lastTimestamp":"2024-01-01T00:01:00Z","reason":"Pulled"})"));
}

// --- directive and shape errors ---

TEST(StrategicErrorTest, PatchMergeDirectiveInMapIsUnknownPatchType) {
  Status s = ApplyError("Pod", kPod, R"({"metadata":{"labels":{"$patch":"merge"}}})");
  EXPECT_EQ(s.code(), Code::kBadRequest);
  EXPECT_EQ(s.message().rfind("unknown patch type: merge in map: map[$patch:merge]", 0), 0u)
      << s.message();
}

TEST(StrategicErrorTest, PatchMergeDirectiveInListIsRejectedAsUpstream) {
  Status s = ApplyError("Pod", kPod, R"({"spec":{"containers":[{"$patch":"merge"}]}})");
  EXPECT_EQ(s.code(), Code::kBadRequest);
  EXPECT_EQ(s.message(), "merging lists cannot yet be specified in the patch");
}

TEST(StrategicErrorTest, UnknownListDirective) {
  Status s = ApplyError("Pod", kPod, R"({"spec":{"containers":[{"name":"a","$patch":"nuke"}]}})");
  EXPECT_EQ(s.code(), Code::kBadRequest);
  EXPECT_NE(s.message().find("unknown patch type: nuke"), std::string::npos);
}

TEST(StrategicErrorTest, DeleteDirectiveWithoutMergeKey) {
  Status s = ApplyError("Pod", kPod, R"({"spec":{"containers":[{"$patch":"delete"}]}})");
  EXPECT_EQ(s.code(), Code::kBadRequest);
  EXPECT_EQ(s.message(), "map: map[$patch:delete] does not contain declared merge key: name");
}

TEST(StrategicErrorTest, MalformedParallelListKeys) {
  Status s = ApplyError("Pod", kPod, R"({"metadata":{"$setElementOrder":["a/x"]}})");
  EXPECT_EQ(s.code(), Code::kBadRequest);
  EXPECT_EQ(s.message(), "invalid patch format of setElementOrder list");
  s = ApplyError("Pod", kPod, R"({"metadata":{"$deleteFromPrimitiveList":["a/x"]}})");
  EXPECT_EQ(s.code(), Code::kBadRequest);
  EXPECT_EQ(s.message(), "invalid patch format of primitive list");
  s = ApplyError("Pod", kPod, R"({"spec":{"$retainKeys":"nodeName"}})");
  EXPECT_EQ(s.code(), Code::kBadRequest);
  EXPECT_EQ(s.message(), "invalid patch format of retainKeys");
}

TEST(StrategicErrorTest, SetElementOrderMustBeAList) {
  Status s = ApplyError("Pod", kPod, R"({"spec":{"$setElementOrder/containers":{"name":"a"}}})");
  EXPECT_EQ(s.code(), Code::kBadRequest);
  EXPECT_EQ(s.message(), "expected a []interface {}, but received a map[string]interface {}");
}

TEST(StrategicErrorTest, ListsOfListsAreInvalid) {
  Status s = ApplyError("Pod", R"({"metadata":{"finalizers":[["a"]]}})",
                        R"({"metadata":{"finalizers":[["b"]]}})");
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_EQ(s.message(), "lists of lists are not supported");
}

TEST(StrategicErrorTest, MixedElementTypes) {
  Status s = ApplyError("Pod", R"({"metadata":{"finalizers":["a"]}})",
                        R"({"metadata":{"finalizers":[1]}})");
  EXPECT_EQ(s.code(), Code::kBadRequest);
  EXPECT_EQ(s.message().rfind("list element types are not identical", 0), 0u) << s.message();
}

TEST(StrategicErrorTest, PatchMustBeAnObject) {
  json::value target = J(kPod);
  Status s = ApplyStrategicMergePatch(target, J("[1]"), Kind("Pod"));
  EXPECT_EQ(s.code(), Code::kBadRequest);
  EXPECT_EQ(s.message(),
            "json: cannot unmarshal array into Go value of type map[string]interface {}");
  EXPECT_TRUE(ApplyStrategicMergePatch(target, J("null"), Kind("Pod")).ok());
  EXPECT_EQ(target, J(kPod));
}

TEST(StrategicErrorTest, ErrorDeepInsideLeavesTargetUntouched) {
  // The first list merges fine before the second fails; nothing of it may leak out.
  Status s = ApplyError("Pod", kPod, R"({"metadata":{"labels":{"new":"x"}},
      "spec":{"containers":[{"name":"app","image":"changed"},{"image":"no-name"}]}})");
  EXPECT_EQ(s.code(), Code::kBadRequest);
}

}  // namespace
}  // namespace svcplane::apiserver::patch
