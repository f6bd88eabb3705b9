#include "api/validation/strategy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/validation/internal/test_util.h"

namespace svcplane::api::validation {
namespace {

using ::testing::ElementsAre;
using testing::ValidPod;
using testing::ValidService;
using testing::ValidSlice;

TEST(PrepareObjectMetaTest, CreateClearsDeletionFields) {
  meta::ObjectMeta m;
  m.deletion_timestamp = meta::Time::FromUnix(100);
  m.rest->deletion_grace_period_seconds = 30;
  PrepareObjectMetaForCreate(m);
  EXPECT_FALSE(m.deletion_timestamp.has_value());
  EXPECT_FALSE(m.rest->deletion_grace_period_seconds.has_value());
}

TEST(PrepareObjectMetaTest, UpdateKeepsServerOwnedFields) {
  meta::ObjectMeta old;
  old.uid = "u1";
  old.rest->generation = 4;
  old.creation_timestamp = meta::Time::FromUnix(10);
  old.deletion_timestamp = meta::Time::FromUnix(20);
  old.rest->deletion_grace_period_seconds = 0;
  meta::ObjectMeta m;
  m.rest->generation = 9;
  PrepareObjectMetaForUpdate(m, old);
  EXPECT_EQ(m.uid, "u1");
  EXPECT_EQ(m.rest->generation, 4);
  EXPECT_EQ(m.creation_timestamp, old.creation_timestamp);
  EXPECT_EQ(m.deletion_timestamp, old.deletion_timestamp);
  EXPECT_EQ(m.rest->deletion_grace_period_seconds, 0);
  // A differing uid is kept so that validation can reject it.
  m.uid = "u2";
  PrepareObjectMetaForUpdate(m, old);
  EXPECT_EQ(m.uid, "u2");
}

TEST(NamespaceStrategyTest, CreateSetsPhaseFinalizerAndLabel) {
  core::v1::Namespace ns;
  ns.metadata.name = "team-a";
  ns.status.phase = "Terminating";
  PrepareForCreate(ns);
  EXPECT_EQ(ns.status.phase, "Active");
  EXPECT_THAT(ns.spec.finalizers, ElementsAre("kubernetes"));
  EXPECT_EQ(ns.metadata.labels.at("kubernetes.io/metadata.name"), "team-a");

  core::v1::Namespace other;
  other.metadata.name = "b";
  other.spec.finalizers = {"example.com/x"};
  PrepareForCreate(other);
  EXPECT_THAT(other.spec.finalizers, ElementsAre("example.com/x", "kubernetes"));
  PrepareForCreate(other);
  EXPECT_THAT(other.spec.finalizers, ElementsAre("example.com/x", "kubernetes"));
}

TEST(NamespaceStrategyTest, UpdateKeepsFinalizersAndStatus) {
  core::v1::Namespace old;
  old.metadata.name = "team-a";
  PrepareForCreate(old);
  core::v1::Namespace ns = old;
  ns.spec.finalizers.clear();
  ns.status.phase = "Terminating";
  ns.metadata.labels.erase("kubernetes.io/metadata.name");
  PrepareForUpdate(ns, old);
  EXPECT_THAT(ns.spec.finalizers, ElementsAre("kubernetes"));
  EXPECT_EQ(ns.status.phase, "Active");
  EXPECT_EQ(ns.metadata.labels.at("kubernetes.io/metadata.name"), "team-a");
}

TEST(NamespaceStrategyTest, StatusAndFinalizeSubresources) {
  core::v1::Namespace old;
  old.metadata.name = "team-a";
  PrepareForCreate(old);
  core::v1::Namespace status = old;
  status.spec.finalizers.clear();
  status.status.phase = "Terminating";
  PrepareForStatusUpdate(status, old);
  EXPECT_THAT(status.spec.finalizers, ElementsAre("kubernetes"));
  EXPECT_EQ(status.status.phase, "Terminating");

  core::v1::Namespace fin = old;
  fin.spec.finalizers.clear();
  fin.status.phase = "Terminating";
  PrepareForFinalizeUpdate(fin, old);
  EXPECT_TRUE(fin.spec.finalizers.empty());
  EXPECT_EQ(fin.status.phase, "Active");
}

TEST(ServiceStrategyTest, CreateResetsStatusAndNormalizesClusterIPs) {
  core::v1::Service svc;
  svc.spec.cluster_ip = "None";
  svc.status.conditions.push_back(meta::RawJson{"{}"});
  PrepareForCreate(svc);
  EXPECT_EQ(svc.status, core::v1::ServiceStatus{});
  EXPECT_THAT(svc.spec.cluster_ips, ElementsAre("None"));

  core::v1::Service both;
  both.spec.cluster_ip = "10.0.0.1";
  both.spec.cluster_ips = {"10.0.0.1", "fd00::1"};
  PrepareForCreate(both);
  EXPECT_THAT(both.spec.cluster_ips, ElementsAre("10.0.0.1", "fd00::1"));
}

TEST(ServiceStrategyTest, UpdateKeepsStatusAndAllocatedValues) {
  core::v1::Service old = ValidService();
  old.spec.type = "NodePort";
  old.spec.ports[0].node_port = 30080;
  old.status.load_balancer.ingress.push_back(meta::RawJson{R"({"ip":"1.2.3.4"})"});
  core::v1::Service svc = old;
  svc.spec.cluster_ip.clear();
  svc.spec.cluster_ips.clear();
  svc.spec.ports[0].node_port = 0;
  svc.status = {};
  PrepareForUpdate(svc, old);
  EXPECT_EQ(svc.spec.cluster_ip, "10.0.0.10");
  EXPECT_THAT(svc.spec.cluster_ips, ElementsAre("10.0.0.10"));
  EXPECT_EQ(svc.spec.ports[0].node_port, 30080);
  EXPECT_EQ(svc.status, old.status);
}

TEST(ServiceStrategyTest, ChangedClusterIPIsMirroredIntoClusterIPs) {
  core::v1::Service old = ValidService();
  core::v1::Service svc = old;
  svc.spec.cluster_ip = "10.0.0.2";
  PrepareForUpdate(svc, old);
  EXPECT_THAT(svc.spec.cluster_ips, ElementsAre("10.0.0.2"));
}

TEST(ServiceStrategyTest, ChangeToExternalNameWipesAllocatedFields) {
  core::v1::Service old = ValidService();
  old.spec.type = "NodePort";
  old.spec.ports[0].node_port = 30080;
  core::v1::Service svc = old;
  svc.spec.type = "ExternalName";
  svc.spec.external_name = "example.com";
  PrepareForUpdate(svc, old);
  EXPECT_EQ(svc.spec.cluster_ip, "");
  EXPECT_TRUE(svc.spec.cluster_ips.empty());
  EXPECT_TRUE(svc.spec.ip_families.empty());
  EXPECT_FALSE(svc.spec.ip_family_policy.has_value());
  EXPECT_EQ(svc.spec.ports[0].node_port, 0);
}

TEST(ServiceStrategyTest, ChangeToClusterIPKeepsNewNodePortForValidation) {
  core::v1::Service old = ValidService();
  old.spec.type = "NodePort";
  old.spec.ports[0].node_port = 30080;
  core::v1::Service svc = old;
  svc.spec.type = "ClusterIP";
  svc.spec.ports[0].node_port = 30999;  // net-new: not wiped, validation rejects it
  PrepareForUpdate(svc, old);
  EXPECT_EQ(svc.spec.ports[0].node_port, 30999);
}

TEST(ServiceStrategyTest, LoadBalancerToClusterIPDropsLBOnlyFields) {
  core::v1::Service old = ValidService();
  old.spec.type = "LoadBalancer";
  old.spec.external_traffic_policy = "Local";
  old.spec.health_check_node_port = 31000;
  old.spec.allocate_load_balancer_node_ports = true;
  old.spec.load_balancer_class = "example.com/lb";
  core::v1::Service svc = old;
  svc.spec.type = "ClusterIP";
  PrepareForUpdate(svc, old);
  EXPECT_EQ(svc.spec.health_check_node_port, 0);
  EXPECT_FALSE(svc.spec.allocate_load_balancer_node_ports.has_value());
  EXPECT_FALSE(svc.spec.load_balancer_class.has_value());
}

TEST(ServiceStrategyTest, DualStackDowngradeTrimsSecondary) {
  core::v1::Service old = ValidService();
  old.spec.cluster_ips = {"10.0.0.10", "fd00::10"};
  old.spec.ip_families = {"IPv4", "IPv6"};
  old.spec.ip_family_policy = "RequireDualStack";
  core::v1::Service svc = old;
  svc.spec.ip_family_policy = "SingleStack";
  PrepareForUpdate(svc, old);
  EXPECT_THAT(svc.spec.cluster_ips, ElementsAre("10.0.0.10"));
  EXPECT_THAT(svc.spec.ip_families, ElementsAre("IPv4"));
}

TEST(ServiceStrategyTest, StatusUpdateKeepsSpec) {
  core::v1::Service old = ValidService();
  core::v1::Service svc = old;
  svc.spec.type = "NodePort";
  svc.status.load_balancer.ingress.push_back(meta::RawJson{R"({"ip":"1.2.3.4"})"});
  PrepareForStatusUpdate(svc, old);
  EXPECT_EQ(svc.spec, old.spec);
  EXPECT_EQ(svc.status.load_balancer.ingress.size(), 1u);
}

TEST(PodStrategyTest, CreateResetsStatusAndSetsGeneration) {
  core::v1::Pod pod = ValidPod();
  pod.status.pod_ip = "10.1.1.1";
  pod.status.phase = "Running";
  PrepareForCreate(pod);
  EXPECT_EQ(pod.metadata.rest->generation, 1);
  EXPECT_EQ(pod.status.phase, "Pending");
  EXPECT_EQ(pod.status.rest->qos_class, "BestEffort");
  EXPECT_EQ(pod.status.pod_ip, "");
}

TEST(PodStrategyTest, QOSClass) {
  core::v1::Pod pod = ValidPod();
  EXPECT_EQ(PodQOSClass(pod), "BestEffort");
  pod.spec.containers[0].rest->resources.text = R"({"requests":{"cpu":"100m"}})";
  EXPECT_EQ(PodQOSClass(pod), "Burstable");
  pod.spec.containers[0].rest->resources.text = R"({"limits":{"cpu":"1","memory":"1Gi"}})";
  EXPECT_EQ(PodQOSClass(pod), "Guaranteed");
  pod.spec.containers[0].rest->resources.text =
      R"({"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}})";
  EXPECT_EQ(PodQOSClass(pod), "Burstable");
  pod.spec.containers[0].rest->resources.text =
      R"({"claims":[{"name":"x"}],"limits":{"cpu":2,"memory":"2Gi"},"requests":{"cpu":"2000m","memory":"2Gi"}})";
  EXPECT_EQ(PodQOSClass(pod), "Guaranteed");
  pod.spec.containers[0].rest->resources.text = R"({"limits":{"nvidia.com/gpu":"1"}})";
  EXPECT_EQ(PodQOSClass(pod), "BestEffort");
  pod.spec.containers[0].rest->resources.text = "{}";
  EXPECT_EQ(PodQOSClass(pod), "BestEffort");
  // A repeated key: the last value counts, as when the JSON is decoded into a map.
  pod.spec.containers[0].rest->resources.text =
      R"({"limits":{"cpu":"1","memory":"1Gi","cpu":"2"},"requests":{"cpu":"2"}})";
  EXPECT_EQ(PodQOSClass(pod), "Guaranteed");
}

