#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/validation/internal/test_util.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using core::v1::Service;
using ::testing::Contains;
using ::testing::ElementsAre;
using testing::Errs;
using ::testing::IsEmpty;
using testing::kDNS1035Msg;
using testing::kLabelMsg;
using testing::ValidService;

TEST(ServiceValidationTest, ValidServicePasses) {
  EXPECT_THAT(Errs(ValidateCreate(ValidService())), IsEmpty());
}

TEST(ServiceValidationTest, NameMustBeDNS1035Label) {
  Service svc = ValidService();
  svc.metadata.name = "1web";
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre(std::string("metadata.name: Invalid value: \"1web\": ") + kDNS1035Msg));
  Status st = ToInvalidStatus("Service", "1web", ValidateCreate(svc));
  EXPECT_EQ(st.code(), Code::kInvalid);
  EXPECT_EQ(st.message(),
            std::string("Service \"1web\" is invalid: metadata.name: Invalid value: \"1web\": ") +
                kDNS1035Msg);
}

TEST(ServiceValidationTest, NamespaceRequired) {
  Service svc = ValidService();
  svc.metadata.namespace_.clear();
  EXPECT_THAT(Errs(ValidateCreate(svc)), ElementsAre("metadata.namespace: Required value"));
}

TEST(ServiceValidationTest, PortsRequiredUnlessHeadlessOrExternalName) {
  Service svc = ValidService();
  svc.spec.ports.clear();
  EXPECT_THAT(Errs(ValidateCreate(svc)), ElementsAre("spec.ports: Required value"));
  svc.spec.cluster_ip = "None";
  svc.spec.cluster_ips = {"None"};
  EXPECT_THAT(Errs(ValidateCreate(svc)), IsEmpty());
}

TEST(ServiceValidationTest, MultiplePortsNeedNames) {
  Service svc = ValidService();
  svc.spec.ports.push_back(svc.spec.ports[0]);
  svc.spec.ports[1].port = 443;
  svc.spec.ports[1].target_port = meta::IntOrString::FromInt(443);
  EXPECT_THAT(Errs(ValidateCreate(svc)), ElementsAre("spec.ports[0].name: Required value",
                                                     "spec.ports[1].name: Required value"));
  svc.spec.ports[0].name = "http";
  svc.spec.ports[1].name = "http";
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.ports[1].name: Duplicate value: \"http\""));
  svc.spec.ports[1].name = "Https";
  EXPECT_THAT(
      Errs(ValidateCreate(svc)),
      ElementsAre(std::string("spec.ports[1].name: Invalid value: \"Https\": ") + kLabelMsg));
}

TEST(ServiceValidationTest, DuplicatePortProtocolPair) {
  Service svc = ValidService();
  svc.spec.ports.push_back(svc.spec.ports[0]);
  svc.spec.ports[0].name = "a";
  svc.spec.ports[1].name = "b";
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.ports[1]: Duplicate value: core.ServicePort{Name:\"\", "
                          "Protocol:\"TCP\", AppProtocol:(*string)(nil), Port:80, "
                          "TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, "
                          "NodePort:0}"));
  svc.spec.ports[1].protocol = "UDP";
  EXPECT_THAT(Errs(ValidateCreate(svc)), IsEmpty());
}

TEST(ServiceValidationTest, PortNumbersInRange) {
  Service svc = ValidService();
  svc.spec.ports[0].port = 0;
  svc.spec.ports[0].target_port = meta::IntOrString::FromInt(70000);
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, "
                          "inclusive",
                          "spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and "
                          "65535, inclusive"));
}

