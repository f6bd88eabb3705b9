#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/validation/internal/test_util.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using core::v1::Pod;
using ::testing::Contains;
using ::testing::ElementsAre;
using testing::Errs;
using ::testing::IsEmpty;
using ::testing::StartsWith;
using testing::ValidPod;

TEST(PodValidationTest, ValidPasses) { EXPECT_THAT(Errs(ValidateCreate(ValidPod())), IsEmpty()); }

TEST(PodValidationTest, NameIsSubdomainNotDNS1035) {
  Pod pod = ValidPod();
  pod.metadata.name = "1web";
  EXPECT_THAT(Errs(ValidateCreate(pod)), IsEmpty());
  pod.metadata.name = "web.v1";
  EXPECT_THAT(Errs(ValidateCreate(pod)), IsEmpty());
  pod.metadata.name = "Web";
  EXPECT_THAT(
      Errs(ValidateCreate(pod)),
      ElementsAre(std::string("metadata.name: Invalid value: \"Web\": ") + testing::kSubdomainMsg));
}

TEST(PodValidationTest, ContainersRequired) {
  Pod pod = ValidPod();
  pod.spec.containers.clear();
  EXPECT_THAT(Errs(ValidateCreate(pod)), ElementsAre("spec.containers: Required value"));
}

TEST(PodValidationTest, ContainerNameAndImage) {
  Pod pod = ValidPod();
  pod.spec.containers.push_back(pod.spec.containers[0]);
  pod.spec.containers[1].ports.clear();
  pod.spec.containers[1].image = "";
  EXPECT_THAT(Errs(ValidateCreate(pod)),
              ElementsAre("spec.containers[1].image: Required value",
                          "spec.containers[1].name: Duplicate value: \"app\""));
  pod.spec.containers[1].name = "";
  pod.spec.containers[1].image = " nginx";
  EXPECT_THAT(Errs(ValidateCreate(pod)),
              ElementsAre("spec.containers[1].name: Required value",
                          "spec.containers[1].image: Invalid value: \" nginx\": must not have "
                          "leading or trailing whitespace"));
  pod.spec.containers[1].name = "App_1";
  pod.spec.containers[1].image = "nginx";
  EXPECT_THAT(Errs(ValidateCreate(pod)),
              ElementsAre(std::string("spec.containers[1].name: Invalid value: \"App_1\": ") +
                          testing::kLabelMsg));
}

TEST(PodValidationTest, InitContainerNamesUniqueAcrossLists) {
  Pod pod = ValidPod();
  pod.spec.rest->init_containers.push_back(pod.spec.containers[0]);
  pod.spec.rest->init_containers[0].ports.clear();
  EXPECT_THAT(Errs(ValidateCreate(pod)),
              ElementsAre("spec.initContainers[0].name: Duplicate value: \"app\""));
}

TEST(PodValidationTest, ContainerPorts) {
  Pod pod = ValidPod();
  auto& ports = pod.spec.containers[0].ports;
  ports.push_back(ports[0]);
  ports[1].container_port = 0;
  ports[1].protocol = "HTTP";
  ports[1].host_port = 70000;
  EXPECT_THAT(Errs(ValidateCreate(pod)),
              ElementsAre("spec.containers[0].ports[1].name: Duplicate value: \"http\"",
                          "spec.containers[0].ports[1].containerPort: Required value",
                          "spec.containers[0].ports[1].hostPort: Invalid value: 70000: must be "
                          "between 1 and 65535, inclusive",
                          "spec.containers[0].ports[1].protocol: Unsupported value: \"HTTP\": "
                          "supported values: \"SCTP\", \"TCP\", \"UDP\""));
  ports[1] = ports[0];
  ports[1].name = "Metrics";
  ports[1].container_port = 70000;
  EXPECT_THAT(Errs(ValidateCreate(pod)),
              ElementsAre("spec.containers[0].ports[1].name: Invalid value: \"Metrics\": must "
                          "contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
                          "spec.containers[0].ports[1].containerPort: Invalid value: 70000: must "
                          "be between 1 and 65535, inclusive"));
}

TEST(PodValidationTest, HostPortConflicts) {
  Pod pod = ValidPod();
  pod.spec.containers[0].ports[0].host_port = 8080;
  pod.spec.containers.push_back(pod.spec.containers[0]);
  pod.spec.containers[1].name = "sidecar";
  pod.spec.containers[1].ports[0].name = "http2";
  EXPECT_THAT(Errs(ValidateCreate(pod)),
              ElementsAre("spec.containers[1].ports[0].hostPort: Duplicate value: \"TCP//8080\""));
}