// Requests and limits are summed over all containers, init containers included, and every
// container needs both a cpu and a memory limit for Guaranteed (upstream's GetPodQOS).
TEST(PodStrategyTest, QOSClassSumsOverContainers) {
  core::v1::Pod pod = ValidPod();
  pod.spec.containers.push_back(pod.spec.containers[0]);
  pod.spec.containers[1].name = "second";
  pod.spec.containers[0].rest->resources.text = R"({"limits":{"cpu":"1","memory":"1Gi"}})";
  pod.spec.containers[1].rest->resources.text =
      R"({"limits":{"cpu":"500m","memory":"512Mi"},"requests":{"cpu":"0.5"}})";
  EXPECT_EQ(PodQOSClass(pod), "Guaranteed");
  pod.spec.containers[1].rest->resources.text = R"({"limits":{"cpu":"500m"}})";
  EXPECT_EQ(PodQOSClass(pod), "Burstable");  // the second container has no memory limit
  pod.spec.containers[1].rest->resources.text = R"({"requests":{"memory":"0"}})";
  EXPECT_EQ(PodQOSClass(pod), "Burstable");  // no limits at all in the second container
  pod.spec.containers[0].rest->resources.text = "{}";
  pod.spec.containers[1].rest->resources.text = R"({"requests":{"ephemeral-storage":"1Gi"}})";
  EXPECT_EQ(PodQOSClass(pod), "BestEffort");
  core::v1::Container init = pod.spec.containers[0];
  init.name = "init";
  init.rest->resources.text = R"({"requests":{"cpu":"10m"}})";
  pod.spec.rest->init_containers.push_back(init);
  EXPECT_EQ(PodQOSClass(pod), "Burstable");
}

