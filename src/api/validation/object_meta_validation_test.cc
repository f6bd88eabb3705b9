#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/validation/internal/test_util.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using ::testing::ElementsAre;
using testing::Errs;
using ::testing::IsEmpty;

meta::ObjectMeta Meta() {
  meta::ObjectMeta m;
  m.name = "web";
  m.namespace_ = "default";
  m.resource_version = "5";
  return m;
}

FieldErrorList Create(const meta::ObjectMeta& m, bool namespaced = true) {
  return ValidateObjectMeta(m, namespaced, NameIsDNSSubdomain, Path("metadata"));
}

TEST(ObjectMetaTest, ValidPasses) { EXPECT_THAT(Errs(Create(Meta())), IsEmpty()); }

TEST(ObjectMetaTest, NameOrGenerateNameRequired) {
  meta::ObjectMeta m = Meta();
  m.name.clear();
  EXPECT_THAT(Errs(Create(m)),
              ElementsAre("metadata.name: Required value: name or generateName is required"));
  m.rest->generate_name = "web-";
  EXPECT_THAT(Errs(Create(m)),
              ElementsAre("metadata.name: Required value: name or generateName is required"))
      << "validation runs after name generation";
  m.name = "web-x7k2p";
  EXPECT_THAT(Errs(Create(m)), IsEmpty());
  m.rest->generate_name = "Web-";
  EXPECT_THAT(Errs(Create(m)),
              ElementsAre(std::string("metadata.generateName: Invalid value: \"Web-\": ") +
                          testing::kSubdomainMsg));
}

TEST(ObjectMetaTest, NamespaceRules) {
  meta::ObjectMeta m = Meta();
  m.namespace_ = "Bad";
  EXPECT_THAT(Errs(Create(m)),
              ElementsAre(std::string("metadata.namespace: Invalid value: \"Bad\": ") +
                          testing::kLabelMsg));
  EXPECT_THAT(Errs(Create(m, false)),
              ElementsAre("metadata.namespace: Forbidden: not allowed on this type"));
  m.namespace_.clear();
  EXPECT_THAT(Errs(Create(m)), ElementsAre("metadata.namespace: Required value"));
  EXPECT_THAT(Errs(Create(m, false)), IsEmpty());
}

TEST(ObjectMetaTest, GenerationNonNegative) {
  meta::ObjectMeta m = Meta();
  m.rest->generation = -1;
  EXPECT_THAT(Errs(Create(m)),
              ElementsAre("metadata.generation: Invalid value: -1: must be greater than or equal "
                          "to 0"));
}

