#include "api/codec/strict.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "api/codec/json.h"
#include "api/codec/yaml.h"
#include "api/coordination/v1/lease.h"
#include "api/core/v1/endpoints.h"
#include "api/core/v1/event.h"
#include "api/core/v1/namespace.h"
#include "api/core/v1/node.h"
#include "api/core/v1/pod.h"
#include "api/core/v1/service.h"
#include "api/discovery/v1/endpoint_slice.h"

namespace svcplane::api::codec {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::string Testdata(const std::string& name) {
  std::ifstream in(std::string(SVCPLANE_TESTDATA) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Upstream-written objects (the golden fixtures) use only fields upstream's types have: the
// schema must know every one of them, including the parts our model keeps as raw JSON.
TEST(StrictDecodingErrorsTest, UpstreamObjectsHaveNone) {
  EXPECT_THAT(StrictDecodingErrors<core::v1::Pod>(Testdata("pod.json")), IsEmpty());
  EXPECT_THAT(StrictDecodingErrors<core::v1::Service>(Testdata("service_dualstack.json")),
              IsEmpty());
  EXPECT_THAT(StrictDecodingErrors<core::v1::Node>(Testdata("node.json")), IsEmpty());
  EXPECT_THAT(StrictDecodingErrors<core::v1::Endpoints>(Testdata("endpoints.json")), IsEmpty());
  EXPECT_THAT(StrictDecodingErrors<core::v1::Event>(Testdata("event.json")), IsEmpty());
  EXPECT_THAT(StrictDecodingErrors<core::v1::Namespace>(Testdata("namespace.json")), IsEmpty());
  EXPECT_THAT(StrictDecodingErrors<coordination::v1::Lease>(Testdata("lease.json")), IsEmpty());
  EXPECT_THAT(
      StrictDecodingErrors<discovery::v1::EndpointSlice>(Testdata("endpointslice_hints.json")),
      IsEmpty());
}

// A nesting bomb must not recurse the walk off its stack (request fibers have 1 MiB): the walk
// stops, and the decoder reports the document.
TEST(StrictDecodingErrorsTest, NestingBombStopsTheWalk) {
  const std::string arrays = std::string(100000, '[') + std::string(100000, ']');
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += R"({"a":)";
  objects += "1" + std::string(100000, '}');
  EXPECT_THAT(StrictDecodingErrors<core::v1::Pod>(arrays), IsEmpty());
  EXPECT_THAT(StrictDecodingErrors(arrays, ""), IsEmpty());
  EXPECT_EQ(PruneUnknownFields<core::v1::Pod>(arrays), arrays);
  EXPECT_THAT(JsonPatchStrictErrors(arrays), IsEmpty());
  EXPECT_THAT(StrictDecodingErrors(objects, ""), IsEmpty());  // free-form: walked, then stopped
}

TEST(StrictDecodingErrorsTest, UnknownAndDuplicateInDocumentOrder) {
  auto errors = StrictDecodingErrors<core::v1::Service>(
      R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"a","name":"b"},
          "spec":{"bogus":1,"ports":[{"port":80},{"port":81,"nodePortt":3}]},"top":true})");
  EXPECT_THAT(errors,
              ElementsAre(R"(duplicate field "metadata.name")", R"(unknown field "spec.bogus")",
                          R"(unknown field "spec.ports[1].nodePortt")", R"(unknown field "top")"));
  EXPECT_EQ(
      StrictDecodingErrorMessage(errors),
      R"(strict decoding error: duplicate field "metadata.name", unknown field "spec.bogus", )"
      R"(unknown field "spec.ports[1].nodePortt", unknown field "top")");
}

// The parts the model keeps as raw JSON are checked against upstream's types too; inline Go
// structs (Volume's VolumeSource, Probe's ProbeHandler) are members of their parent.
TEST(StrictDecodingErrorsTest, ChecksRawJsonPartsAndInlineStructs) {
  auto errors = StrictDecodingErrors<core::v1::Pod>(R"({
    "metadata": {"name": "p"},
    "spec": {
      "volumes": [{"name": "v", "emptyDir": {"medium": "Memory", "sizeLimitt": "1Gi"}},
                  {"name": "c", "configMap": {"name": "cm", "items": [{"key": "k", "pth": "p"}]}}],
      "containers": [{
        "name": "c", "image": "i",
        "resources": {"limits": {"cpu": "1"}, "limitz": {}},
        "livenessProbe": {"httpGet": {"port": 8080, "pathh": "/"}, "periodSeconds": 3},
        "env": [{"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "x", "bogus": 1}}}]
      }],
      "tolerations": [{"key": "k", "operator": "Exists", "effectt": "NoSchedule"}]
    }})");
  EXPECT_THAT(errors,
              ElementsAre(R"(unknown field "spec.volumes[0].emptyDir.sizeLimitt")",
                          R"(unknown field "spec.volumes[1].configMap.items[0].pth")",
                          R"(unknown field "spec.containers[0].resources.limitz")",
                          R"(unknown field "spec.containers[0].livenessProbe.httpGet.pathh")",
                          R"(unknown field "spec.containers[0].env[0].valueFrom.fieldRef.bogus")",
                          R"(unknown field "spec.tolerations[0].effectt")"));
}

// The model keeps rarely read fields in boxed `rest` parts (pod.spec.rest->volumes, metadata.rest->
// generateName; api/meta/boxed.h). On the wire they are ordinary members: known ones are not
// reported, unknown ones inside them still are, and pruning keeps what the model decodes there.
TEST(StrictDecodingErrorsTest, BoxedPartsOfTheModelAreCheckedLikeTheRest) {
  const std::string json = R"({
    "metadata": {"name": "p", "generateName": "p-", "generation": 2, "selfLinkk": "x",
                 "deletionGracePeriodSeconds": 30},
    "spec": {
      "volumes": [{"name": "v", "emptyDir": {}, "bogus": 1}],
      "initContainers": [{"name": "i", "image": "i", "imagePullPolicy": "Always",
                          "restartPolicy": "Always", "bogus": 2}],
      "containers": [{"name": "c", "image": "i", "terminationMessagePath": "/t",
                      "ports": [{"containerPort": 80, "hostIP": "192.0.2.1", "hostIPP": "y"}]}],
      "restartPolicy": "Never", "priority": 3, "hostNetwork": true
    },
    "status": {"hostIP": "192.0.2.1", "qosClass": "BestEffort",
               "conditions": [{"type": "Ready", "status": "True", "reason": "r", "reasonn": "x"}],
               "containerStatuses": [{"name": "c", "ready": true, "bogus": 3}]}})";
  EXPECT_THAT(StrictDecodingErrors<core::v1::Pod>(json),
              ElementsAre(R"(unknown field "metadata.selfLinkk")",
                          R"(unknown field "spec.volumes[0].bogus")",
                          R"(unknown field "spec.initContainers[0].bogus")",
                          R"(unknown field "spec.containers[0].ports[0].hostIPP")",
                          R"(unknown field "status.conditions[0].reasonn")",
                          R"(unknown field "status.containerStatuses[0].bogus")"));