TEST(PodStrategyTest, UpdateKeepsStatusAndBumpsGenerationOnSpecChange) {
  core::v1::Pod old = ValidPod();
  PrepareForCreate(old);
  old.status.pod_ip = "10.1.1.1";
  core::v1::Pod pod = old;
  pod.status = {};
  pod.metadata.labels["x"] = "y";
  PrepareForUpdate(pod, old);
  EXPECT_EQ(pod.status, old.status);
  EXPECT_EQ(pod.metadata.rest->generation, 1);
  pod.spec.containers[0].image = "nginx:1.26";
  PrepareForUpdate(pod, old);
  EXPECT_EQ(pod.metadata.rest->generation, 2);
}

TEST(PodStrategyTest, StatusUpdateKeepsSpecOwnersAndDeletion) {
  core::v1::Pod old = ValidPod();
  PrepareForCreate(old);
  old.metadata.owner_references.push_back({"v1", "ReplicaSet", "rs", "u1", true, true, {}});
  old.metadata.deletion_timestamp = meta::Time::FromUnix(5);
  core::v1::Pod pod = old;
  pod.spec.node_name = "node-1";
  pod.metadata.owner_references.clear();
  pod.metadata.deletion_timestamp.reset();
  pod.status.pod_ip = "10.1.1.1";
  pod.status.rest->qos_class = "";
  PrepareForStatusUpdate(pod, old);
  EXPECT_EQ(pod.spec, old.spec);
  EXPECT_EQ(pod.metadata.owner_references, old.metadata.owner_references);
  EXPECT_EQ(pod.metadata.deletion_timestamp, old.metadata.deletion_timestamp);
  EXPECT_EQ(pod.status.pod_ip, "10.1.1.1");
  EXPECT_EQ(pod.status.rest->qos_class, "BestEffort");
}