TEST(ServiceValidationTest, NamedTargetPortIsIANAServiceName) {
  Service svc = ValidService();
  svc.spec.ports[0].target_port = meta::IntOrString::FromString("Http-Port");
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.ports[0].targetPort: Invalid value: \"Http-Port\": must contain "
                          "only alpha-numeric characters (a-z, 0-9), and hyphens (-)"));
  svc.spec.ports[0].target_port = meta::IntOrString::FromString("-a--very-long-name-");
  EXPECT_THAT(
      Errs(ValidateCreate(svc)),
      ElementsAre(
          "spec.ports[0].targetPort: Invalid value: \"-a--very-long-name-\": must be no more "
          "than 15 characters",
          "spec.ports[0].targetPort: Invalid value: \"-a--very-long-name-\": must not contain "
          "consecutive hyphens",
          "spec.ports[0].targetPort: Invalid value: \"-a--very-long-name-\": must not begin or "
          "end with a hyphen"));
  svc.spec.ports[0].target_port = meta::IntOrString::FromString("8080");
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.ports[0].targetPort: Invalid value: \"8080\": must contain at "
                          "least one letter (a-z)"));
  svc.spec.ports[0].target_port = meta::IntOrString::FromString("http");
  EXPECT_THAT(Errs(ValidateCreate(svc)), IsEmpty());
}

TEST(ServiceValidationTest, ProtocolSupported) {
  Service svc = ValidService();
  svc.spec.ports[0].protocol = "HTTP";
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.ports[0].protocol: Unsupported value: \"HTTP\": supported "
                          "values: \"SCTP\", \"TCP\", \"UDP\""));
  svc.spec.ports[0].protocol = "";
  EXPECT_THAT(Errs(ValidateCreate(svc)), ElementsAre("spec.ports[0].protocol: Required value"));
}

TEST(ServiceValidationTest, AppProtocolIsQualifiedName) {
  Service svc = ValidService();
  svc.spec.ports[0].app_protocol = "kubernetes.io/h2c";
  EXPECT_THAT(Errs(ValidateCreate(svc)), IsEmpty());
  svc.spec.ports[0].app_protocol = "bad proto";
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.ports[0].appProtocol: Invalid value: \"bad proto\": name part "
                          "must consist of alphanumeric characters, '-', '_' or '.', and must "
                          "start and end with an alphanumeric character (e.g. 'MyName',  or "
                          "'my.name',  or '123-abc', regex used for validation is "
                          "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"));
}

TEST(ServiceValidationTest, TypeSupported) {
  Service svc = ValidService();
  svc.spec.type = "Foo";
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              Contains("spec.type: Unsupported value: \"Foo\": supported values: \"ClusterIP\", "
                       "\"ExternalName\", \"LoadBalancer\", \"NodePort\""));
  svc.spec.type = "";
  EXPECT_THAT(Errs(ValidateCreate(svc)), Contains("spec.type: Required value"));
}

TEST(ServiceValidationTest, NodePortForbiddenForClusterIP) {
  Service svc = ValidService();
  svc.spec.ports[0].node_port = 30080;
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.ports[0].nodePort: Forbidden: may not be used when `type` is "
                          "'ClusterIP'"));
}

Service NodePortService() {
  Service svc = ValidService();
  svc.spec.type = "NodePort";
  svc.spec.external_traffic_policy = "Cluster";
  svc.spec.ports[0].node_port = 30080;
  return svc;
}

TEST(ServiceValidationTest, NodePortService) {
  Service svc = NodePortService();
  EXPECT_THAT(Errs(ValidateCreate(svc)), IsEmpty());
  svc.spec.ports[0].node_port = 70000;
  EXPECT_THAT(Errs(ValidateCreate(svc)), IsEmpty()) << "range is the allocator's job";
  svc.spec.ports.push_back(svc.spec.ports[0]);
  svc.spec.ports[0].name = "a";
  svc.spec.ports[1].name = "b";
  svc.spec.ports[1].port = 81;
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.ports[1].nodePort: Duplicate value: 70000"));
}

TEST(ServiceValidationTest, HeadlessNotAllowedForNodePortAndLoadBalancer) {
  Service svc = NodePortService();
  svc.spec.cluster_ip = "None";
  svc.spec.cluster_ips = {"None"};
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' "
                          "for NodePort services"));
  svc.spec.type = "LoadBalancer";
  svc.spec.allocate_load_balancer_node_ports = true;
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' "
                          "for LoadBalancer services"));
}