TEST(PodValidationTest, HostNetworkPortsMustMatch) {
  Pod pod = ValidPod();
  pod.spec.rest->host_network = true;
  pod.spec.containers[0].ports[0].host_port = 9000;
  EXPECT_THAT(Errs(ValidateCreate(pod)),
              ElementsAre("spec.containers[0].ports[0].hostPort: Invalid value: 9000: must match "
                          "`containerPort` when `hostNetwork` is true"));
}

TEST(PodValidationTest, PolicyEnums) {
  Pod pod = ValidPod();
  pod.spec.rest->restart_policy = "Sometimes";
  pod.spec.rest->dns_policy = "Magic";
  pod.spec.containers[0].rest->image_pull_policy = "Maybe";
  pod.spec.containers[0].rest->termination_message_policy = "Log";
  EXPECT_THAT(
      Errs(ValidateCreate(pod)),
      ElementsAre("spec.containers[0].terminationMessagePolicy: Unsupported value: \"Log\": "
                  "supported values: \"File\", \"FallbackToLogsOnError\"",
                  "spec.containers[0].imagePullPolicy: Unsupported value: \"Maybe\": supported "
                  "values: \"Always\", \"IfNotPresent\", \"Never\"",
                  "spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: "
                  "\"Always\", \"OnFailure\", \"Never\"",
                  "spec.dnsPolicy: Unsupported value: \"Magic\": supported values: "
                  "\"ClusterFirstWithHostNet\", \"ClusterFirst\", \"Default\", \"None\""));
}

TEST(PodValidationTest, UndefaultedPodReportsRequiredFields) {
  Pod pod;
  pod.metadata.name = "p";
  pod.metadata.namespace_ = "default";
  pod.spec.containers.resize(1);
  pod.spec.containers[0].name = "c";
  pod.spec.containers[0].image = "i";
  EXPECT_THAT(Errs(ValidateCreate(pod)),
              ElementsAre("spec.terminationGracePeriodSeconds: Required value",
                          "spec.containers[0].terminationMessagePolicy: Required value",
                          "spec.containers[0].imagePullPolicy: Required value",
                          "spec.restartPolicy: Required value", "spec.dnsPolicy: Required value"));
}

TEST(PodValidationTest, NamesAndDeadline) {
  Pod pod = ValidPod();
  pod.spec.hostname = "Host";
  pod.spec.subdomain = "sub.domain";
  pod.spec.node_name = "Node_1";
  pod.spec.rest->active_deadline_seconds = 0;
  pod.spec.readiness_gates.push_back({"bad gate", {}});
  EXPECT_THAT(
      Errs(ValidateCreate(pod)),
      ElementsAre(
          StartsWith("spec.readinessGates[0].conditionType: Invalid value: \"bad gate\""),
          std::string("spec.nodeName: Invalid value: \"Node_1\": ") + testing::kSubdomainMsg,
          "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and "
          "2147483647, inclusive",
          std::string("spec.hostname: Invalid value: \"Host\": ") + testing::kLabelMsg,
          "spec.subdomain: Invalid value: \"sub.domain\": must not contain dots"));
}

TEST(PodUpdateTest, ImageMayChange) {
  Pod old = ValidPod();
  Pod pod = old;
  pod.spec.containers[0].image = "nginx:1.26";
  pod.spec.rest->active_deadline_seconds = 100;
  pod.spec.rest->tolerations.push_back(meta::RawJson{R"({"operator":"Exists"})"});
  EXPECT_THAT(Errs(ValidateUpdate(pod, old)), IsEmpty());
}

TEST(PodUpdateTest, OtherSpecChangesForbidden) {
  Pod old = ValidPod();
  Pod pod = old;
  pod.spec.containers[0].name = "renamed";
  std::vector<std::string> errs = Errs(ValidateUpdate(pod, old));
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_THAT(errs[0],
              StartsWith("spec: Forbidden: pod updates may not change fields other than "
                         "`spec.containers[*].image`,`spec.initContainers[*].image`,"
                         "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to "
                         "existing tolerations),`spec.terminationGracePeriodSeconds` (allow it "
                         "to be set to 1 if it was previously negative)\n"));
  EXPECT_THAT(errs[0], ::testing::HasSubstr("Containers"));
  Status st = ToInvalidStatus("Pod", "web-1", ValidateUpdate(pod, old));
  EXPECT_EQ(st.causes().at(0).field, "spec");
  EXPECT_EQ(st.causes().at(0).type, "FieldValueForbidden");

  pod = old;
  pod.spec.node_name = "node-2";
  EXPECT_THAT(Errs(ValidateUpdate(pod, old)),
              ElementsAre(StartsWith("spec: Forbidden: pod updates may not change fields")));
}

