#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/validation/internal/test_util.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using coordination::v1::Lease;
using ::testing::ElementsAre;
using testing::Errs;
using ::testing::IsEmpty;

Lease ValidLease() {
  Lease lease;
  lease.metadata.name = "node-1";
  lease.metadata.namespace_ = "kube-node-lease";
  lease.metadata.resource_version = "1";
  lease.spec.holder_identity = "node-1";
  lease.spec.lease_duration_seconds = 40;
  lease.spec.renew_time = meta::MicroTime::FromUnixMicros(1714557600123456);
  return lease;
}

TEST(LeaseValidationTest, ValidPasses) {
  EXPECT_THAT(Errs(ValidateCreate(ValidLease())), IsEmpty());
}

TEST(LeaseValidationTest, DurationAndTransitions) {
  Lease lease = ValidLease();
  lease.spec.lease_duration_seconds = 0;
  lease.spec.lease_transitions = -1;
  EXPECT_THAT(Errs(ValidateCreate(lease)),
              ElementsAre("spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
                          "spec.leaseTransitions: Invalid value: -1: must be greater than or "
                          "equal to 0"));
  lease.spec.lease_duration_seconds.reset();
  lease.spec.lease_transitions = 0;
  EXPECT_THAT(Errs(ValidateCreate(lease)), IsEmpty());
}

TEST(LeaseValidationTest, StrategyAndPreferredHolder) {
  Lease lease = ValidLease();
  lease.spec.preferred_holder = "node-2";
  EXPECT_THAT(Errs(ValidateCreate(lease)),
              ElementsAre("spec.preferredHolder: Forbidden: may only be specified if `strategy` "
                          "is defined"));
  lease.spec.strategy = "OldestEmulationVersion";
  EXPECT_THAT(Errs(ValidateCreate(lease)), IsEmpty());
  lease.spec.strategy = "Newest";
  EXPECT_THAT(Errs(ValidateCreate(lease)),
              ElementsAre("spec.strategy.strategy: Unsupported value: \"Newest\": supported "
                          "values: \"OldestEmulationVersion\""));
  lease.spec.strategy = "example.com/custom";
  EXPECT_THAT(Errs(ValidateCreate(lease)), IsEmpty());
}

TEST(LeaseValidationTest, NameAndNamespace) {
  Lease lease = ValidLease();
  lease.metadata.name = "apiserver-Abc";
  lease.metadata.namespace_.clear();
  EXPECT_THAT(Errs(ValidateCreate(lease)),
              ElementsAre(std::string("metadata.name: Invalid value: \"apiserver-Abc\": ") +
                              testing::kSubdomainMsg,
                          "metadata.namespace: Required value"));
}

TEST(LeaseValidationTest, Update) {
  Lease old = ValidLease();
  Lease lease = old;
  lease.spec.holder_identity = "node-2";
  lease.spec.lease_transitions = 1;
  EXPECT_THAT(Errs(ValidateUpdate(lease, old)), IsEmpty());
  lease.spec.lease_duration_seconds = -5;
  lease.metadata.resource_version.clear();
  EXPECT_THAT(Errs(ValidateUpdate(lease, old)),
              ElementsAre("metadata.resourceVersion: Invalid value: \"\": must be specified for "
                          "an update",
                          "spec.leaseDurationSeconds: Invalid value: -5: must be greater than 0"));
}

}  // namespace
}  // namespace svcplane::api::validation