TEST(ServiceValidationTest, ExternalName) {
  Service svc = ValidService();
  svc.spec.type = "ExternalName";
  svc.spec.external_name = "db.example.com.";
  svc.spec.internal_traffic_policy.reset();
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.clusterIPs: Forbidden: may not be set for ExternalName services",
                          "spec.ipFamilies: Forbidden: may not be set for ExternalName services",
                          "spec.ipFamilyPolicy: Forbidden: may not be set for ExternalName "
                          "services"));
  svc.spec.cluster_ip.clear();
  svc.spec.cluster_ips.clear();
  svc.spec.ip_families.clear();
  svc.spec.ip_family_policy.reset();
  EXPECT_THAT(Errs(ValidateCreate(svc)), IsEmpty());
  svc.spec.external_name = "";
  EXPECT_THAT(Errs(ValidateCreate(svc)), ElementsAre("spec.externalName: Required value"));
  svc.spec.external_name = "Bad_Name";
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre(std::string("spec.externalName: Invalid value: \"Bad_Name\": ") +
                          testing::kSubdomainMsg));
}

TEST(ServiceValidationTest, SessionAffinity) {
  Service svc = ValidService();
  svc.spec.session_affinity = "Sticky";
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.sessionAffinity: Unsupported value: \"Sticky\": supported "
                          "values: \"ClientIP\", \"None\""));
  svc.spec.session_affinity = "";
  EXPECT_THAT(Errs(ValidateCreate(svc)), ElementsAre("spec.sessionAffinity: Required value"));
  svc.spec.session_affinity = "ClientIP";
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.sessionAffinityConfig: Required value: when session affinity "
                          "type is ClientIP"));
  svc.spec.session_affinity_config.emplace();
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.sessionAffinityConfig.clientIP: Required value: when session "
                          "affinity type is ClientIP"));
  svc.spec.session_affinity_config->client_ip.emplace();
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.sessionAffinityConfig.clientIP.timeoutSeconds: Required value: "
                          "when session affinity type is ClientIP"));
  svc.spec.session_affinity_config->client_ip->timeout_seconds = 86401;
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: "
                          "86401: must be greater than 0 and less than 86400"));
  svc.spec.session_affinity_config->client_ip->timeout_seconds = 10800;
  EXPECT_THAT(Errs(ValidateCreate(svc)), IsEmpty());
  svc.spec.session_affinity = "None";
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.sessionAffinityConfig: Forbidden: must not be set when session "
                          "affinity is None"));
}

TEST(ServiceValidationTest, ClusterIPsMustAgreeWithClusterIP) {
  Service svc = ValidService();
  svc.spec.cluster_ips.clear();
  EXPECT_THAT(Errs(ValidateCreate(svc)), ElementsAre("spec.clusterIPs: Required value"));
  svc.spec.cluster_ips = {"10.0.0.11"};
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.clusterIPs: Invalid value: []string{\"10.0.0.11\"}: first value "
                          "must match `clusterIP`"));
  svc.spec.cluster_ip.clear();
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.clusterIPs: Invalid value: []string{\"10.0.0.11\"}: must be "
                          "empty when `clusterIP` is not specified"));
}

