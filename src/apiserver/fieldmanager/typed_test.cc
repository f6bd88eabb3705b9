#include "apiserver/fieldmanager/typed.h"

#include <chrono>

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace svcplane::apiserver::fieldmanager {
namespace {

namespace json = boost::json;

const TypeSchema& Schema(std::string_view kind) {
  const TypeSchema* s = SchemaForKind(kind);
  EXPECT_NE(s, nullptr) << kind;
  return *s;
}

// §2.5's always-stripped paths, so that sets compare with the spec's FieldsV1 examples.
Set Stripped(const Set& s) {
  Set strip;
  for (const char* f : {"apiVersion", "kind"}) strip.Insert({PathElement::Field(f)});
  for (const char* f : {"name", "namespace", "creationTimestamp", "uid", "resourceVersion"}) {
    strip.Insert({PathElement::Field("metadata"), PathElement::Field(f)});
  }
  return s.Difference(strip);
}

Set Without(const Set& s, const char* top_field) {
  Set drop;
  drop.Insert({PathElement::Field(top_field)});
  return s.RecursiveDifference(drop);
}

std::string ApplySet(std::string_view kind, std::string_view body) {
  std::vector<std::string> errors;
  Result<Set> set = ToFieldSet(Schema(kind), json::parse(body), &errors);
  EXPECT_TRUE(set.ok()) << set.status().ToString();
  return set.ok() ? Stripped(*set).ToFieldsV1() : "";
}

std::string ApplyError(std::string_view kind, std::string_view body) {
  std::vector<std::string> errors;
  Result<Set> set = ToFieldSet(Schema(kind), json::parse(body), &errors);
  EXPECT_FALSE(set.ok());
  return set.ok() ? "" : set.status().message();
}

constexpr std::string_view kWebApply =
    R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"default",)"
    R"("labels":{"app":"web"}},"spec":{"ports":[{"name":"http","port":80,"targetPort":8080}],)"
    R"("selector":{"app":"web"}}})";

TEST(ToFieldSetTest, ServiceApplySetIsTheSpecsBytes) {
  std::string fields = ApplySet("Service", kWebApply);
  EXPECT_EQ(fields,
            R"({"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:ports":{"k:{\"port\":80,)"
            R"(\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:targetPort":{}}},)"
            R"("f:selector":{}}})");
  EXPECT_EQ(fields.size(), 169u);
}

TEST(ToFieldSetTest, PodApplySet) {
  std::string fields = ApplySet(
      "Pod", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[)"
             R"({"name":"nginx","image":"nginx","ports":[{"containerPort":80}],)"
             R"("env":[{"name":"MODE","value":"x"}]}]}})");
  EXPECT_EQ(fields, R"({"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:env":{)"
                    R"("k:{\"name\":\"MODE\"}":{".":{},"f:name":{},"f:value":{}}},"f:image":{},)"
                    R"("f:name":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{)"
                    R"(".":{},"f:containerPort":{}}}}}}})");
}

