// Realistic objects as `kubectl get -o json` prints them decode into our types and encode back
// to the same JSON (after canonical key ordering), unknown fields included.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "api/codec/json.h"

namespace svcplane::api::codec {
namespace {

std::string ReadTestdata(const std::string& name) {
  std::ifstream in(std::string(SVCPLANE_TESTDATA) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

boost::json::value Canonical(const boost::json::value& v) {
  if (v.is_object()) {
    std::vector<std::pair<std::string, boost::json::value>> items;
    for (const auto& kv : v.as_object()) {
      items.emplace_back(std::string(kv.key()), Canonical(kv.value()));
    }
    std::sort(items.begin(), items.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    boost::json::object out;
    for (auto& [k, val] : items) out.emplace(k, std::move(val));
    return out;
  }
  if (v.is_array()) {
    boost::json::array out;
    for (const auto& e : v.as_array()) out.push_back(Canonical(e));
    return out;
  }
  return v;
}

std::string CanonicalText(std::string_view json) {
  return boost::json::serialize(Canonical(boost::json::parse(json)));
}

template <typename T>
T RoundTrip(const std::string& file) {
  std::string input = ReadTestdata(file);
  auto decoded = DecodeJson<T>(input);
  EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
  if (!decoded.ok()) return T{};
  std::string encoded = EncodeJson(*decoded);
  EXPECT_EQ(CanonicalText(encoded), CanonicalText(input)) << file;
  // Encoding is a fixed point: decoding our own output gives the same object.
  auto again = DecodeJson<T>(encoded);
  EXPECT_TRUE(again.ok());
  if (again.ok()) {
    EXPECT_TRUE(*again == *decoded);
  }
  return *decoded;
}

TEST(GoldenTest, PodWithContainersProbesVolumesStatus) {
  auto pod = RoundTrip<core::v1::Pod>("pod.json");
  EXPECT_EQ(pod.metadata.name, "web-7d9c6b5f4-x2k8p");
  EXPECT_EQ(pod.metadata.labels.at("app"), "web");
  ASSERT_EQ(pod.metadata.owner_references.size(), 1u);
  EXPECT_EQ(pod.metadata.owner_references[0].controller, true);
  ASSERT_EQ(pod.spec.containers.size(), 1u);
  ASSERT_EQ(pod.spec.containers[0].ports.size(), 2u);
  EXPECT_EQ(pod.spec.containers[0].ports[1].name, "metrics");
  EXPECT_EQ(pod.spec.containers[0].ports[1].container_port, 9090);
  EXPECT_EQ(pod.spec.rest->termination_grace_period_seconds, 30);
  EXPECT_EQ(pod.status.pod_ips.size(), 2u);
  EXPECT_EQ(pod.status.conditions[2].type, "Ready");
  EXPECT_TRUE(pod.status.conditions[2].rest->last_probe_time.IsZero());
  EXPECT_EQ(pod.metadata.creation_timestamp.unix_seconds, 1714557600);
  // Unknown fields are kept verbatim at every level.
  EXPECT_FALSE(pod.spec.unknown.empty());                // affinity
  EXPECT_FALSE(pod.spec.containers[0].unknown.empty());  // probes, env, volumeMounts
}

TEST(GoldenTest, DualStackService) {
  auto svc = RoundTrip<core::v1::Service>("service_dualstack.json");
  EXPECT_EQ(svc.spec.cluster_ips.size(), 2u);
  EXPECT_EQ(svc.spec.ip_family_policy, "PreferDualStack");
  ASSERT_EQ(svc.spec.ports.size(), 2u);
  EXPECT_TRUE(svc.spec.ports[0].target_port.is_string);
  EXPECT_EQ(svc.spec.ports[0].target_port.str_value, "http");
  EXPECT_FALSE(svc.spec.ports[1].target_port.is_string);
  EXPECT_EQ(svc.spec.ports[1].target_port.int_value, 9000);
  EXPECT_EQ(svc.spec.session_affinity_config->client_ip->timeout_seconds, 10800);
  EXPECT_EQ(svc.spec.traffic_distribution, "PreferClose");
}

TEST(GoldenTest, EndpointSliceWithHints) {
  auto slice = RoundTrip<discovery::v1::EndpointSlice>("endpointslice_hints.json");
  EXPECT_EQ(slice.address_type, "IPv4");
  ASSERT_EQ(slice.endpoints.size(), 2u);
  EXPECT_EQ(slice.endpoints[1].conditions.ready, false);
  EXPECT_EQ(slice.endpoints[1].conditions.terminating, true);
  EXPECT_EQ(slice.endpoints[0].hints->for_zones[0].name, "zone-a");
  EXPECT_EQ(slice.endpoints[0].zone, "zone-a");
  EXPECT_EQ((*slice.ports)[1].app_protocol, "kubernetes.io/h2c");
  EXPECT_EQ(slice.metadata.rest->generation, 3);
}

TEST(GoldenTest, RbacKinds) {
  auto role = RoundTrip<rbac::v1::Role>("role.json");
  EXPECT_EQ(role.rules.at(0).resource_names, std::vector<std::string>{"p1"});
  auto view = RoundTrip<rbac::v1::ClusterRole>("clusterrole_aggregated.json");
  ASSERT_TRUE(view.aggregation_rule.has_value());
  EXPECT_EQ(view.aggregation_rule->cluster_role_selectors.at(1).match_expressions.at(0).op, "In");
  EXPECT_EQ(view.rules.at(1).non_resource_urls.at(1), "/healthz/*");
  auto rb = RoundTrip<rbac::v1::RoleBinding>("rolebinding.json");
  EXPECT_EQ(rb.subjects.at(2).ns, "demo");
  EXPECT_EQ(rb.role_ref.name, "view");
  auto crb = RoundTrip<rbac::v1::ClusterRoleBinding>("clusterrolebinding.json");
  EXPECT_EQ(crb.subjects.at(0).kind, "ServiceAccount");
}

TEST(GoldenTest, LeaseWithMicroTime) {
  auto lease = RoundTrip<coordination::v1::Lease>("lease.json");
  EXPECT_EQ(lease.spec.lease_duration_seconds, 15);
  EXPECT_EQ(lease.spec.renew_time->unix_micros % 1000000, 123456);
  // MicroTime always has six fractional digits on the wire, even when they are zero.
  EXPECT_NE(EncodeJson(lease).find("\"acquireTime\":\"2024-05-01T09:00:00.000000Z\""),
            std::string::npos);
}

TEST(GoldenTest, NodeEventEndpointsNamespace) {
  auto node = RoundTrip<core::v1::Node>("node.json");
  EXPECT_EQ(node.status.allocatable.at("cpu").MilliValue(), 4000);
  EXPECT_EQ(node.status.daemon_endpoints.kubelet_endpoint.port, 10250);
  auto ev = RoundTrip<core::v1::Event>("event.json");
  EXPECT_EQ(ev.count, 3);
  EXPECT_TRUE(ev.event_time.IsZero());
  auto ep = RoundTrip<core::v1::Endpoints>("endpoints.json");
  EXPECT_EQ(ep.subsets[0].not_ready_addresses[0].ip, "10.244.2.9");
  auto ns = RoundTrip<core::v1::Namespace>("namespace.json");
  EXPECT_EQ(ns.spec.finalizers, std::vector<std::string>{"kubernetes"});
}

TEST(GoldenTest, ListOfPods) {
  std::string pod = ReadTestdata("pod.json");
  std::string list =
      R"({"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"77"},"items":[)" + pod +
      "," + pod + "]}";
  auto decoded = DecodeJson<PodList>(list);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->items.size(), 2u);
  EXPECT_EQ(decoded->metadata.resource_version, "77");
  EXPECT_EQ(CanonicalText(EncodeJson(*decoded)), CanonicalText(list));
}

TEST(GoldenTest, NodeWritesNonOmitemptyZeroFields) {
  // An empty Node written by us has what upstream always writes: nodeInfo's ten strings and
  // the kubelet port, so that strict clients (the Python client) accept it.
  core::v1::Node node;
  node.kind = "Node";
  node.api_version = "v1";
  node.metadata.name = "n";
  std::string json = EncodeJson(node);
  EXPECT_NE(json.find("\"creationTimestamp\":null"), std::string::npos);
  EXPECT_NE(json.find("\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":0}}"), std::string::npos);
  EXPECT_NE(json.find("\"machineID\":\"\""), std::string::npos);
  EXPECT_NE(json.find("\"architecture\":\"\""), std::string::npos);
}

}  // namespace
}  // namespace svcplane::api::codec