TEST(ServiceValidationTest, ClusterIPsValues) {
  Service svc = ValidService();
  svc.spec.cluster_ip = "10.0.0.300";
  svc.spec.cluster_ips = {"10.0.0.300"};
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.clusterIPs[0]: Invalid value: \"10.0.0.300\": must be a valid IP "
                          "address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
  svc.spec.cluster_ip = "None";
  svc.spec.cluster_ips = {"None", "10.0.0.1"};
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.clusterIPs: Invalid value: []string{\"None\", \"10.0.0.1\"}: "
                          "'None' must be the first and only value"));
  svc.spec.cluster_ip = "10.0.0.1";
  svc.spec.cluster_ips = {"10.0.0.1", "10.0.0.2"};
  svc.spec.ip_families = {"IPv4", "IPv6"};
  svc.spec.ip_family_policy = "RequireDualStack";
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.clusterIPs: Invalid value: []string{\"10.0.0.1\", \"10.0.0.2\"}: "
                          "may specify no more than one IP for each IP family",
                          "spec.clusterIPs[1]: Invalid value: \"10.0.0.2\": expected an IPv6 "
                          "value as indicated by `ipFamilies[1]`"));
  svc.spec.cluster_ips = {"10.0.0.1", "fd00::1", "fd00::2"};
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.clusterIPs: Invalid value: []string{\"10.0.0.1\", \"fd00::1\", "
                          "\"fd00::2\"}: may only hold up to 2 values"));
  svc.spec.cluster_ips = {"10.0.0.1", "fd00::1"};
  EXPECT_THAT(Errs(ValidateCreate(svc)), IsEmpty());
  svc.spec.ip_families = {"IPv6", "IPv4"};
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.clusterIPs[0]: Invalid value: \"10.0.0.1\": expected an IPv6 "
                          "value as indicated by `ipFamilies[0]`",
                          "spec.clusterIPs[1]: Invalid value: \"fd00::1\": expected an IPv4 "
                          "value as indicated by `ipFamilies[1]`"));
}

TEST(ServiceValidationTest, IPFamiliesAndPolicy) {
  Service svc = ValidService();
  svc.spec.ip_families = {"IPv5", "IPv5"};
  svc.spec.ip_family_policy = "AnyStack";
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.ipFamilies[0]: Unsupported value: \"IPv5\": supported values: "
                          "\"IPv4\", \"IPv6\"",
                          "spec.ipFamilies[1]: Unsupported value: \"IPv5\": supported values: "
                          "\"IPv4\", \"IPv6\"",
                          "spec.ipFamilies[1]: Duplicate value: \"IPv5\"",
                          "spec.ipFamilyPolicy: Unsupported value: \"AnyStack\": supported "
                          "values: \"PreferDualStack\", \"RequireDualStack\", \"SingleStack\""));
}

TEST(ServiceValidationTest, ExternalIPs) {
  Service svc = ValidService();
  svc.spec.external_traffic_policy = "Cluster";
  svc.spec.external_ips = {"192.0.2.1", "127.0.0.1", "nope"};
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.externalIPs[1]: Invalid value: \"127.0.0.1\": may not be in the "
                          "loopback range (127.0.0.0/8, ::1/128)",
                          "spec.externalIPs[2]: Invalid value: \"nope\": must be a valid IP "
                          "address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
}

TEST(ServiceValidationTest, ExternalTrafficPolicy) {
  Service svc = ValidService();
  svc.spec.external_traffic_policy = "Local";
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.externalTrafficPolicy: Invalid value: \"Local\": may only be set "
                          "for externally-accessible services"));
  svc = NodePortService();
  svc.spec.external_traffic_policy = "";
  EXPECT_THAT(Errs(ValidateCreate(svc)), ElementsAre("spec.externalTrafficPolicy: Required value"));
  svc.spec.external_traffic_policy = "Global";
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.externalTrafficPolicy: Unsupported value: \"Global\": supported "
                          "values: \"Cluster\", \"Local\""));
  svc.spec.external_traffic_policy = "Local";
  svc.spec.health_check_node_port = 30500;
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.healthCheckNodePort: Invalid value: 30500: may only be set when "
                          "`type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
}

Service LoadBalancerService() {
  Service svc = NodePortService();
  svc.spec.type = "LoadBalancer";
  svc.spec.allocate_load_balancer_node_ports = true;
  return svc;
}

TEST(ServiceValidationTest, LoadBalancer) {
  Service svc = LoadBalancerService();
  EXPECT_THAT(Errs(ValidateCreate(svc)), IsEmpty());
  svc.spec.allocate_load_balancer_node_ports.reset();
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("allocateLoadBalancerNodePorts: Required value"));
  svc = LoadBalancerService();
  svc.spec.external_traffic_policy = "Local";
  EXPECT_THAT(Errs(ValidateCreate(svc)), ElementsAre("spec.healthCheckNodePort: Required value"));
  svc.spec.health_check_node_port = 31000;
  EXPECT_THAT(Errs(ValidateCreate(svc)), IsEmpty());
  svc.spec.load_balancer_class = "example.com/internal";
  svc.spec.load_balancer_source_ranges = {" 10.0.0.0/8 ", "10.0.0.0/33"};
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.LoadBalancerSourceRanges[1]: Invalid value: \"10.0.0.0/33\": "
                          "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"));
}