TEST(PodUpdateTest, ContainerCountAndImage) {
  Pod old = ValidPod();
  Pod pod = old;
  pod.spec.containers.push_back(pod.spec.containers[0]);
  EXPECT_THAT(Errs(ValidateUpdate(pod, old)),
              Contains("spec.containers: Forbidden: pod updates may not add or remove "
                       "containers"));
  pod = old;
  pod.spec.containers[0].image = "";
  EXPECT_THAT(Errs(ValidateUpdate(pod, old)),
              ElementsAre("spec.containers[0].image: Required value",
                          "spec.containers[0].image: Required value"));
}

TEST(PodUpdateTest, ActiveDeadlineSeconds) {
  Pod old = ValidPod();
  old.spec.rest->active_deadline_seconds = 100;
  Pod pod = old;
  pod.spec.rest->active_deadline_seconds = 200;
  EXPECT_THAT(Errs(ValidateUpdate(pod, old)),
              ElementsAre("spec.activeDeadlineSeconds: Invalid value: 200: must be less than or "
                          "equal to previous value"));
  pod.spec.rest->active_deadline_seconds.reset();
  EXPECT_THAT(Errs(ValidateUpdate(pod, old)),
              ElementsAre("spec.activeDeadlineSeconds: Invalid value: null: must not update from "
                          "a positive integer to nil value"));
}

TEST(PodUpdateTest, TolerationsOnlyAdded) {
  Pod old = ValidPod();
  old.spec.rest->tolerations.push_back(meta::RawJson{R"({"key":"a","operator":"Exists"})"});
  Pod pod = old;
  pod.spec.rest->tolerations.clear();
  EXPECT_THAT(Errs(ValidateUpdate(pod, old)),
              ElementsAre("spec.tolerations: Forbidden: existing toleration can not be modified "
                          "except its tolerationSeconds"));
}

TEST(PodUpdateTest, GracePeriodFromNegativeToOne) {
  Pod old = ValidPod();
  old.spec.rest->termination_grace_period_seconds = -1;
  Pod pod = old;
  pod.spec.rest->termination_grace_period_seconds = 1;
  EXPECT_THAT(Errs(ValidateUpdate(pod, old)), IsEmpty());
  pod.spec.rest->termination_grace_period_seconds = 5;
  EXPECT_THAT(Errs(ValidateUpdate(pod, old)),
              ElementsAre(StartsWith("spec: Forbidden: pod updates may not change fields")));
}

TEST(PodStatusUpdateTest, PodIPs) {
  Pod old = ValidPod();
  old.status.rest->qos_class = "BestEffort";
  Pod pod = old;
  pod.status.pod_ip = "10.1.1.1";
  pod.status.pod_ips = {{"10.1.1.1", {}}, {"fd00::1", {}}};
  pod.status.rest->host_ip = "192.168.1.10";
  pod.status.rest->host_ips = {{"192.168.1.10", {}}};
  EXPECT_THAT(Errs(ValidateStatusUpdate(pod, old)), IsEmpty());
  pod.status.pod_ips = {{"10.1.1.1", {}}, {"10.1.1.1", {}}, {"bad", {}}};
  EXPECT_THAT(Errs(ValidateStatusUpdate(pod, old)),
              ElementsAre("status.podIPs[2]: Invalid value: \"bad\": must be a valid IP address, "
                          "(e.g. 10.9.8.7 or 2001:db8::ffff)",
                          "status.podIPs: Invalid value: []core.PodIP{core.PodIP{IP:\"10.1.1.1\"}, "
                          "core.PodIP{IP:\"10.1.1.1\"}, core.PodIP{IP:\"bad\"}}: may specify no "
                          "more than one IP for each IP family",
                          "status.podIPs[1]: Duplicate value: core.PodIP{IP:\"10.1.1.1\"}"));
}

TEST(PodStatusUpdateTest, NodeNameQOSHostIPAndConditions) {
  Pod old = ValidPod();
  old.status.rest->qos_class = "BestEffort";
  Pod pod = old;
  pod.spec.node_name = "node-1";
  pod.status.rest->qos_class = "Guaranteed";
  pod.status.rest->host_ip = "192.168.1.10";
  pod.status.rest->host_ips = {{"192.168.1.11", {}}};
  pod.status.conditions.push_back({"Ready", "True"});
  pod.status.conditions.push_back({"example.com/Custom", "True"});
  pod.status.conditions.push_back({"bad type", "True"});
  EXPECT_THAT(Errs(ValidateStatusUpdate(pod, old)),
              ElementsAre(StartsWith("metadata.conditions[2].Type: Invalid value: \"bad type\""),
                          "status.nodeName: Forbidden: may not be changed directly",
                          "status.qosClass: Invalid value: \"Guaranteed\": field is immutable",
                          "status.hostIPs[0].ip: Invalid value: \"192.168.1.11\": must be equal to "
                          "`hostIP`"));
}

}  // namespace
}  // namespace svcplane::api::validation
