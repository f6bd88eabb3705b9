#include "apiserver/fieldmanager/managed_fields.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace svcplane::apiserver::fieldmanager {
namespace {

namespace json = boost::json;

constexpr int64_t kT0 = 1748779200;  // 2025-06-01T12:00:00Z

Set Fields(std::string_view fields_v1) {
  Result<Set> s = Set::FromFieldsV1(fields_v1);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : Set();
}

ManagedFieldsEntry Entry(std::string manager, std::string_view op, std::string api_version,
                         std::optional<int64_t> time, std::string_view fields,
                         std::string subresource = "") {
  return ManagedFieldsEntry{std::move(manager),     std::string(op), std::move(api_version), time,
                            std::move(subresource), Fields(fields)};
}

std::vector<api::meta::RawJson> Raw(std::vector<std::string> texts) {
  std::vector<api::meta::RawJson> out;
  for (auto& t : texts) out.push_back(api::meta::RawJson{std::move(t)});
  return out;
}

const char kServiceApplySet[] =
    R"({"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:targetPort":{}}},"f:selector":{}}})";

TEST(ManagedFieldsEntry, EncodesInSpecKeyOrder) {
  ManagedFieldsEntry e = Entry("kubectl", kOperationApply, "v1", kT0, kServiceApplySet);
  EXPECT_EQ(
      e.ToJson(),
      std::string(
          R"({"manager":"kubectl","operation":"Apply","apiVersion":"v1","time":"2025-06-01T12:00:00Z","fieldsType":"FieldsV1","fieldsV1":)") +
          kServiceApplySet + "}");
  ManagedFieldsEntry status =
      Entry("kubelet", kOperationUpdate, "v1", std::nullopt, R"({"f:status":{}})", "status");
  EXPECT_EQ(
      status.ToJson(),
      R"({"manager":"kubelet","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:status":{}},"subresource":"status"})");
}

TEST(ManagedFieldsEntry, IdentifierOmitsTimeFieldsAndApplyApiVersion) {
  EXPECT_EQ(Entry("kubectl", kOperationApply, "v1", kT0, "{}").Identifier(),
            R"({"manager":"kubectl","operation":"Apply"})");
  EXPECT_EQ(
      Entry("kubelet", kOperationUpdate, "v1", kT0, "{}", "status").Identifier(),
      R"({"manager":"kubelet","operation":"Update","apiVersion":"v1","subresource":"status"})");
  EXPECT_EQ(Entry("a<b", kOperationUpdate, "discovery.k8s.io/v1", kT0, "{}").Identifier(),
            R"({"manager":"a\u003cb","operation":"Update","apiVersion":"discovery.k8s.io/v1"})");
}

TEST(DecodeManagedFields, RoundTripsAndCanonicalises) {
  Result<ManagedFieldsList> list = DecodeManagedFields(Raw({
      R"({"manager":"kubectl-edit","operation":"Update","apiVersion":"v1","time":"2025-06-01T12:01:00.5+00:00","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:ports":{"k:{\"protocol\":\"TCP\",\"port\":80}":{"f:targetPort":{}}}}}})",
      R"({"manager":"kubectl","operation":"Apply","apiVersion":"v1","time":"2025-06-01T12:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:selector":{}}},"unknown":1})",
  }));
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].time, kT0 + 60);  // fraction dropped, offset applied
  std::vector<api::meta::RawJson> out = EncodeManagedFields(*list);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(
      out[0].text,
      R"({"manager":"kubectl","operation":"Apply","apiVersion":"v1","time":"2025-06-01T12:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:selector":{}}}})");
  EXPECT_EQ(
      out[1].text,
      R"({"manager":"kubectl-edit","operation":"Update","apiVersion":"v1","time":"2025-06-01T12:01:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{"f:targetPort":{}}}}}})");
  json::array as_json = EncodeManagedFieldsJson(*list);
  ASSERT_EQ(as_json.size(), 2u);
  EXPECT_EQ(as_json[0].at("manager"), "kubectl");
}

