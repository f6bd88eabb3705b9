#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/validation/internal/test_util.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using core::v1::Event;
using ::testing::ElementsAre;
using testing::Errs;
using ::testing::IsEmpty;

Event LegacyEvent() {
  Event e;
  e.metadata.name = "web.17c1f0a2b3c4d5e6";
  e.metadata.namespace_ = "default";
  e.involved_object.kind = "Pod";
  e.involved_object.namespace_ = "default";
  e.involved_object.name = "web";
  e.reason = "Scheduled";
  e.message = "Successfully assigned";
  e.type = "Normal";
  e.first_timestamp = meta::Time::FromUnix(1);
  e.last_timestamp = meta::Time::FromUnix(1);
  e.count = 1;
  return e;
}

Event NewStyleEvent() {
  Event e = LegacyEvent();
  e.event_time = meta::MicroTime::FromUnixMicros(1714557600123456);
  e.reporting_component = "endpointslice-controller";
  e.reporting_instance = "svcplane-1";
  e.action = "Sync";
  return e;
}

TEST(EventValidationTest, ValidPasses) {
  EXPECT_THAT(Errs(ValidateCreate(LegacyEvent())), IsEmpty());
  EXPECT_THAT(Errs(ValidateCreate(NewStyleEvent())), IsEmpty());
}

TEST(EventValidationTest, LegacyNamespaceMustMatch) {
  Event e = LegacyEvent();
  e.involved_object.namespace_ = "other";
  EXPECT_THAT(Errs(ValidateCreate(e)),
              ElementsAre("involvedObject.namespace: Invalid value: \"other\": does not match "
                          "event.namespace"));
  // Cluster-scoped objects: events live in "default" (or no namespace).
  e.involved_object.namespace_.clear();
  EXPECT_THAT(Errs(ValidateCreate(e)), IsEmpty());
  e.metadata.namespace_ = "kube-system";
  EXPECT_THAT(Errs(ValidateCreate(e)),
              ElementsAre("involvedObject.namespace: Invalid value: \"\": does not match "
                          "event.namespace"));
}

TEST(EventValidationTest, NewStyleRequiredFields) {
  Event e = NewStyleEvent();
  e.reporting_component.clear();
  e.reporting_instance.clear();
  e.action.clear();
  e.reason.clear();
  std::vector<std::string> errs = Errs(ValidateCreate(e));
  // An empty qualified name fails both the emptiness and the regex check upstream.
  ASSERT_EQ(errs.size(), 6u);
  EXPECT_EQ(errs[0], "reportingComponent: Required value");
  EXPECT_EQ(errs[1], "reportingComponent: Invalid value: \"\": name part must be non-empty");
  EXPECT_THAT(errs[2], ::testing::StartsWith("reportingComponent: Invalid value: \"\": name "
                                             "part must consist of"));
  EXPECT_EQ(errs[3], "reportingInstance: Required value");
  EXPECT_EQ(errs[4], "action: Required value");
  EXPECT_EQ(errs[5], "reason: Required value");
}

TEST(EventValidationTest, NewStyleLengthLimits) {
  Event e = NewStyleEvent();
  e.reporting_instance = std::string(129, 'i');
  e.action = std::string(129, 'a');
  e.reason = std::string(129, 'r');
  e.message = std::string(1025, 'm');
  EXPECT_THAT(Errs(ValidateCreate(e)),
              ElementsAre("reportingInstance: Invalid value: \"\": can have at most 128 characters",
                          "action: Invalid value: \"\": can have at most 128 characters",
                          "reason: Invalid value: \"\": can have at most 128 characters",
                          "message: Invalid value: \"\": can have at most 1024 characters"));
}

TEST(EventValidationTest, NewStyleClusterScopedInvolvedObject) {
  Event e = NewStyleEvent();
  e.involved_object.namespace_.clear();
  e.metadata.namespace_ = "kube-system";
  EXPECT_THAT(Errs(ValidateCreate(e)), IsEmpty());
  e.metadata.namespace_ = "team-a";
  EXPECT_THAT(Errs(ValidateCreate(e)),
              ElementsAre("involvedObject.namespace: Invalid value: \"\": does not match "
                          "event.namespace"));
}

TEST(EventValidationTest, NamespaceIsSubdomain) {
  Event e = LegacyEvent();
  e.metadata.namespace_ = "Bad";
  e.involved_object.namespace_ = "Bad";
  EXPECT_THAT(
      Errs(ValidateCreate(e)),
      ElementsAre(std::string("namespace: Invalid value: \"Bad\": ") + testing::kSubdomainMsg));
}

TEST(EventValidationTest, UpdateUsesLegacyRules) {
  Event old = LegacyEvent();
  Event e = old;
  e.count = 2;
  e.message = "changed";  // core/v1 allows it
  EXPECT_THAT(Errs(ValidateUpdate(e, old)), IsEmpty());
  e.involved_object.namespace_ = "x";
  EXPECT_THAT(Errs(ValidateUpdate(e, old)),
              ElementsAre("involvedObject.namespace: Invalid value: \"x\": does not match "
                          "event.namespace"));
}

}  // namespace
}  // namespace svcplane::api::validation