TEST(ToFieldSetTest, AtomicNodesAreLeavesAndUndeclaredKeysAreMembers) {
  // Atomic structs (ownerReferences items, valueFrom refs) and lists own everything below.
  EXPECT_EQ(ApplySet("Pod", R"({"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"X",)"
                            R"("name":"x","uid":"u1"}],"finalizers":["a/b"],)"
                            R"("annotations":{"k":"v"}},"spec":{"containers":[{"name":"c",)"
                            R"("command":["sh"],"env":[{"name":"E","valueFrom":{"fieldRef":)"
                            R"({"fieldPath":"metadata.name"}}}]}]}})"),
            R"({"f:metadata":{"f:annotations":{"f:k":{}},"f:finalizers":{"v:\"a/b\"":{}},)"
            R"("f:ownerReferences":{"k:{\"uid\":\"u1\"}":{}}},"f:spec":{"f:containers":{)"
            R"("k:{\"name\":\"c\"}":{".":{},"f:command":{},"f:env":{"k:{\"name\":\"E\"}":{)"
            R"(".":{},"f:name":{},"f:valueFrom":{"f:fieldRef":{}}}},"f:name":{}}}}})");
  // SMD: an empty granular map or list contributes nothing; an empty atomic one is a leaf.
  EXPECT_EQ(ApplySet("Service", R"({"metadata":{"labels":{},"finalizers":[]},)"
                                R"("spec":{"selector":{},"externalIPs":[]}})"),
            R"({"f:spec":{"f:externalIPs":{},"f:selector":{}}})");
}

TEST(ToFieldSetTest, UnknownField) {
  EXPECT_EQ(ApplyError("Service", R"({"spec":{"foo":1}})"),
            ".spec.foo: field not declared in schema");
  EXPECT_EQ(ApplyError("Service", R"({"metadata":{"name":"web","bogus":true}})"),
            ".metadata.bogus: field not declared in schema");
  // Partially modelled structs accept upstream fields we keep verbatim (deduced).
  EXPECT_EQ(ApplySet("Pod", R"({"spec":{"schedulerName":"s","shareProcessNamespace":true,)"
                            R"("resourceClaims2":{"a":{"b":1}}}})"),
            R"({"f:spec":{"f:resourceClaims2":{".":{},"f:a":{".":{},"f:b":{}}},)"
            R"("f:schedulerName":{},"f:shareProcessNamespace":{}}})");
}

TEST(ToFieldSetTest, DuplicateKey) {
  EXPECT_EQ(
      ApplyError("Service", R"({"spec":{"ports":[{"port":80},{"port":80,"protocol":"TCP"}]}})"),
      R"(.spec.ports: duplicate entries for key [port=80,protocol="TCP"])");
  EXPECT_EQ(ApplyError("Service", R"({"metadata":{"finalizers":["a","a"]}})"),
            R"(.metadata.finalizers: duplicate entries for key [="a"])");
}

TEST(ToFieldSetTest, MissingKeyField) {
  EXPECT_EQ(ApplyError("Pod", R"({"spec":{"containers":[{"name":"c","env":[{"value":"x"}]}]}})"),
            R"(.spec.containers[name="c"].env: element 0: associative list with keys has an )"
            R"(element that omits key field "name" (and doesn't have default value))");
  EXPECT_EQ(ApplyError("Service", R"({"spec":{"ports":[{"name":"x"}]}})"),
            R"(.spec.ports: element 0: associative list with keys has an element that omits )"
            R"(key field "port" (and doesn't have default value))");
  EXPECT_EQ(ApplyError("Service", R"({"spec":{"ports":[null, 3]}})"),
            "errors:\n"
            "  .spec.ports: element 0: associative list with keys may not have a null element\n"
            "  .spec.ports: element 1: associative list with keys may not have non-map elements");
}

TEST(ToFieldSetTest, TypeMismatch) {
  EXPECT_EQ(ApplyError("Service", R"({"spec":{"ports":[{"port":80,"nodePort":"x"}]}})"),
            R"(.spec.ports[port=80,protocol="TCP"].nodePort: expected numeric (int or float), )"
            "got string");
  EXPECT_EQ(ApplyError("Service", R"({"spec":{"clusterIP":5}})"),
            ".spec.clusterIP: expected string, got &value.valueUnstructured{Value:5}");
  EXPECT_EQ(ApplyError("Service", R"({"spec":{"publishNotReadyAddresses":"yes"}})"),
            ".spec.publishNotReadyAddresses: expected boolean, got &{yes}");
  EXPECT_EQ(ApplyError("Service", R"({"spec":{"selector":"app"}})"),
            ".spec.selector: expected map, got &{app}");
  EXPECT_EQ(ApplyError("Service", R"({"spec":{"ports":{"port":80}}})"),
            ".spec.ports: expected list, got &{map[port:80]}");
  // Atomic nodes are validated all the way down.
  EXPECT_EQ(ApplyError("Pod", R"({"spec":{"tolerations":[{"key":1}]}})"),
            ".spec.tolerations[0].key: expected string, got &value.valueUnstructured{Value:1}");
  // int-or-string accepts both.
  EXPECT_EQ(ApplySet("Service", R"({"spec":{"ports":[{"port":80,"targetPort":"http"}]}})"),
            R"({"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},)"
            R"("f:port":{},"f:targetPort":{}}}}})");
  std::vector<std::string> errors;
  Result<Set> r = ToFieldSet(Schema("Service"),
                             json::parse(R"({"spec":{"clusterIP":5,"type":true}})"), &errors);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(errors.size(), 2u);
}