TEST(DecodeManagedFields, UpstreamErrors) {
  auto error = [](std::string text) {
    Result<ManagedFieldsList> r = DecodeManagedFields(Raw({std::move(text)}));
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_EQ(error("{}"), "operation must be `Apply` or `Update`");
  EXPECT_EQ(error(R"({"operation":"Patch","apiVersion":"v1","fieldsType":"FieldsV1"})"),
            "operation must be `Apply` or `Update`");
  EXPECT_EQ(error(R"({"operation":"Apply","fieldsType":"FieldsV1"})"),
            "apiVersion must not be empty");
  EXPECT_EQ(error(R"({"operation":"Apply","apiVersion":"v1"})"),
            "missing fieldsType in managed fields entry 0");
  EXPECT_EQ(error(R"({"operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV2"})"),
            R"(invalid fieldsType "FieldsV2" in managed fields entry 0)");
  EXPECT_FALSE(
      error(
          R"({"operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"k:x":{}}})")
          .empty());
  EXPECT_FALSE(
      error(R"({"operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","time":"yesterday"})")
          .empty());
  EXPECT_FALSE(error("not json").empty());
}

TEST(DecodeManagedFields, SameIdentityKeepsTheLastEntry) {
  Result<ManagedFieldsList> list = DecodeManagedFields(Raw({
      R"({"manager":"a","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:x":{}}})",
      R"({"manager":"a","operation":"Apply","apiVersion":"v2","fieldsType":"FieldsV1","fieldsV1":{"f:y":{}}})",
      R"({"manager":"a","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:z":{}}})",
  }));
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].api_version, "v2");
  EXPECT_EQ((*list)[0].fields.ToFieldsV1(), R"({"f:y":{}})");
  // A missing or null fieldsV1 is the empty set.
  list = DecodeManagedFields(Raw(
      {R"({"manager":"a","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":null})"}));
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE((*list)[0].fields.Empty());
}

TEST(IsResetManagedFields, EmptyListOrOneZeroEntry) {
  EXPECT_TRUE(IsResetManagedFields(json::parse("[]").as_array()));
  EXPECT_TRUE(IsResetManagedFields(json::parse("[{}]").as_array()));
  EXPECT_TRUE(
      IsResetManagedFields(json::parse(R"([{"manager":"","time":null,"x":1}])").as_array()));
  EXPECT_FALSE(IsResetManagedFields(json::parse("[{},{}]").as_array()));
  EXPECT_FALSE(IsResetManagedFields(json::parse(R"([{"manager":"m"}])").as_array()));
  EXPECT_FALSE(IsResetManagedFields(json::parse(R"([{"fieldsV1":{}}])").as_array()));
}

TEST(SortManagedFields, ApplyFirstThenTimeThenNames) {
  ManagedFieldsList list = {
      Entry("z", kOperationUpdate, "v1", kT0 + 5, R"({"f:a":{}})"),
      Entry("b", kOperationUpdate, "v1", std::nullopt, R"({"f:a":{}})"),
      Entry("a", kOperationUpdate, "v1", kT0 + 5, R"({"f:a":{}})", "status"),
      Entry("a", kOperationUpdate, "v1", kT0 + 5, R"({"f:a":{}})"),
      Entry("y", kOperationApply, "v1", kT0 + 9, R"({"f:a":{}})"),
      Entry("x", kOperationApply, "v1", std::nullopt, R"({"f:a":{}})"),
  };
  SortManagedFields(list);
  std::vector<std::string> order;
  for (const auto& e : list) order.push_back(e.manager + "/" + e.subresource);
  EXPECT_EQ(order, (std::vector<std::string>{"x/", "y/", "b/", "a/", "a/status", "z/"}));
}

TEST(DropEmptyEntries, RemovesEntriesThatOwnNothing) {
  ManagedFieldsList list = {Entry("a", kOperationApply, "v1", kT0, "{}"),
                            Entry("b", kOperationUpdate, "v1", kT0, R"({"f:a":{}})")};
  DropEmptyEntries(list);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].manager, "b");
  EXPECT_TRUE(EncodeManagedFields({}).empty());
  ASSERT_NE(FindEntry(list, R"({"manager":"b","operation":"Update","apiVersion":"v1"})"), nullptr);
  EXPECT_EQ(FindEntry(list, R"({"manager":"b","operation":"Apply"})"), nullptr);
}