  auto pod = DecodeJson<core::v1::Pod>(PruneUnknownFields<core::v1::Pod>(json));
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  EXPECT_EQ(pod->metadata.rest->generate_name, "p-");
  EXPECT_EQ(pod->metadata.rest->generation, 2);
  EXPECT_EQ(pod->metadata.rest->deletion_grace_period_seconds, 30);
  EXPECT_TRUE(pod->metadata.unknown.empty());
  ASSERT_EQ(pod->spec.rest->volumes.size(), 1u);
  EXPECT_EQ(pod->spec.rest->volumes[0].text, R"({"name":"v","emptyDir":{}})");
  ASSERT_EQ(pod->spec.rest->init_containers.size(), 1u);
  EXPECT_EQ(pod->spec.rest->init_containers[0].rest->image_pull_policy, "Always");
  EXPECT_EQ(pod->spec.containers[0].rest->termination_message_path, "/t");
  EXPECT_EQ(pod->spec.containers[0].ports[0].rest->host_ip, "192.0.2.1");
  EXPECT_TRUE(pod->spec.containers[0].ports[0].unknown.empty());
  EXPECT_EQ(pod->spec.rest->restart_policy, "Never");
  EXPECT_EQ(pod->status.rest->qos_class, "BestEffort");
  EXPECT_EQ(pod->status.conditions[0].rest->reason, "r");
  EXPECT_TRUE(pod->status.conditions[0].unknown.empty());
}

TEST(StrictDecodingErrorsTest, MapKeysAreSegmentsAndCheckedForDuplicates) {
  auto errors = StrictDecodingErrors<core::v1::Service>(
      R"({"metadata":{"labels":{"a":"1","b":"2","a":"3"}},"spec":{"selector":{"x":"1","x":"1"}}})");
  EXPECT_THAT(errors, ElementsAre(R"(duplicate field "metadata.labels.a")",
                                  R"(duplicate field "spec.selector.x")"));
}

TEST(StrictDecodingErrorsTest, UnknownValuesAndCustomFormsAreNotWalked) {
  auto errors = StrictDecodingErrors<core::v1::Pod>(
      R"({"bogus":{"deeper":{"x":1,"x":2}},
          "metadata":{"creationTimestamp":"2024-01-01T00:00:00Z",
                      "managedFields":[{"manager":"m","fieldsV1":{"f:spec":{},"f:spec":{}}}]},
          "spec":{"containers":[{"name":"c","ports":[{"containerPort":80}],
                                 "resources":{"requests":{"memory":"1Gi"}}}]}})");
  EXPECT_THAT(errors, ElementsAre(R"(unknown field "bogus")"));
}

