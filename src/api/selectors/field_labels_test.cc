#include "api/selectors/field_labels.h"

#include "gtest/gtest.h"

namespace svcplane::api::selectors {
namespace {

FieldSelector Parse(std::string_view s) { return *ParseFieldSelector(s); }

std::string Error(std::string_view resource, std::string_view selector) {
  auto r = ConvertFieldLabels(resource, Parse(selector));
  if (r.ok()) return "<ok: " + r->String() + ">";
  EXPECT_EQ(r.status().code(), Code::kBadRequest);
  return r.status().message();
}

TEST(FieldLabels, PodsExplicitListAndLegacyHost) {
  EXPECT_TRUE(ConvertFieldLabels(
                  "pods", Parse("spec.nodeName=n1,status.phase!=Succeeded,status.phase!=Failed"))
                  .ok());
  auto host = ConvertFieldLabels("pods", Parse("spec.host=n1"));
  ASSERT_TRUE(host.ok());
  EXPECT_EQ(host->String(), "spec.nodeName=n1");
  EXPECT_EQ(Error("pods", "spec.containers=x"), "field label not supported: spec.containers");
}

TEST(FieldLabels, NodesAndNamespacesRejectNamespaceField) {
  EXPECT_TRUE(ConvertFieldLabels("nodes", Parse("metadata.name=n1,spec.unschedulable=false")).ok());
  EXPECT_EQ(Error("nodes", "metadata.namespace=x"),
            "field label not supported: metadata.namespace");
  EXPECT_TRUE(ConvertFieldLabels("namespaces", Parse("status.phase=Active")).ok());
  EXPECT_EQ(Error("namespaces", "metadata.namespace=x"),
            "field label not supported: metadata.namespace");
}

TEST(FieldLabels, ServicesAndEvents) {
  EXPECT_TRUE(
      ConvertFieldLabels("services", Parse("spec.type=ClusterIP,spec.clusterIP=None")).ok());
  EXPECT_EQ(Error("services", "spec.ports=x"), "field label not supported: spec.ports");
  EXPECT_TRUE(ConvertFieldLabels("events", Parse("involvedObject.name=web,involvedObject.kind=Pod,"
                                                 "involvedObject.uid=u,type=Warning"))
                  .ok());
  EXPECT_EQ(Error("events", "message=x"), "field label not supported: message");
}

TEST(FieldLabels, DefaultPairForOtherResources) {
  for (std::string_view r : {"endpoints", "endpointslices", "leases"}) {
    EXPECT_TRUE(ConvertFieldLabels(r, Parse("metadata.name=a,metadata.namespace=b")).ok()) << r;
    EXPECT_EQ(Error(r, "spec.x=1"),
              "\"spec.x\" is not a known field selector: only \"metadata.name\", "
              "\"metadata.namespace\"");
  }
  EXPECT_TRUE(SupportedFieldLabels("leases").empty());
  EXPECT_EQ(SupportedFieldLabels("nodes").size(), 2u);
}

}  // namespace
}  // namespace svcplane::api::selectors