TEST(ObjectMetaTest, LabelsAndAnnotations) {
  meta::ObjectMeta m = Meta();
  m.labels["bad key"] = "v";
  m.annotations[std::string(300000, 'a')];
  std::vector<std::string> errs = Errs(Create(m));
  ASSERT_EQ(errs.size(), 3u);  // label key; annotation key too long; total size
  EXPECT_EQ(errs[0],
            "metadata.labels: Invalid value: \"bad key\": name part must consist of alphanumeric "
            "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
            "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
  EXPECT_EQ(errs.back(), "metadata.annotations: Too long: must have at most 262144 bytes");
}

TEST(ObjectMetaTest, OwnerReferences) {
  meta::ObjectMeta m = Meta();
  m.owner_references.push_back({"", "", "", "", std::nullopt, std::nullopt, {}});
  EXPECT_THAT(Errs(Create(m)),
              ElementsAre("metadata.ownerReferences.apiVersion: Invalid value: \"\": version "
                          "must not be empty",
                          "metadata.ownerReferences.kind: Invalid value: \"\": kind must not be "
                          "empty",
                          "metadata.ownerReferences.name: Invalid value: \"\": name must not be "
                          "empty",
                          "metadata.ownerReferences.uid: Invalid value: \"\": uid must not be "
                          "empty"));
  m.owner_references = {{"v1", "Service", "a", "u1", true, std::nullopt, {}},
                        {"apps/v1", "ReplicaSet", "b", "u2", true, std::nullopt, {}}};
  std::vector<std::string> errs = Errs(Create(m));
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_THAT(errs[0], ::testing::StartsWith("metadata.ownerReferences: Invalid value: "
                                             "[]v1.OwnerReference{{APIVersion:\"v1\""));
  EXPECT_THAT(errs[0],
              ::testing::EndsWith(": Only one reference can have Controller set to true. Found "
                                  "\"true\" in references for Service/a and ReplicaSet/b"));
  m.owner_references = {{"v1", "Event", "e", "u", std::nullopt, std::nullopt, {}}};
  EXPECT_THAT(Errs(Create(m)),
              ElementsAre("metadata.ownerReferences: Invalid value: "
                          "v1.OwnerReference{APIVersion:\"v1\", Kind:\"Event\", Name:\"e\", "
                          "UID:\"u\", Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}: "
                          "/v1, Kind=Event is disallowed from being an owner"));
}

TEST(ObjectMetaTest, Finalizers) {
  meta::ObjectMeta m = Meta();
  m.finalizers = {"kubernetes", "example.com/cleanup", "foregroundDeletion", "orphan", "custom"};
  EXPECT_THAT(Errs(Create(m)),
              ElementsAre("metadata.finalizers: Invalid value: []string{\"kubernetes\", "
                          "\"example.com/cleanup\", \"foregroundDeletion\", \"orphan\", "
                          "\"custom\"}: finalizer orphan and foregroundDeletion cannot be both set",
                          "metadata.finalizers[4]: Invalid value: \"custom\": name is neither a "
                          "standard finalizer name nor is it fully qualified"));
}

TEST(ObjectMetaUpdateTest, Immutables) {
  meta::ObjectMeta old = Meta();
  old.uid = "u1";
  old.creation_timestamp = meta::Time::FromUnix(1714557600);  // 2024-05-01T10:00:00Z
  old.rest->generation = 3;
  meta::ObjectMeta m = old;
  EXPECT_THAT(Errs(ValidateObjectMetaUpdate(m, old, Path("metadata"))), IsEmpty());
  m.name = "x";
  m.namespace_ = "y";
  m.uid = "u2";
  m.creation_timestamp = meta::Time::FromUnix(1714557601);
  m.deletion_timestamp = meta::Time::FromUnix(1714557602);
  m.rest->deletion_grace_period_seconds = 30;
  m.rest->generation = 2;
  m.resource_version.clear();
  EXPECT_THAT(
      Errs(ValidateObjectMetaUpdate(m, old, Path("metadata"))),
      ElementsAre("metadata.resourceVersion: Invalid value: \"\": must be specified for an update",
                  "metadata.generation: Invalid value: 2: must not be decremented",
                  "metadata.name: Invalid value: \"x\": field is immutable",
                  "metadata.namespace: Invalid value: \"y\": field is immutable",
                  "metadata.uid: Invalid value: \"u2\": field is immutable",
                  "metadata.creationTimestamp: Invalid value: 2024-05-01 10:00:01 +0000 UTC: "
                  "field is immutable",
                  "metadata.deletionTimestamp: Invalid value: 2024-05-01 10:00:02 +0000 UTC: "
                  "field is immutable",
                  "metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable"));
}

TEST(ObjectMetaUpdateTest, NoNewFinalizersWhileDeleting) {
  meta::ObjectMeta old = Meta();
  old.deletion_timestamp = meta::Time::FromUnix(1);
  old.finalizers = {"example.com/a"};
  meta::ObjectMeta m = old;
  m.finalizers = {"example.com/a", "example.com/c", "example.com/b"};
  EXPECT_THAT(Errs(ValidateObjectMetaUpdate(m, old, Path("metadata"))),
              ElementsAre("metadata.finalizers: Forbidden: no new finalizers can be added if the "
                          "object is being deleted, found new finalizers "
                          "[]string{\"example.com/b\", \"example.com/c\"}"));
  m.finalizers.clear();
  EXPECT_THAT(Errs(ValidateObjectMetaUpdate(m, old, Path("metadata"))), IsEmpty());
}

TEST(CommonValidationTest, PathSegmentNames) {
  meta::ObjectMeta m = Meta();
  EXPECT_THAT(Errs(ValidateCommonCreate(m, true)), IsEmpty());
  m.name = "..";
  EXPECT_THAT(Errs(ValidateCommonCreate(m, true)),
              ElementsAre("metadata.name: Invalid value: \"..\": may not be '..'"));
  m.name = "a/b%";
  EXPECT_THAT(Errs(ValidateCommonCreate(m, false)),
              ElementsAre("metadata.name: Invalid value: \"a/b%\": may not contain '/'",
                          "metadata.name: Invalid value: \"a/b%\": may not contain '%'",
                          "metadata.namespace: Forbidden: not allowed on this type"));
  // Core's finalizer-name rule is not part of the generic check.
  m = Meta();
  m.finalizers = {"custom"};
  EXPECT_THAT(Errs(ValidateCommonCreate(m, true)), IsEmpty());
}

TEST(CommonValidationTest, UpdateCombinesBoth) {
  meta::ObjectMeta old = Meta();
  meta::ObjectMeta m = old;
  m.name = "Other";
  EXPECT_THAT(Errs(ValidateCommonUpdate(m, old, true)),
              ElementsAre("metadata.name: Invalid value: \"Other\": field is immutable"));
}

}  // namespace
}  // namespace svcplane::api::validation