TEST(ServiceValidationTest, LoadBalancerOnlyFields) {
  Service svc = ValidService();
  svc.spec.allocate_load_balancer_node_ports = true;
  svc.spec.load_balancer_class = "example.com/lb";
  svc.spec.load_balancer_source_ranges = {"10.0.0.0/8"};
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.LoadBalancerSourceRanges: Forbidden: may only be used when "
                          "`type` is 'LoadBalancer'",
                          "spec.allocateLoadBalancerNodePorts: Forbidden: may only be used when "
                          "`type` is 'LoadBalancer'",
                          "spec.loadBalancerClass: Forbidden: may only be used when `type` is "
                          "'LoadBalancer'"));
  svc = ValidService();
  svc.metadata.annotations["service.beta.kubernetes.io/load-balancer-source-ranges"] =
      "10.0.0.0/8, bad";
  EXPECT_THAT(
      Errs(ValidateCreate(svc)),
      ElementsAre("metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]: "
                  "Forbidden: may only be used when `type` is 'LoadBalancer'",
                  "metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]: "
                  "Invalid value: \"bad\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or "
                  "2001:db8::/64)"));
}

TEST(ServiceValidationTest, TrafficPolicies) {
  Service svc = ValidService();
  svc.spec.internal_traffic_policy.reset();
  EXPECT_THAT(Errs(ValidateCreate(svc)), ElementsAre("spec.internalTrafficPolicy: Required value"));
  svc.spec.internal_traffic_policy = "Node";
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.internalTrafficPolicy: Unsupported value: \"Node\": supported "
                          "values: \"Cluster\", \"Local\""));
  svc.spec.internal_traffic_policy = "Local";
  svc.spec.traffic_distribution = "PreferClose";
  EXPECT_THAT(Errs(ValidateCreate(svc)), IsEmpty());
  svc.spec.traffic_distribution = "Random";
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.trafficDistribution: Unsupported value: \"Random\": supported "
                          "values: \"PreferClose\""));
}

TEST(ServiceValidationTest, SelectorLabels) {
  Service svc = ValidService();
  svc.spec.selector["app"] = "-bad";
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("spec.selector: Invalid value: \"-bad\": a valid label must be an empty "
                          "string or consist of alphanumeric characters, '-', '_' or '.', and "
                          "must start and end with an alphanumeric character (e.g. 'MyValue',  "
                          "or 'my_value',  or '12345', regex used for validation is "
                          "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"));
}

TEST(ServiceValidationTest, TopologyAnnotationsMustAgree) {
  Service svc = ValidService();
  svc.metadata.annotations["service.kubernetes.io/topology-aware-hints"] = "Auto";
  svc.metadata.annotations["service.kubernetes.io/topology-mode"] = "Disabled";
  EXPECT_THAT(Errs(ValidateCreate(svc)),
              ElementsAre("metadata.annotations[service.kubernetes.io/topology-mode]: Invalid "
                          "value: \"Disabled\": must match "
                          "annotations[service.kubernetes.io/topology-aware-hints] when both are "
                          "specified"));
}

TEST(ServiceUpdateTest, ClusterIPIsImmutable) {
  Service old = ValidService();
  Service svc = old;
  svc.spec.cluster_ip = "10.0.0.2";
  svc.spec.cluster_ips = {"10.0.0.2"};  // as PrepareForUpdate mirrors it
  EXPECT_THAT(Errs(ValidateUpdate(svc, old)),
              ElementsAre("spec.clusterIPs[0]: Invalid value: []string{\"10.0.0.2\"}: may not "
                          "change once set"));
}