TEST(ToFieldSetTest, StatusConditionsAreKeyedByType) {
  // Scenario 19's body (the reset filter that drops spec on /status is the field manager's).
  EXPECT_EQ(ApplySet("Pod", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},)"
                            R"("spec":{"nodeName":"x"},"status":{"conditions":[)"
                            R"({"type":"Example","status":"True"}]}})"),
            R"({"f:spec":{"f:nodeName":{}},"f:status":{"f:conditions":{)"
            R"("k:{\"type\":\"Example\"}":{".":{},"f:status":{},"f:type":{}}}}})");
}

TEST(TypedTest, BadShapesNeverCrash) {
  const TypeSchema& s = Schema("Service");
  EXPECT_EQ(ApplyError("Service", R"("hello")"), "expected map, got &{hello}");
  EXPECT_EQ(ApplyError("Service", R"({"spec":[1]})"), ".spec: expected map, got &{[1]}");
  json::value odd = json::parse(R"({"spec":"x","metadata":{"labels":[1,{"a":null}]}})");
  json::value good = json::parse(kWebApply);
  EXPECT_FALSE(Compare(s, odd, good).IsSame());
  EXPECT_FALSE(Compare(s, good, odd).IsSame());
  EXPECT_FALSE(Compare(s, json::value("x"), good).IsSame());
  EXPECT_TRUE(Merge(s, odd, good).ok());
  EXPECT_TRUE(Merge(s, good, odd).ok());
  Set all;
  all.Insert({PathElement::Field("spec"), PathElement::Field("ports"),
              PathElement::Key({{"port", 80}, {"protocol", "TCP"}}), PathElement::Field("name")});
  all.Insert(
      {PathElement::Field("metadata"), PathElement::Field("labels"), PathElement::Field("x")});
  EXPECT_TRUE(RemoveItems(s, odd, all).is_object());
}

constexpr std::string_view kWebCreated =
    R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"default",)"
    R"("labels":{"app":"web"}},"spec":{"ports":[{"name":"http","protocol":"TCP","port":80,)"
    R"("targetPort":8080}],"selector":{"app":"web"},"type":"ClusterIP",)"
    R"("sessionAffinity":"None","internalTrafficPolicy":"Cluster"},)"
    R"("status":{"loadBalancer":{}}})";

TEST(CompareTest, KubectlCreateOfTheService) {
  json::value zero = json::parse(R"({"metadata":{},"spec":{},"status":{}})");
  Comparison c = Compare(Schema("Service"), zero, json::parse(kWebCreated));
  EXPECT_TRUE(c.modified.Empty());
  EXPECT_TRUE(c.removed.Empty());
  EXPECT_EQ(Without(Stripped(c.added), "status").ToFieldsV1(),
            R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{)"
            R"("f:internalTrafficPolicy":{},"f:ports":{".":{},"k:{\"port\":80,)"
            R"(\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{},)"
            R"("f:targetPort":{}}},"f:selector":{},"f:sessionAffinity":{},"f:type":{}}})");
}

TEST(CompareTest, ModifiedRemovedAndSame) {
  json::value live = json::parse(kWebCreated);
  json::value next = live;
  next.at("spec").at("ports").at(0).as_object()["targetPort"] = 9090;
  next.at("metadata").at("labels").as_object().erase("app");
  next.at("spec").at("selector").as_object()["tier"] = "fe";
  Comparison c = Compare(Schema("Service"), live, next);
  EXPECT_EQ(c.modified.ToFieldsV1(),
            R"({"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{)"
            R"("f:targetPort":{}}},"f:selector":{}}})");
  EXPECT_EQ(c.removed.ToFieldsV1(), R"({"f:metadata":{"f:labels":{"f:app":{}}}})");
  EXPECT_TRUE(c.added.Empty());
  EXPECT_TRUE(Compare(Schema("Service"), live, live).IsSame());
  // 80 and 80.0 are the same value.
  json::value f = live;
  f.at("spec").at("ports").at(0).as_object()["port"] = 80.0;
  EXPECT_TRUE(Compare(Schema("Service"), live, f).IsSame());
}

TEST(CompareTest, LiveDuplicateKeysAreLenient) {
  json::value a = json::parse(R"({"spec":{"containers":[{"name":"c","env":[)"
                              R"({"name":"A","value":"1"},{"name":"A","value":"2"}]}]}})");
  json::value b = a;
  b.at("spec").at("containers").at(0).as_object()["image"] = "x";
  Comparison c = Compare(Schema("Pod"), a, b);
  EXPECT_EQ(c.added.ToFieldsV1(),
            R"({"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{"f:image":{}}}}})");
}

