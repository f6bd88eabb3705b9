#include "api/validation/admit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace svcplane::api::validation {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> CauseFields(const Status& st) {
  std::vector<std::string> out;
  for (const StatusCause& c : st.causes()) out.push_back(c.field + " " + c.type);
  return out;
}

core::v1::Service NewService(std::string name) {
  core::v1::Service svc;
  svc.metadata.name = std::move(name);
  svc.metadata.namespace_ = "default";
  svc.spec.selector = {{"app", "web"}};
  svc.spec.ports.resize(1);
  svc.spec.ports[0].port = 80;
  return svc;
}

// What the Service allocator will do: hand out an address from the service CIDR.
Status FakeAllocate(core::v1::Service& svc) {
  if (svc.spec.type == "ExternalName") return Status::Ok();
  if (svc.spec.cluster_ip.empty()) {
    svc.spec.cluster_ip = "10.96.0.10";
    svc.spec.cluster_ips = {"10.96.0.10"};
  }
  svc.spec.ip_families = {"IPv4"};
  svc.spec.ip_family_policy = "SingleStack";
  return Status::Ok();
}

TEST(AdmitTest, ServiceCreateDefaultsAllocatesAndValidates) {
  core::v1::Service svc = NewService("web");
  ASSERT_TRUE(AdmitCreate(svc, FakeAllocate).ok());
  EXPECT_EQ(svc.spec.type, "ClusterIP");
  EXPECT_EQ(svc.spec.ports[0].protocol, "TCP");
  EXPECT_EQ(svc.spec.ports[0].target_port, meta::IntOrString::FromInt(80));
  EXPECT_EQ(svc.spec.cluster_ip, "10.96.0.10");
}

TEST(AdmitTest, ServiceCreateInvalidName) {
  core::v1::Service svc = NewService("1web");
  Status st = AdmitCreate(svc, FakeAllocate);
  EXPECT_EQ(st.code(), Code::kInvalid);
  EXPECT_THAT(st.message(),
              ::testing::StartsWith("Service \"1web\" is invalid: metadata.name: Invalid value: "
                                    "\"1web\": a DNS-1035 label must consist of"));
  EXPECT_THAT(CauseFields(st), ElementsAre("metadata.name FieldValueInvalid"));
}

TEST(AdmitTest, AllocatorErrorsPassThrough) {
  core::v1::Service svc = NewService("web");
  Status st = AdmitCreate(svc, [](core::v1::Service&) {
    return Status(Code::kInvalid, "provided IP is already allocated");
  });
  EXPECT_EQ(st.message(), "provided IP is already allocated");
}

TEST(AdmitTest, CommonChecksRunOnlyAfterKindChecksPass) {
  core::v1::Event e;
  e.metadata.name = "a%b";
  e.metadata.namespace_ = "default";
  e.involved_object.namespace_ = "default";
  Status st = AdmitCreate(e);
  EXPECT_EQ(st.message(),
            "Event \"a%b\" is invalid: metadata.name: Invalid value: \"a%b\": may "
            "not contain '%'");
}

TEST(AdmitTest, EndpointSliceUpdateBumpsGenerationAndChecksImmutables) {
  discovery::v1::EndpointSlice old;
  old.metadata.name = "web-abc";
  old.metadata.namespace_ = "default";
  old.address_type = "IPv4";
  ASSERT_TRUE(AdmitCreate(old).ok());
  EXPECT_EQ(old.metadata.rest->generation, 1);
  old.metadata.resource_version = "7";
  discovery::v1::EndpointSlice upd = old;
  upd.endpoints.push_back({{"10.0.0.1"}, {}, {}, {}, {}, {}, {}, {}, {}});
  ASSERT_TRUE(AdmitUpdate(upd, old).ok());
  EXPECT_EQ(upd.metadata.rest->generation, 2);
  discovery::v1::EndpointSlice bad = old;
  bad.address_type = "IPv6";
  bad.metadata.name = "other";
  Status st = AdmitUpdate(bad, old);
  EXPECT_EQ(st.code(), Code::kInvalid);
  EXPECT_THAT(CauseFields(st),
              ElementsAre("metadata.name FieldValueInvalid", "addressType FieldValueInvalid"));
  EXPECT_THAT(st.message(), ::testing::StartsWith("EndpointSlice.discovery.k8s.io \"other\" is "
                                                  "invalid: ["));
}

TEST(AdmitTest, NamespaceLifecycle) {
  core::v1::Namespace ns;
  ns.metadata.name = "team-a";
  ASSERT_TRUE(AdmitCreate(ns).ok());
  EXPECT_EQ(ns.status.phase, "Active");
  EXPECT_THAT(ns.spec.finalizers, ElementsAre("kubernetes"));
  ns.metadata.resource_version = "3";
  core::v1::Namespace terminating = ns;
  terminating.metadata.deletion_timestamp = meta::Time::FromUnix(10);
  terminating.status.phase = "Terminating";
  core::v1::Namespace status = terminating;
  ASSERT_TRUE(AdmitStatusUpdate(status, terminating).ok());
  core::v1::Namespace fin = terminating;
  fin.spec.finalizers.clear();
  ASSERT_TRUE(AdmitFinalizeUpdate(fin, terminating).ok());
  EXPECT_TRUE(fin.spec.finalizers.empty());
}

TEST(AdmitTest, PodStatusUpdate) {
  core::v1::Pod pod;
  pod.metadata.name = "p";
  pod.metadata.namespace_ = "default";
  pod.spec.containers.resize(1);
  pod.spec.containers[0].name = "c";
  pod.spec.containers[0].image = "nginx";
  ASSERT_TRUE(AdmitCreate(pod).ok());
  pod.metadata.resource_version = "1";
  core::v1::Pod status = pod;
  status.status.phase = "Running";
  status.status.pod_ip = "10.1.1.1";
  status.status.pod_ips = {{"10.1.1.1", {}}};
  ASSERT_TRUE(AdmitStatusUpdate(status, pod).ok());
  // The singular podIP wins over a conflicting podIPs, as in upstream's v1 conversion.
  status.status.pod_ips = {{"nope", {}}};
  ASSERT_TRUE(AdmitStatusUpdate(status, pod).ok());
  EXPECT_EQ(status.status.pod_ips[0].ip, "10.1.1.1");
  status.status.pod_ip = "nope";
  Status st = AdmitStatusUpdate(status, pod);
  EXPECT_EQ(st.code(), Code::kInvalid);
  EXPECT_THAT(CauseFields(st), ElementsAre("status.podIPs[0] FieldValueInvalid"));
}

}  // namespace
}  // namespace svcplane::api::validation