TEST(NodeStrategyTest, SpecStatusSeparation) {
  core::v1::Node old;
  old.metadata.name = "n1";
  old.status.node_info.kubelet_version = "v1.33.0";
  core::v1::Node node = old;
  node.spec.unschedulable = true;
  node.status.node_info.kubelet_version = "v9";
  PrepareForUpdate(node, old);
  EXPECT_TRUE(node.spec.unschedulable);
  EXPECT_EQ(node.status.node_info.kubelet_version, "v1.33.0");

  core::v1::Node status = old;
  status.spec.unschedulable = true;
  status.status.node_info.kubelet_version = "v9";
  PrepareForStatusUpdate(status, old);
  EXPECT_FALSE(status.spec.unschedulable);
  EXPECT_EQ(status.status.node_info.kubelet_version, "v9");

  core::v1::Node created = old;
  PrepareForCreate(created);
  EXPECT_EQ(created.status, old.status);
}

TEST(EndpointSliceStrategyTest, GenerationRules) {
  discovery::v1::EndpointSlice slice = ValidSlice();
  slice.metadata.rest->generation = 7;
  PrepareForCreate(slice);
  EXPECT_EQ(slice.metadata.rest->generation, 1);

  discovery::v1::EndpointSlice old = slice;
  discovery::v1::EndpointSlice upd = old;
  upd.endpoints[0].addresses = {"10.1.2.4"};
  PrepareForUpdate(upd, old);
  EXPECT_EQ(upd.metadata.rest->generation, 2);

  discovery::v1::EndpointSlice ann = upd;
  ann.metadata.annotations["a"] = "b";
  PrepareForUpdate(ann, upd);
  EXPECT_EQ(ann.metadata.rest->generation, 2);

  discovery::v1::EndpointSlice lab = upd;
  lab.metadata.labels["a"] = "b";
  PrepareForUpdate(lab, upd);
  EXPECT_EQ(lab.metadata.rest->generation, 3);

  discovery::v1::EndpointSlice ports = upd;
  (*ports.ports)[0].port = 81;
  ports.metadata.rest->generation = 100;  // client-sent generation is ignored
  PrepareForUpdate(ports, upd);
  EXPECT_EQ(ports.metadata.rest->generation, 3);
}

TEST(GenericStrategyTest, EndpointsLeaseEventKeepServerFields) {
  core::v1::Endpoints old_ep;
  old_ep.metadata.uid = "u";
  core::v1::Endpoints ep;
  PrepareForUpdate(ep, old_ep);
  EXPECT_EQ(ep.metadata.uid, "u");
  coordination::v1::Lease old_lease;
  old_lease.metadata.creation_timestamp = meta::Time::FromUnix(3);
  coordination::v1::Lease lease;
  PrepareForUpdate(lease, old_lease);
  EXPECT_EQ(lease.metadata.creation_timestamp, meta::Time::FromUnix(3));
  core::v1::Event event;
  event.metadata.deletion_timestamp = meta::Time::FromUnix(3);
  PrepareForCreate(event);
  EXPECT_FALSE(event.metadata.deletion_timestamp.has_value());
}

}  // namespace
}  // namespace svcplane::api::validation
