#include "api/validation/defaults.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace svcplane::api::validation {
namespace {

using core::v1::Service;

TEST(DefaultServiceTest, ClusterIPServiceWithOnePort) {
  Service svc;
  svc.spec.ports.resize(1);
  svc.spec.ports[0].port = 80;
  Default(svc);
  EXPECT_EQ(svc.spec.type, "ClusterIP");
  EXPECT_EQ(svc.spec.ports[0].protocol, "TCP");
  EXPECT_EQ(svc.spec.ports[0].target_port, meta::IntOrString::FromInt(80));
  EXPECT_EQ(svc.spec.session_affinity, "None");
  EXPECT_FALSE(svc.spec.session_affinity_config.has_value());
  EXPECT_EQ(svc.spec.internal_traffic_policy, "Cluster");
  EXPECT_EQ(svc.spec.external_traffic_policy, "");  // not externally accessible
  EXPECT_FALSE(svc.spec.allocate_load_balancer_node_ports.has_value());
  // The allocator, not defaulting, fills these.
  EXPECT_TRUE(svc.spec.cluster_ip.empty());
  EXPECT_TRUE(svc.spec.ip_families.empty());
  EXPECT_FALSE(svc.spec.ip_family_policy.has_value());
}

TEST(DefaultServiceTest, KeepsExplicitValues) {
  Service svc;
  svc.spec.ports.resize(1);
  svc.spec.ports[0].port = 80;
  svc.spec.ports[0].protocol = "UDP";
  svc.spec.ports[0].target_port = meta::IntOrString::FromString("http");
  svc.spec.internal_traffic_policy = "Local";
  Default(svc);
  EXPECT_EQ(svc.spec.ports[0].protocol, "UDP");
  EXPECT_EQ(svc.spec.ports[0].target_port, meta::IntOrString::FromString("http"));
  EXPECT_EQ(svc.spec.internal_traffic_policy, "Local");
}

TEST(DefaultServiceTest, EmptyStringTargetPortBecomesPort) {
  Service svc;
  svc.spec.ports.resize(1);
  svc.spec.ports[0].port = 8443;
  svc.spec.ports[0].target_port = meta::IntOrString::FromString("");
  Default(svc);
  EXPECT_EQ(svc.spec.ports[0].target_port, meta::IntOrString::FromInt(8443));
}

TEST(DefaultServiceTest, NodePortGetsExternalTrafficPolicyCluster) {
  Service svc;
  svc.spec.type = "NodePort";
  Default(svc);
  EXPECT_EQ(svc.spec.external_traffic_policy, "Cluster");
  EXPECT_EQ(svc.spec.internal_traffic_policy, "Cluster");
  EXPECT_FALSE(svc.spec.allocate_load_balancer_node_ports.has_value());
}

TEST(DefaultServiceTest, LoadBalancerGetsAllocateNodePortsTrue) {
  Service svc;
  svc.spec.type = "LoadBalancer";
  Default(svc);
  EXPECT_EQ(svc.spec.external_traffic_policy, "Cluster");
  EXPECT_EQ(svc.spec.allocate_load_balancer_node_ports, true);
  svc.spec.allocate_load_balancer_node_ports = false;
  Default(svc);
  EXPECT_EQ(svc.spec.allocate_load_balancer_node_ports, false);
}

TEST(DefaultServiceTest, LoadBalancerIngressGetsIPModeVIP) {
  Service svc;
  svc.spec.type = "LoadBalancer";
  svc.status.load_balancer.ingress = {
      meta::RawJson{R"({"ports":[{"port":80,"protocol":"TCP"}],"ip":"192.0.2.1"})"},
      meta::RawJson{R"({"hostname":"lb.example.com"})"},
      meta::RawJson{R"({"ip":"192.0.2.2","ipMode":"Proxy"})"}};
  Default(svc);
  EXPECT_EQ(svc.status.load_balancer.ingress[0].text,
            R"({"ip":"192.0.2.1","ipMode":"VIP","ports":[{"port":80,"protocol":"TCP"}]})");
  EXPECT_EQ(svc.status.load_balancer.ingress[1].text, R"({"hostname":"lb.example.com"})");
  EXPECT_EQ(svc.status.load_balancer.ingress[2].text, R"({"ip":"192.0.2.2","ipMode":"Proxy"})");
  Service cluster_ip;
  cluster_ip.status.load_balancer.ingress = {meta::RawJson{R"({"ip":"192.0.2.1"})"}};
  Default(cluster_ip);
  EXPECT_EQ(cluster_ip.status.load_balancer.ingress[0].text, R"({"ip":"192.0.2.1"})");
}

TEST(DefaultServiceTest, ClusterIPWithExternalIPsIsExternallyAccessible) {
  Service svc;
  svc.spec.external_ips = {"192.0.2.1"};
  Default(svc);
  EXPECT_EQ(svc.spec.external_traffic_policy, "Cluster");
}

TEST(DefaultServiceTest, ExternalNameGetsNoTrafficPolicies) {
  Service svc;
  svc.spec.type = "ExternalName";
  Default(svc);
  EXPECT_FALSE(svc.spec.internal_traffic_policy.has_value());
  EXPECT_EQ(svc.spec.external_traffic_policy, "");
}

TEST(DefaultServiceTest, ClientIPAffinityGetsTimeout) {
  Service svc;
  svc.spec.session_affinity = "ClientIP";
  Default(svc);
  ASSERT_TRUE(svc.spec.session_affinity_config.has_value());
  ASSERT_TRUE(svc.spec.session_affinity_config->client_ip.has_value());
  EXPECT_EQ(svc.spec.session_affinity_config->client_ip->timeout_seconds, 10800);
  svc.spec.session_affinity_config->client_ip->timeout_seconds = 60;
  Default(svc);
  EXPECT_EQ(svc.spec.session_affinity_config->client_ip->timeout_seconds, 60);
}

TEST(DefaultServiceTest, NoneAffinityClearsConfig) {
  Service svc;
  svc.spec.session_affinity_config.emplace();
  Default(svc);
  EXPECT_EQ(svc.spec.session_affinity, "None");
  EXPECT_FALSE(svc.spec.session_affinity_config.has_value());
}

TEST(DefaultPodTest, PodSpecAndContainerDefaults) {
  core::v1::Pod pod;
  pod.spec.containers.resize(1);
  pod.spec.containers[0].image = "nginx:1.25";
  pod.spec.containers[0].ports.resize(1);
  pod.spec.containers[0].ports[0].container_port = 80;
  pod.spec.rest->init_containers.resize(1);
  pod.spec.rest->init_containers[0].image = "busybox";
  Default(pod);
  EXPECT_EQ(pod.spec.rest->restart_policy, "Always");
  EXPECT_EQ(pod.spec.rest->dns_policy, "ClusterFirst");
  EXPECT_EQ(pod.spec.rest->termination_grace_period_seconds, 30);
  EXPECT_EQ(pod.spec.rest->scheduler_name, "default-scheduler");
  ASSERT_TRUE(pod.spec.rest->security_context.has_value());
  EXPECT_EQ(pod.spec.rest->security_context->text, "{}");
  EXPECT_EQ(pod.spec.rest->enable_service_links, true);
  const core::v1::Container& c = pod.spec.containers[0];
  EXPECT_EQ(c.rest->termination_message_path, "/dev/termination-log");
  EXPECT_EQ(c.rest->termination_message_policy, "File");
  EXPECT_EQ(c.rest->image_pull_policy, "IfNotPresent");
  EXPECT_EQ(c.ports[0].protocol, "TCP");
  EXPECT_EQ(c.ports[0].host_port, 0);
  EXPECT_EQ(pod.spec.rest->init_containers[0].rest->image_pull_policy, "Always");
  EXPECT_EQ(pod.spec.rest->init_containers[0].rest->termination_message_policy, "File");
}

TEST(DefaultPodTest, KeepsExplicitValues) {
  core::v1::Pod pod;
  pod.spec.rest->restart_policy = "Never";
  pod.spec.rest->dns_policy = "Default";
  pod.spec.rest->termination_grace_period_seconds = 0;
  pod.spec.rest->enable_service_links = false;
  pod.spec.rest->security_context = meta::RawJson{R"({"runAsUser":1000})"};
  Default(pod);
  EXPECT_EQ(pod.spec.rest->restart_policy, "Never");
  EXPECT_EQ(pod.spec.rest->dns_policy, "Default");
  EXPECT_EQ(pod.spec.rest->termination_grace_period_seconds, 0);
  EXPECT_EQ(pod.spec.rest->enable_service_links, false);
  EXPECT_EQ(pod.spec.rest->security_context->text, R"({"runAsUser":1000})");
}

TEST(DefaultPodTest, RequestsDefaultToLimits) {
  core::v1::Pod pod;
  pod.spec.containers.resize(2);
  pod.spec.containers[0].rest->resources.text =
      R"({"claims":[{"name":"gpu"}], "limits": {"memory": "1Gi", "cpu": 2}, "requests": {"cpu": "500m"}})";
  pod.spec.containers[1].rest->resources.text = R"({"requests":{"cpu":"1"}})";
  pod.spec.rest->init_containers.resize(1);
  pod.spec.rest->init_containers[0].rest->resources.text = R"({"limits":{"cpu":"1"}})";
  Default(pod);
  EXPECT_EQ(pod.spec.containers[0].rest->resources.text,
            R"({"limits":{"memory": "1Gi", "cpu": 2},"requests":{"cpu":"500m","memory":"1Gi"},)"
            R"("claims":[{"name":"gpu"}]})");
  EXPECT_EQ(pod.spec.containers[1].rest->resources.text, R"({"requests":{"cpu":"1"}})");
  EXPECT_EQ(pod.spec.rest->init_containers[0].rest->resources.text,
            R"({"limits":{"cpu":"1"},"requests":{"cpu":"1"}})");
  // Idempotent: nothing left to add.
  std::string once = pod.spec.containers[0].rest->resources.text;
  Default(pod);
  EXPECT_EQ(pod.spec.containers[0].rest->resources.text, once);
}

TEST(DefaultPodTest, HostNetworkCopiesContainerPortToHostPort) {
  core::v1::Pod pod;
  pod.spec.rest->host_network = true;
  pod.spec.containers.resize(1);
  pod.spec.containers[0].ports.resize(1);
  pod.spec.containers[0].ports[0].container_port = 9100;
  Default(pod);
  EXPECT_EQ(pod.spec.containers[0].ports[0].host_port, 9100);
}

TEST(DefaultPodTest, ServiceAccountFieldsMirrored) {
  core::v1::Pod pod;
  pod.spec.rest->service_account = "legacy";
  Default(pod);
  EXPECT_EQ(pod.spec.rest->service_account_name, "legacy");
  EXPECT_EQ(pod.spec.rest->service_account, "legacy");
  pod.spec.rest->service_account_name = "new";
  Default(pod);
  EXPECT_EQ(pod.spec.rest->service_account, "new");
}

TEST(DefaultPodTest, PodIPsFollowPodIP) {
  core::v1::Pod pod;
  pod.status.pod_ip = "10.1.1.1";
  Default(pod);
  ASSERT_EQ(pod.status.pod_ips.size(), 1u);
  EXPECT_EQ(pod.status.pod_ips[0].ip, "10.1.1.1");

  core::v1::Pod plural_only;
  plural_only.status.pod_ips.resize(2);
  plural_only.status.pod_ips[0].ip = "10.1.1.2";
  plural_only.status.pod_ips[1].ip = "fd00::2";
  plural_only.status.rest->host_ips.resize(1);
  plural_only.status.rest->host_ips[0].ip = "192.168.0.5";
  Default(plural_only);
  EXPECT_EQ(plural_only.status.pod_ip, "10.1.1.2");
  EXPECT_EQ(plural_only.status.pod_ips.size(), 2u);
  EXPECT_EQ(plural_only.status.rest->host_ip, "192.168.0.5");

  core::v1::Pod conflict = plural_only;
  conflict.status.pod_ip = "10.9.9.9";
  Default(conflict);
  ASSERT_EQ(conflict.status.pod_ips.size(), 1u);
  EXPECT_EQ(conflict.status.pod_ips[0].ip, "10.9.9.9");
}

TEST(DefaultImagePullPolicyTest, FollowsTheTag) {
  EXPECT_EQ(DefaultImagePullPolicy("nginx"), "Always");
  EXPECT_EQ(DefaultImagePullPolicy("nginx:latest"), "Always");
  EXPECT_EQ(DefaultImagePullPolicy("nginx:1.25"), "IfNotPresent");
  EXPECT_EQ(DefaultImagePullPolicy("localhost:5000/nginx"), "Always");
  EXPECT_EQ(DefaultImagePullPolicy("localhost:5000/nginx:v1"), "IfNotPresent");
  EXPECT_EQ(DefaultImagePullPolicy(
                "nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
            "IfNotPresent");
  EXPECT_EQ(
      DefaultImagePullPolicy(
          "nginx:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
      "Always");
  EXPECT_EQ(DefaultImagePullPolicy(""), "IfNotPresent");
}

TEST(DefaultNamespaceTest, LabelAndPhase) {
  core::v1::Namespace ns;
  ns.metadata.name = "team-a";
  Default(ns);
  EXPECT_EQ(ns.metadata.labels.at("kubernetes.io/metadata.name"), "team-a");
  EXPECT_EQ(ns.status.phase, "Active");
  ns.status.phase = "Terminating";
  ns.metadata.labels["kubernetes.io/metadata.name"] = "spoofed";
  Default(ns);
  EXPECT_EQ(ns.status.phase, "Terminating");
  EXPECT_EQ(ns.metadata.labels.at("kubernetes.io/metadata.name"), "team-a");
}

TEST(DefaultNamespaceTest, NamelessGetsNoLabel) {
  core::v1::Namespace ns;
  ns.metadata.rest->generate_name = "tmp-";
  Default(ns);
  EXPECT_TRUE(ns.metadata.labels.empty());
}

TEST(DefaultNodeTest, AllocatableFromCapacity) {
  core::v1::Node node;
  node.status.capacity = {{"cpu", meta::Quantity{"4"}}, {"pods", meta::Quantity{"110"}}};
  Default(node);
  EXPECT_EQ(node.status.allocatable, node.status.capacity);
  node.status.allocatable = {{"cpu", meta::Quantity{"3"}}};
  Default(node);
  EXPECT_EQ(node.status.allocatable.at("cpu").text, "3");
}

TEST(DefaultNodeTest, PodCIDRsInStep) {
  core::v1::Node node;
  node.spec.pod_cidr = "10.244.1.0/24";
  Default(node);
  EXPECT_EQ(node.spec.pod_cidrs, std::vector<std::string>{"10.244.1.0/24"});
  core::v1::Node plural;
  plural.spec.pod_cidrs = {"10.244.2.0/24", "fd00:10:244:2::/64"};
  Default(plural);
  EXPECT_EQ(plural.spec.pod_cidr, "10.244.2.0/24");
  EXPECT_EQ(plural.spec.pod_cidrs.size(), 2u);
}

TEST(DefaultEndpointsTest, PortProtocolTCP) {
  core::v1::Endpoints ep;
  ep.subsets.resize(1);
  ep.subsets[0].ports.resize(2);
  ep.subsets[0].ports[1].protocol = "UDP";
  Default(ep);
  EXPECT_EQ(ep.subsets[0].ports[0].protocol, "TCP");
  EXPECT_EQ(ep.subsets[0].ports[1].protocol, "UDP");
}

TEST(DefaultEndpointSliceTest, PortNameAndProtocol) {
  discovery::v1::EndpointSlice slice;
  slice.ports = std::vector<discovery::v1::EndpointPort>(1);
  (*slice.ports)[0].port = 80;
  Default(slice);
  EXPECT_EQ((*slice.ports)[0].name, "");
  EXPECT_EQ((*slice.ports)[0].protocol, "TCP");
  discovery::v1::EndpointSlice no_ports;
  Default(no_ports);
  EXPECT_FALSE(no_ports.ports.has_value());
}

TEST(DefaultTest, LeaseAndEventUnchanged) {
  coordination::v1::Lease lease;
  coordination::v1::Lease lease_copy = lease;
  Default(lease);
  EXPECT_EQ(lease, lease_copy);
  core::v1::Event event;
  core::v1::Event event_copy = event;
  Default(event);
  EXPECT_EQ(event, event_copy);
}

}  // namespace
}  // namespace svcplane::api::validation