TEST(StrictDecodingErrorsTest, TypeMetaAtTheTopOnly) {
  EXPECT_THAT(StrictDecodingErrors<core::v1::Service>(
                  R"({"kind":"Service","apiVersion":"v1","kind":"Service","spec":{"kind":"x"}})"),
              ElementsAre(R"(duplicate field "kind")", R"(unknown field "spec.kind")"));
}

TEST(StrictDecodingErrorsTest, EachProblemOnceAndAtMostAHundred) {
  EXPECT_THAT(StrictDecodingErrors<core::v1::Service>(R"({"spec":{"x":1,"x":2,"x":3}})"),
              ElementsAre(R"(unknown field "spec.x")"));
  std::string many = "{";
  for (int i = 0; i < 150; ++i) many += (i ? ",\"f" : "\"f") + std::to_string(i) + "\":1";
  many += "}";
  auto errors = StrictDecodingErrors<core::v1::Service>(many);
  ASSERT_EQ(errors.size(), 100u);
  EXPECT_EQ(errors.back(), R"(unknown field "f99")");
}

TEST(StrictDecodingErrorsTest, PathsAreGoQuoted) {
  EXPECT_THAT(StrictDecodingErrors<core::v1::Service>(R"({"spec":{"a\"b\n":1}})"),
              ElementsAre(R"(unknown field "spec.a\"b\n")"));
}

TEST(StrictDecodingErrorsTest, NoSchemaChecksDuplicatesOnly) {
  // A merge or strategic merge patch body: upstream decodes it into map[string]interface{}.
  EXPECT_THAT(
      StrictDecodingErrors(R"({"spec":{"bogus":1,"ports":[{"port":1,"port":2}]},"spec":{}})", ""),
      ElementsAre(R"(duplicate field "spec.ports[0].port")", R"(duplicate field "spec")"));
}

TEST(StrictDecodingErrorsTest, JsonPatchOperations) {
  EXPECT_THAT(JsonPatchStrictErrors(
                  R"([{"op":"add","path":"/a","value":1},
                      {"op":"add","path":"/b","bogus":1,"value":{"x":1,"x":2},"op":"add"}])"),
              ElementsAre(R"(json patch unknown field "[1].bogus")",
                          R"(json patch duplicate field "[1].value.x")",
                          R"(json patch duplicate field "[1].op")"));
}

TEST(StrictDecodingErrorsTest, MalformedJsonStopsQuietly) {
  EXPECT_THAT(StrictDecodingErrors<core::v1::Service>(R"({"bogus":1,"spec":{)"),
              ElementsAre(R"(unknown field "bogus")"));
  EXPECT_THAT(StrictDecodingErrors<core::v1::Service>("not json"), IsEmpty());
}

TEST(PruneUnknownFieldsTest, DropsUnknownMembersAtAnyDepth) {
  EXPECT_EQ(PruneUnknownFields<core::v1::Pod>(
                R"({"bogus":1,"metadata":{"name":"p","x":[1],"labels":{"a":"b"}},)"
                R"("spec":{"containers":[{"zz":{},"name":"c","resources":{"limits":{"cpu":"1"}}}],)"
                R"("nodeName":"n","tail":null},"kind":"Pod"})"),
            R"({"metadata":{"name":"p","labels":{"a":"b"}},)"
            R"("spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"1"}}}],)"
            R"("nodeName":"n"},"kind":"Pod"})");
}

template <typename T>
void ExpectPruneKeepsEverything(const std::string& file) {
  std::string json = Testdata(file);
  std::string pruned = PruneUnknownFields<T>(json);
  auto a = DecodeJson<T>(json);
  auto b = DecodeJson<T>(pruned);
  ASSERT_TRUE(a.ok() && b.ok()) << pruned;
  EXPECT_EQ(EncodeJson(*a), EncodeJson(*b)) << file;
}

TEST(PruneUnknownFieldsTest, KnownDocumentsDecodeTheSame) {
  ExpectPruneKeepsEverything<core::v1::Pod>("pod.json");
  ExpectPruneKeepsEverything<core::v1::Node>("node.json");
  ExpectPruneKeepsEverything<core::v1::Service>("service_dualstack.json");
  ExpectPruneKeepsEverything<core::v1::Event>("event.json");
}

// go-yaml v2's strict decoding names every key set twice, by the line of the second one.
TEST(YamlDuplicateKeysTest, LinesAsGoYaml) {
  EXPECT_THAT(YamlDuplicateKeys("metadata:\n  name: a\n  name: b\nspec:\n  ports:\n"
                                "  - port: 1\n    port: 2\nspec: {}\n"),
              ElementsAre(R"(line 3: key "name" already set in map)",
                          R"(line 7: key "port" already set in map)",
                          R"(line 8: key "spec" already set in map)"));
  EXPECT_THAT(YamlDuplicateKeys("a: 1\nb: 2\n"), IsEmpty());
  EXPECT_THAT(YamlDuplicateKeys("a: [\n"), IsEmpty());
}

}  // namespace
}  // namespace svcplane::api::codec
