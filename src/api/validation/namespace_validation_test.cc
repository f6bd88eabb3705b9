#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/validation/internal/test_util.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using core::v1::Namespace;
using ::testing::ElementsAre;
using testing::Errs;
using ::testing::IsEmpty;

Namespace ValidNamespace() {
  Namespace ns;
  ns.metadata.name = "team-a";
  ns.metadata.resource_version = "1";
  Default(ns);
  PrepareForCreate(ns);
  return ns;
}

TEST(NamespaceValidationTest, ValidPasses) {
  EXPECT_THAT(Errs(ValidateCreate(ValidNamespace())), IsEmpty());
}

TEST(NamespaceValidationTest, NameIsDNS1123Label) {
  Namespace ns = ValidNamespace();
  ns.metadata.name = "Team-A";
  EXPECT_THAT(
      Errs(ValidateCreate(ns)),
      ElementsAre(std::string("metadata.name: Invalid value: \"Team-A\": ") + testing::kLabelMsg));
  ns.metadata.name = "team.a";
  EXPECT_THAT(Errs(ValidateCreate(ns)),
              ElementsAre("metadata.name: Invalid value: \"team.a\": must not contain dots"));
}

TEST(NamespaceValidationTest, ClusterScoped) {
  Namespace ns = ValidNamespace();
  ns.metadata.namespace_ = "default";
  EXPECT_THAT(Errs(ValidateCreate(ns)),
              ElementsAre("metadata.namespace: Forbidden: not allowed on this type"));
}

TEST(NamespaceValidationTest, SpecFinalizers) {
  Namespace ns = ValidNamespace();
  ns.spec.finalizers = {"kubernetes", "custom", "example.com/x"};
  EXPECT_THAT(Errs(ValidateCreate(ns)),
              ElementsAre("spec.finalizers: Invalid value: \"custom\": name is neither a "
                          "standard finalizer name nor is it fully qualified"));
}

TEST(NamespaceValidationTest, UpdateChecksMetadata) {
  Namespace old = ValidNamespace();
  Namespace ns = old;
  ns.metadata.labels["x"] = "y";
  EXPECT_THAT(Errs(ValidateUpdate(ns, old)), IsEmpty());
  ns.metadata.name = "other";
  EXPECT_THAT(Errs(ValidateUpdate(ns, old)),
              ElementsAre("metadata.name: Invalid value: \"other\": field is immutable"));
}

TEST(NamespaceValidationTest, StatusPhaseFollowsDeletion) {
  Namespace old = ValidNamespace();
  Namespace ns = old;
  ns.status.phase = "Terminating";
  EXPECT_THAT(Errs(ValidateStatusUpdate(ns, old)),
              ElementsAre("status.Phase: Invalid value: \"Terminating\": may only be 'Active' if "
                          "`deletionTimestamp` is empty"));
  old.metadata.deletion_timestamp = meta::Time::FromUnix(1);
  ns.metadata.deletion_timestamp = old.metadata.deletion_timestamp;
  EXPECT_THAT(Errs(ValidateStatusUpdate(ns, old)), IsEmpty());
  ns.status.phase = "Active";
  EXPECT_THAT(Errs(ValidateStatusUpdate(ns, old)),
              ElementsAre("status.Phase: Invalid value: \"Active\": may only be 'Terminating' if "
                          "`deletionTimestamp` is not empty"));
}

TEST(NamespaceValidationTest, FinalizeIndexesFinalizers) {
  Namespace old = ValidNamespace();
  Namespace ns = old;
  ns.spec.finalizers = {"kubernetes", "bad name"};
  std::vector<std::string> errs = Errs(ValidateFinalizeUpdate(ns, old));
  ASSERT_EQ(errs.size(), 2u);
  EXPECT_THAT(errs[0], ::testing::StartsWith("spec.finalizers[1]: Invalid value: \"bad name\": "
                                             "name part must consist of"));
  EXPECT_EQ(errs[1],
            "spec.finalizers[1]: Invalid value: \"bad name\": name is neither a standard "
            "finalizer name nor is it fully qualified");
  ns.spec.finalizers.clear();
  EXPECT_THAT(Errs(ValidateFinalizeUpdate(ns, old)), IsEmpty());
}

}  // namespace
}  // namespace svcplane::api::validation