TEST(ServiceUpdateTest, SecondaryClusterIPRules) {
  Service old = ValidService();
  old.spec.cluster_ips = {"10.0.0.10", "fd00::10"};
  old.spec.ip_families = {"IPv4", "IPv6"};
  old.spec.ip_family_policy = "PreferDualStack";
  Service svc = old;
  svc.spec.cluster_ips = {"10.0.0.10"};
  svc.spec.ip_families = {"IPv4"};
  EXPECT_THAT(Errs(ValidateUpdate(svc, old)),
              ElementsAre("spec.ipFamilyPolicy: Invalid value: \"PreferDualStack\": must be set "
                          "to 'SingleStack' when releasing the secondary clusterIP",
                          "spec.ipFamilyPolicy: Invalid value: \"PreferDualStack\": must be set "
                          "to 'SingleStack' when releasing the secondary ipFamily"));
  svc.spec.ip_family_policy = "SingleStack";
  EXPECT_THAT(Errs(ValidateUpdate(svc, old)), IsEmpty());
  // Upgrading adds a secondary; the primary family may not change.
  Service up = ValidService();
  Service up_new = up;
  up_new.spec.cluster_ips = {"10.0.0.10", "fd00::10"};
  up_new.spec.ip_families = {"IPv4", "IPv6"};
  up_new.spec.ip_family_policy = "RequireDualStack";
  EXPECT_THAT(Errs(ValidateUpdate(up_new, up)), IsEmpty());
  up_new.spec.ip_families = {"IPv6", "IPv4"};
  EXPECT_THAT(Errs(ValidateUpdate(up_new, up)),
              Contains("spec.ipFamilies[0]: Invalid value: []string{\"10.0.0.10\", "
                       "\"fd00::10\"}: may not change once set"));
}

TEST(ServiceUpdateTest, ChangingToExternalNameIsAllowed) {
  Service old = ValidService();
  Service svc = old;
  svc.spec.type = "ExternalName";
  svc.spec.external_name = "example.com";
  svc.spec.cluster_ip.clear();
  svc.spec.cluster_ips.clear();
  svc.spec.ip_families.clear();
  svc.spec.ip_family_policy.reset();
  EXPECT_THAT(Errs(ValidateUpdate(svc, old)), IsEmpty());
}

TEST(ServiceUpdateTest, HealthCheckNodePortAndLoadBalancerClassImmutable) {
  Service old = LoadBalancerService();
  old.spec.external_traffic_policy = "Local";
  old.spec.health_check_node_port = 31000;
  old.spec.load_balancer_class = "example.com/a";
  Service svc = old;
  svc.spec.health_check_node_port = 31001;
  svc.spec.load_balancer_class = "example.com/b";
  EXPECT_THAT(Errs(ValidateUpdate(svc, old)),
              ElementsAre("spec.loadBalancerClass: Invalid value: \"example.com/b\": may not "
                          "change once set",
                          "spec.healthCheckNodePort: Forbidden: field is immutable"));
}

TEST(ServiceUpdateTest, MetadataImmutables) {
  Service old = ValidService();
  Service svc = old;
  svc.metadata.name = "other";
  svc.metadata.resource_version.clear();
  EXPECT_THAT(Errs(ValidateUpdate(svc, old)),
              ElementsAre("metadata.resourceVersion: Invalid value: \"\": must be specified for "
                          "an update",
                          "metadata.name: Invalid value: \"other\": field is immutable"));
}

TEST(ServiceUpdateTest, StatusUpdateChecksMetadataOnly) {
  Service old = ValidService();
  Service svc = old;
  svc.spec.type = "bogus";
  EXPECT_THAT(Errs(ValidateStatusUpdate(svc, old)), IsEmpty());
  svc.metadata.uid = "x";
  EXPECT_THAT(Errs(ValidateStatusUpdate(svc, old)),
              ElementsAre("metadata.uid: Invalid value: \"x\": field is immutable"));
}

}  // namespace
}  // namespace svcplane::api::validation