json::value MergeOf(std::string_view kind, std::string_view live, std::string_view config) {
  Result<json::value> merged = Merge(Schema(kind), json::parse(live), json::parse(config));
  EXPECT_TRUE(merged.ok()) << merged.status().ToString();
  return merged.ok() ? *merged : json::value();
}

std::vector<int64_t> Ports(const json::value& svc) {
  std::vector<int64_t> out;
  for (const auto& p : svc.at("spec").at("ports").as_array())
    out.push_back(p.at("port").as_int64());
  return out;
}

TEST(MergeTest, AssociativeListOrder) {
  json::value m = MergeOf("Service", R"({"spec":{"ports":[{"port":80},{"port":81}]}})",
                          R"({"spec":{"ports":[{"port":82},{"port":80}]}})");
  EXPECT_EQ(Ports(m), (std::vector<int64_t>{82, 80, 81}));
  auto finalizers = [](std::string_view live, std::string_view config) {
    return json::serialize(MergeOf("Service", live, config).at("metadata").at("finalizers"));
  };
  EXPECT_EQ(finalizers(R"({"metadata":{"finalizers":["a","b","c"]}})",
                       R"({"metadata":{"finalizers":["c","a"]}})"),
            R"(["b","c","a"])");
  EXPECT_EQ(finalizers(R"({"metadata":{"finalizers":["a","b"]}})",
                       R"({"metadata":{"finalizers":["a","x"]}})"),
            R"(["a","b","x"])");
  // Set union (scenario 37).
  EXPECT_EQ(finalizers(R"({"metadata":{"finalizers":["x/a"]}})",
                       R"({"metadata":{"finalizers":["x/b"]}})"),
            R"(["x/a","x/b"])");
  EXPECT_EQ(finalizers(R"({"metadata":{"finalizers":["a","b"]}})",
                       R"({"metadata":{"finalizers":["b","a"]}})"),
            R"(["b","a"])");
}

TEST(MergeTest, ItemsMergePerFieldAtomicNodesAreReplaced) {
  json::value m =
      MergeOf("Service",
              R"({"metadata":{"labels":{"a":"1"}},"spec":{"selector":{"app":"web","tier":"fe"},)"
              R"("ports":[{"port":80,"protocol":"TCP","targetPort":8080,"nodePort":30000}],)"
              R"("externalIPs":["1.1.1.1","2.2.2.2"],"type":"NodePort"}})",
              R"({"metadata":{"labels":{"b":"2"}},"spec":{"selector":{"app":"web2"},)"
              R"("ports":[{"port":80,"targetPort":9090}],"externalIPs":["3.3.3.3"]}})");
  EXPECT_EQ(json::serialize(m),
            R"({"metadata":{"labels":{"a":"1","b":"2"}},"spec":{"selector":{"app":"web2"},)"
            R"("ports":[{"port":80,"protocol":"TCP","targetPort":9090,"nodePort":30000}],)"
            R"("externalIPs":["3.3.3.3"],"type":"NodePort"}})");
}