// Spec scenario 33: eleven updaters m01..m11 at T0+1..T0+11 each adding label lNN.
TEST(CapUpdateManagers, Scenario33MergesTheTwoOldestIntoAncientChanges) {
  ManagedFieldsList list = {Entry("kubectl", kOperationApply, "v1", kT0, kServiceApplySet)};
  for (int i = 1; i <= 11; ++i) {
    char name[8];
    std::snprintf(name, sizeof name, "%02d", i);
    list.push_back(Entry(std::string("m") + name, kOperationUpdate, "v1", kT0 + i,
                         std::string(R"({"f:metadata":{"f:labels":{"f:l)") + name + R"(":{}}}})"));
  }
  CapUpdateManagers(list);
  std::vector<api::meta::RawJson> out = EncodeManagedFields(list);
  ASSERT_EQ(out.size(), 11u);  // one Apply + 10 Updates
  EXPECT_EQ(
      out[1].text,
      R"({"manager":"ancient-changes","operation":"Update","apiVersion":"v1","time":"2025-06-01T12:00:02Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:l01":{},"f:l02":{}}}}})");
  EXPECT_EQ(FindEntry(list, R"({"manager":"m01","operation":"Update","apiVersion":"v1"})"),
            nullptr);
  EXPECT_EQ(FindEntry(list, R"({"manager":"m02","operation":"Update","apiVersion":"v1"})"),
            nullptr);
  EXPECT_NE(FindEntry(list, R"({"manager":"m03","operation":"Update","apiVersion":"v1"})"),
            nullptr);
  // Ten or fewer: nothing to do.
  ManagedFieldsList copy = list;
  CapUpdateManagers(list);
  EXPECT_EQ(list, copy);
}

TEST(CapUpdateManagers, BucketsPerApiVersionAndAnExistingBucketAbsorbs) {
  ManagedFieldsList list;
  for (int i = 0; i < 12; ++i) {
    list.push_back(Entry("m" + std::to_string(10 + i), kOperationUpdate, i % 2 ? "v2" : "v1",
                         kT0 + i, "{\"f:l" + std::to_string(i) + "\":{}}"));
  }
  CapUpdateManagers(list, 10);
  // m10 (v1) and m11 (v2) are remembered; m12 (v1) makes the v1 bucket from m10 and m12,
  // m13 (v2) the v2 bucket from m11 and m13.
  EXPECT_EQ(list.size(), 10u);
  ManagedFieldsEntry* v1 =
      FindEntry(list, R"({"manager":"ancient-changes","operation":"Update","apiVersion":"v1"})");
  ASSERT_NE(v1, nullptr);
  EXPECT_EQ(v1->fields.ToFieldsV1(), R"({"f:l0":{},"f:l2":{}})");
  EXPECT_EQ(v1->time, kT0 + 2);
  ManagedFieldsEntry* v2 =
      FindEntry(list, R"({"manager":"ancient-changes","operation":"Update","apiVersion":"v2"})");
  ASSERT_NE(v2, nullptr);
  EXPECT_EQ(v2->fields.ToFieldsV1(), R"({"f:l1":{},"f:l3":{}})");
}

TEST(EntriesEqualIgnoringTime, OnlyTimesDiffer) {
  auto raw = [](std::optional<int64_t> t, std::string_view fields) {
    return Entry("holder", kOperationUpdate, "v1", t, fields).ToJson();
  };
  EXPECT_TRUE(EntriesEqualIgnoringTime(Raw({raw(kT0, R"({"f:a":{}})")}),
                                       Raw({raw(kT0 + 2, R"({"f:a":{}})")})));
  EXPECT_TRUE(EntriesEqualIgnoringTime(Raw({raw(std::nullopt, R"({"f:a":{}})")}),
                                       Raw({raw(kT0, R"({"f:a":{}})")})));
  EXPECT_FALSE(
      EntriesEqualIgnoringTime(Raw({raw(kT0, R"({"f:a":{}})")}), Raw({raw(kT0, R"({"f:b":{}})")})));
  EXPECT_FALSE(EntriesEqualIgnoringTime(Raw({raw(kT0, R"({"f:a":{}})")}), Raw({})));
  EXPECT_TRUE(EntriesEqualIgnoringTime(Raw({}), Raw({})));
}

TEST(PrintManager, SpecForms) {
  EXPECT_EQ(PrintManager(R"({"manager":"kubectl","operation":"Apply"})"), R"("kubectl")");
  EXPECT_EQ(PrintManager(R"({"manager":"kubectl-edit","operation":"Update","apiVersion":"v1"})"),
            R"("kubectl-edit" using v1)");
  EXPECT_EQ(
      PrintManager(
          R"({"manager":"kubelet","operation":"Update","apiVersion":"v1","subresource":"status"})"),
      R"("kubelet" with subresource "status" using v1)");
  EXPECT_EQ(PrintManager(R"({"manager":"ctl","operation":"Apply","subresource":"status"})"),
            R"("ctl" with subresource "status")");
  EXPECT_EQ(PrintManager("not json"), R"("not json")");
}

// Spec scenario 11 and the exact Status of §1.6.
TEST(ApplyConflictStatus, OneConflict) {
  Status st = ApplyConflictStatus({{R"({"manager":"kubectl","operation":"Apply"})",
                                    {PathElement::Field("spec"), PathElement::Field("selector")}}});
  EXPECT_EQ(st.code(), Code::kConflict);
  EXPECT_EQ(st.message(),
            R"(Apply failed with 1 conflict: conflict with "kubectl": .spec.selector)");
  ASSERT_EQ(st.causes().size(), 1u);
  EXPECT_EQ(st.causes()[0],
            (StatusCause{"FieldManagerConflict", ".spec.selector", R"(conflict with "kubectl")"}));

  PathElement port =
      PathElement::Key({{"port", json::value(80)}, {"protocol", json::value("TCP")}});
  st = ApplyConflictStatus({{R"({"manager":"kubectl-edit","operation":"Update","apiVersion":"v1"})",
                             {PathElement::Field("spec"), PathElement::Field("ports"), port,
                              PathElement::Field("targetPort")}}});
  EXPECT_EQ(
      st.message(),
      R"(Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .spec.ports[port=80,protocol="TCP"].targetPort)");
  EXPECT_EQ(st.causes()[0].field, R"(.spec.ports[port=80,protocol="TCP"].targetPort)");
  EXPECT_EQ(st.causes()[0].message, R"(conflict with "kubectl-edit" using v1)");
}

// Spec scenario 18 and the two-manager example of §1.6: grouped by sorted identifier.
TEST(ApplyConflictStatus, SeveralConflictsGroupByManager) {
  const std::string edit = R"({"manager":"kubectl-edit","operation":"Update","apiVersion":"v1"})";
  const std::string ci = R"({"manager":"ci","operation":"Apply"})";
  Status st = ApplyConflictStatus(
      {{edit, {PathElement::Field("spec"), PathElement::Field("sessionAffinity")}},
       {ci, {PathElement::Field("spec"), PathElement::Field("selector")}}});
  EXPECT_EQ(st.message(),
            "Apply failed with 2 conflicts: conflicts with \"ci\":\n- .spec.selector\nconflicts "
            "with \"kubectl-edit\" using v1:\n- .spec.sessionAffinity");
  ASSERT_EQ(st.causes().size(), 2u);
  EXPECT_EQ(st.causes()[0].message, R"(conflict with "ci")");
  EXPECT_EQ(st.causes()[1].field, ".spec.sessionAffinity");

  const std::string kubelet =
      R"({"manager":"kubelet","operation":"Update","apiVersion":"v1","subresource":"status"})";
  const std::string helm = R"({"manager":"helm","operation":"Apply"})";
  PathElement ready = PathElement::Key({{"type", json::value("Ready")}});
  st = ApplyConflictStatus({{kubelet,
                             {PathElement::Field("status"), PathElement::Field("conditions"), ready,
                              PathElement::Field("status")}},
                            {helm, {PathElement::Field("spec"), PathElement::Field("selector")}},
                            {helm,
                             {PathElement::Field("metadata"), PathElement::Field("labels"),
                              PathElement::Field("app")}}});
  EXPECT_EQ(st.message(),
            "Apply failed with 3 conflicts: conflicts with \"helm\":\n- .metadata.labels.app\n- "
            ".spec.selector\nconflicts with \"kubelet\" with subresource \"status\" using v1:\n- "
            ".status.conditions[type=\"Ready\"].status");
}

}  // namespace
}  // namespace svcplane::apiserver::fieldmanager