TEST(MergeTest, ConfigDuplicatesAreErrorsLiveDuplicatesAreKept) {
  Result<json::value> bad =
      Merge(Schema("Service"), json::parse(R"({"spec":{"ports":[{"port":81}]}})"),
            json::parse(R"({"spec":{"ports":[{"port":80},{"port":80}]}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            R"(.spec.ports: duplicate entries for key [port=80,protocol="TCP"])");
  json::value m = MergeOf("Pod",
                          R"({"spec":{"containers":[{"name":"c","env":[{"name":"A","value":"1"},)"
                          R"({"name":"A","value":"2"},{"name":"B","value":"3"}]}]}})",
                          R"({"spec":{"containers":[{"name":"c","image":"i"}]}})");
  EXPECT_EQ(json::serialize(m.at("spec").at("containers").at(0).at("env")),
            R"([{"name":"A","value":"1"},{"name":"A","value":"2"},{"name":"B","value":"3"}])");
}

TEST(RemoveItemsTest, Prune) {
  json::value live = json::parse(kWebCreated);
  live.at("metadata").at("labels").as_object()["tier"] = "fe";
  Set remove;
  remove.Insert(
      {PathElement::Field("metadata"), PathElement::Field("labels"), PathElement::Field("tier")});
  PathElement port80 = PathElement::Key({{"port", 80}, {"protocol", "TCP"}});
  remove.Insert({PathElement::Field("spec"), PathElement::Field("ports"), port80,
                 PathElement::Field("targetPort")});
  json::value out = RemoveItems(Schema("Service"), live, remove);
  EXPECT_EQ(json::serialize(out.at("metadata").at("labels")), R"({"app":"web"})");
  EXPECT_EQ(json::serialize(out.at("spec").at("ports")),
            R"([{"name":"http","protocol":"TCP","port":80}])");
  EXPECT_EQ(out.at("spec").at("selector"), live.at("spec").at("selector"));

  // A whole item, and a map emptied by the removal (SMD leaves null there).
  Set items;
  items.Insert({PathElement::Field("spec"), PathElement::Field("ports"), port80});
  items.Insert(
      {PathElement::Field("metadata"), PathElement::Field("labels"), PathElement::Field("app")});
  items.Insert(
      {PathElement::Field("metadata"), PathElement::Field("labels"), PathElement::Field("tier")});
  out = RemoveItems(Schema("Service"), live, items);
  EXPECT_TRUE(out.at("spec").at("ports").is_null());
  EXPECT_TRUE(out.at("metadata").at("labels").is_null());
  EXPECT_EQ(out.at("spec").at("type"), "ClusterIP");
}

// Cost of the Update path's diff for a typical Pod (run with --gtest_also_run_disabled_tests).
TEST(CompareTest, DISABLED_PodCompareCost) {
  json::value pod = json::parse(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default",)"
      R"("labels":{"app":"web","pod-template-hash":"abc"},"ownerReferences":[{"apiVersion":)"
      R"("apps/v1","kind":"ReplicaSet","name":"rs","uid":"u","controller":true}]},"spec":{)"
      R"("containers":[{"name":"nginx","image":"nginx:1.27","ports":[{"containerPort":80,)"
      R"("protocol":"TCP"}],"env":[{"name":"MODE","value":"x"}],"resources":{},)"
      R"("terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File",)"
      R"("imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always",)"
      R"("terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","schedulerName":)"
      R"("default-scheduler","securityContext":{},"enableServiceLinks":true,"nodeName":"n1"},)"
      R"("status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}],)"
      R"("podIP":"10.0.0.1","podIPs":[{"ip":"10.0.0.1"}],"hostIP":"1.1.1.1"}})");
  json::value next = pod;
  next.at("status").at("conditions").at(0).as_object()["status"] = "False";
  const TypeSchema& s = Schema("Pod");
  constexpr int kRuns = 20000;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRuns; ++i) {
    Comparison c = Compare(s, pod, next);
    ASSERT_FALSE(c.IsSame());
  }
  auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("Pod Compare: %.1f us\n", ns / 1000.0 / kRuns);
}

}  // namespace
}  // namespace svcplane::apiserver::fieldmanager
