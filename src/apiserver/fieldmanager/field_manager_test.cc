#include "apiserver/fieldmanager/field_manager.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "apiserver/fieldmanager/managed_fields.h"

namespace svcplane::apiserver::fieldmanager {
namespace {

namespace json = boost::json;

constexpr int64_t kT0 = 1748779200;  // 2025-06-01T12:00:00Z

json::object Obj(std::string_view text) { return json::parse(text).as_object(); }

Operation Op(std::string manager, int64_t now, std::string subresource = "") {
  return Operation{std::move(manager), std::move(subresource), "v1", now};
}

// What the registry does after the field manager: decode-time defaults (protocol, targetPort,
// sessionAffinity, type), allocation and the metadata a stored object carries.
json::object StoreService(json::object obj) {
  if (!obj["spec"].is_object()) obj["spec"] = json::object();
  json::object& spec = obj["spec"].as_object();
  if (json::value* ports = spec.if_contains("ports"); ports != nullptr && ports->is_array()) {
    for (auto& p : ports->as_array()) {
      json::object& port = p.as_object();
      if (!port.contains("protocol")) port["protocol"] = "TCP";
      if (!port.contains("targetPort")) {
        json::value number = port.at("port");  // copied: inserting may move the entries
        port["targetPort"] = std::move(number);
      }
    }
  }
  if (!spec.contains("sessionAffinity")) spec["sessionAffinity"] = "None";
  if (!spec.contains("type")) spec["type"] = "ClusterIP";
  if (!spec.contains("clusterIP")) spec["clusterIP"] = "10.0.0.10";
  if (!obj.contains("status")) obj["status"] = json::object{{"loadBalancer", json::object()}};
  json::object& meta = obj["metadata"].as_object();
  meta["uid"] = "u-1";
  meta["namespace"] = "default";
  meta["resourceVersion"] = "5";
  meta["creationTimestamp"] = "2025-06-01T12:00:00Z";
  return obj;
}

const char kWebApply[] =
    R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"default","labels":{"app":"web"}},"spec":{"selector":{"app":"web"},"ports":[{"name":"http","port":80,"targetPort":8080}]}})";
const char kKubectlEntry[] =
    R"({"manager":"kubectl","operation":"Apply","apiVersion":"v1","time":"2025-06-01T12:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:targetPort":{}}},"f:selector":{}}}})";

class ServiceFieldManagerTest : public ::testing::Test {
 protected:
  const FieldManager& fm() {
    const FieldManager* m = FieldManager::ForKind("Service");
    EXPECT_NE(m, nullptr);
    return *m;
  }

  // SSA: on success the stored object becomes the defaulted result.
  Result<json::object> Apply(std::string_view body, const std::string& manager, int64_t now,
                             bool force = false) {
    Result<json::object> r =
        fm().Apply(live_ ? &*live_ : nullptr, Obj(body), Op(manager, now), force);
    if (r.ok()) live_ = StoreService(*r);
    return r;
  }

  // A non-apply write (merge patch, PUT): `mutate` edits a copy of live, the field manager
  // computes the entries to store with it.
  template <typename Fn>
  void UpdateLive(const std::string& manager, int64_t now, Fn mutate) {
    json::object updated = *live_;
    mutate(updated);
    std::vector<api::meta::RawJson> entries = fm().Update(&*live_, updated, Op(manager, now));
    json::array mf;
    for (const auto& e : entries) mf.push_back(json::parse(e.text));
    if (mf.empty()) {
      updated["metadata"].as_object().erase("managedFields");
    } else {
      updated["metadata"].as_object()["managedFields"] = std::move(mf);
    }
    live_ = std::move(updated);
  }

  // Entries by manager name as their FieldsV1 text; "-" when the manager has none.
  std::string SetOf(std::string_view manager) {
    for (const auto& e : Entries()) {
      if (e.at("manager").as_string() == manager) return json::serialize(e.at("fieldsV1"));
    }
    return "-";
  }
  const json::object* EntryOf(std::string_view manager) {
    for (const auto& e : Entries()) {
      if (e.at("manager").as_string() == manager) return &e.as_object();
    }
    return nullptr;
  }
  const json::array& Entries() {
    static const json::array kNone;
    const json::value* mf = live_->at("metadata").as_object().if_contains("managedFields");
    return mf ? mf->as_array() : kNone;
  }
  json::value& Spec() { return live_->at("spec"); }

  std::optional<json::object> live_;
};

// Scenario 1: apply creates; exactly the Apply entry of §2.2; defaults are owned by nobody.
TEST_F(ServiceFieldManagerTest, Scenario1ApplyCreates) {
  ASSERT_TRUE(Apply(kWebApply, "kubectl", kT0).ok());
  const json::array& entries = Entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(json::serialize(entries[0]), json::serialize(json::parse(kKubectlEntry)));
  EXPECT_EQ(Spec().at("clusterIP"), "10.0.0.10");
}

// Scenario 2: re-applying the same body changes nothing, the time included.
TEST_F(ServiceFieldManagerTest, Scenario2ReapplyIsANoOp) {
  ASSERT_TRUE(Apply(kWebApply, "kubectl", kT0).ok());
  json::object before = *live_;
  Result<json::object> again = fm().Apply(&*live_, Obj(kWebApply), Op("kubectl", kT0 + 60), false);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(json::value(*again), json::value(before));
}

// Scenario 3: the applier removes its own label; the time moves.
TEST_F(ServiceFieldManagerTest, Scenario3ApplyRemovesItsOwnField) {
  std::string with_tier = kWebApply;
  with_tier.replace(with_tier.find(R"("app":"web"})"), 12, R"("app":"web","tier":"fe"})");
  ASSERT_TRUE(Apply(with_tier, "kubectl", kT0).ok());
  EXPECT_EQ(live_->at("metadata").at("labels").at("tier"), "fe");
  ASSERT_TRUE(Apply(kWebApply, "kubectl", kT0 + 10).ok());
  EXPECT_FALSE(live_->at("metadata").at("labels").as_object().contains("tier"));
  EXPECT_EQ(SetOf("kubectl").find("f:tier"), std::string::npos);
  EXPECT_EQ(EntryOf("kubectl")->at("time"), "2025-06-01T12:00:10Z");
}

// Scenario 4: a field the applier stops sending is pruned, then defaulted again.
TEST_F(ServiceFieldManagerTest, Scenario4PruneThenRedefault) {
  ASSERT_TRUE(Apply(kWebApply, "kubectl", kT0).ok());
  std::string no_target = kWebApply;
  no_target.replace(no_target.find(R"(,"targetPort":8080)"), 18, "");
  ASSERT_TRUE(Apply(no_target, "kubectl", kT0 + 1).ok());
  EXPECT_EQ(Spec().at("ports").at(0).at("targetPort"), 80);
  EXPECT_EQ(SetOf("kubectl").find("f:targetPort"), std::string::npos);
}

// Scenario 5: a co-owner keeps a label the applier drops.
TEST_F(ServiceFieldManagerTest, Scenario5RemovalBlockedByCoOwner) {
  ASSERT_TRUE(Apply(kWebApply, "kubectl", kT0).ok());
  UpdateLive("kubectl-label", kT0 + 1, [](json::object& o) {
    o["metadata"].as_object()["labels"].as_object()["tier"] = "fe";
  });
  EXPECT_EQ(SetOf("kubectl-label"), R"({"f:metadata":{"f:labels":{"f:tier":{}}}})");
  EXPECT_EQ(EntryOf("kubectl-label")->at("apiVersion"), "v1");
  EXPECT_EQ(EntryOf("kubectl-label")->at("operation"), "Update");
  std::string with_tier = kWebApply;
  with_tier.replace(with_tier.find(R"("app":"web"})"), 12, R"("app":"web","tier":"fe"})");
  ASSERT_TRUE(Apply(with_tier, "kubectl", kT0 + 2).ok());
  EXPECT_NE(SetOf("kubectl").find("f:tier"), std::string::npos);
  EXPECT_NE(SetOf("kubectl-label"), "-");
  ASSERT_TRUE(Apply(kWebApply, "kubectl", kT0 + 3).ok());
  EXPECT_EQ(live_->at("metadata").at("labels").at("tier"), "fe");
}

const char kCiSelector[] =
    R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"selector":{"app":"web"}}})";
const char kCiSelector2[] =
    R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"selector":{"app":"web2"}}})";

// Scenarios 10-12: shared ownership, a conflict between appliers, force.
TEST_F(ServiceFieldManagerTest, Scenarios10To12SharedConflictForce) {
  ASSERT_TRUE(Apply(kWebApply, "kubectl", kT0).ok());
  json::object before = *live_;
  ASSERT_TRUE(Apply(kCiSelector, "ci", kT0 + 5).ok());
  EXPECT_EQ(SetOf("ci"), R"({"f:spec":{"f:selector":{}}})");
  EXPECT_NE(SetOf("kubectl").find("f:selector"), std::string::npos);
  EXPECT_FALSE(EntryOf("ci")->contains("time"));  // equal values: nothing changed
  EXPECT_EQ(live_->at("spec"), before.at("spec"));

  json::object shared = *live_;
  Result<json::object> conflict = Apply(kCiSelector2, "ci", kT0 + 6);
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.status().code(), Code::kConflict);
  EXPECT_EQ(conflict.status().message(),
            R"(Apply failed with 1 conflict: conflict with "kubectl": .spec.selector)");
  ASSERT_EQ(conflict.status().causes().size(), 1u);
  EXPECT_EQ(conflict.status().causes()[0],
            (StatusCause{"FieldManagerConflict", ".spec.selector", R"(conflict with "kubectl")"}));
  EXPECT_EQ(json::value(*live_), json::value(shared));

  ASSERT_TRUE(Apply(kCiSelector2, "ci", kT0 + 7, /*force=*/true).ok());
  EXPECT_EQ(Spec().at("selector").at("app"), "web2");
  EXPECT_EQ(SetOf("kubectl").find("f:selector"), std::string::npos);
  EXPECT_EQ(EntryOf("ci")->at("time"), "2025-06-01T12:00:07Z");
}

// Scenario 13: a manager that loses everything disappears.
TEST_F(ServiceFieldManagerTest, Scenario13ManagerEntryDisappears) {
  ASSERT_TRUE(Apply(kWebApply, "kubectl", kT0).ok());
  ASSERT_TRUE(
      Apply(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","labels":{"x":"1"}}})",
            "x", kT0 + 1)
          .ok());
  EXPECT_EQ(SetOf("x"), R"({"f:metadata":{"f:labels":{"f:x":{}}}})");
  ASSERT_TRUE(
      Apply(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","labels":{"x":"2"}}})",
            "y", kT0 + 2, /*force=*/true)
          .ok());
  EXPECT_EQ(SetOf("x"), "-");
  EXPECT_EQ(SetOf("y"), R"({"f:metadata":{"f:labels":{"f:x":{}}}})");
}

// Scenario 14: kubectl edit takes targetPort; the applier conflicts, then forces it back.
TEST_F(ServiceFieldManagerTest, Scenario14EditThenApply) {
  ASSERT_TRUE(Apply(kWebApply, "kubectl", kT0).ok());
  UpdateLive("kubectl-edit", kT0 + 1, [](json::object& o) {
    o["spec"].as_object()["ports"].as_array()[0].as_object()["targetPort"] = 9090;
  });
  EXPECT_EQ(
      SetOf("kubectl-edit"),
      R"({"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{"f:targetPort":{}}}}})");
  EXPECT_EQ(SetOf("kubectl").find("f:targetPort"), std::string::npos);
  Result<json::object> r = Apply(kWebApply, "kubectl", kT0 + 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.status().message(),
      R"(Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .spec.ports[port=80,protocol="TCP"].targetPort)");
  ASSERT_TRUE(Apply(kWebApply, "kubectl", kT0 + 3, /*force=*/true).ok());
  EXPECT_EQ(Spec().at("ports").at(0).at("targetPort"), 8080);
  EXPECT_EQ(SetOf("kubectl-edit"), "-");
}

// Scenario 18: two managers, two conflicts, grouped and sorted.
TEST_F(ServiceFieldManagerTest, Scenario18SeveralConflicts) {
  ASSERT_TRUE(Apply(kWebApply, "kubectl", kT0).ok());
  ASSERT_TRUE(Apply(kCiSelector2, "ci", kT0 + 1, /*force=*/true).ok());
  UpdateLive("kubectl-edit", kT0 + 2,
             [](json::object& o) { o["spec"].as_object()["sessionAffinity"] = "ClientIP"; });
  Result<json::object> r = Apply(
      R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"selector":{"app":"z"},"sessionAffinity":"None"}})",
      "z", kT0 + 3);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "Apply failed with 2 conflicts: conflicts with \"ci\":\n- .spec.selector\nconflicts "
            "with \"kubectl-edit\" using v1:\n- .spec.sessionAffinity");
  EXPECT_EQ(r.status().causes().size(), 2u);
}

// Scenario 30: an untracked object gets a before-first-apply owner of everything.
TEST_F(ServiceFieldManagerTest, Scenario30BeforeFirstApply) {
  live_ = StoreService(Obj(
      R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","labels":{"app":"web"}},"spec":{"selector":{"app":"web"},"ports":[{"name":"http","port":80,"targetPort":8080}]}})"));
  std::string changed = kWebApply;
  changed.replace(changed.find("8080"), 4, "9090");
  Result<json::object> r = Apply(changed, "kubectl", kT0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.status().message(),
      R"(Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .spec.ports[port=80,protocol="TCP"].targetPort)");
  ASSERT_TRUE(Apply(kWebApply, "x", kT0 + 1).ok());
  ASSERT_NE(EntryOf("x"), nullptr);
  EXPECT_EQ(EntryOf("x")->at("operation"), "Apply");
  const json::object* bfa = EntryOf("before-first-apply");
  ASSERT_NE(bfa, nullptr);
  EXPECT_EQ(bfa->at("operation"), "Update");
  EXPECT_EQ(bfa->at("apiVersion"), "v1");
  EXPECT_EQ(bfa->at("time"), "2025-06-01T12:00:01Z");
  std::string owned = SetOf("before-first-apply");
  for (const char* f :
       {"f:clusterIP", "f:sessionAffinity", "f:selector", "f:targetPort", "f:app"}) {
    EXPECT_NE(owned.find(f), std::string::npos) << f << " in " << owned;
  }
}

// Scenario 33 at the field manager level: eleven updaters, ten Update entries remain.
TEST_F(ServiceFieldManagerTest, Scenario33UpdateCap) {
  ASSERT_TRUE(Apply(kWebApply, "kubectl", kT0).ok());
  for (int i = 1; i <= 11; ++i) {
    char name[8];
    std::snprintf(name, sizeof name, "%02d", i);
    UpdateLive(std::string("m") + name, kT0 + i, [&](json::object& o) {
      o["metadata"].as_object()["labels"].as_object()[std::string("l") + name] = "x";
    });
  }
  const json::array& entries = Entries();
  ASSERT_EQ(entries.size(), 11u);
  EXPECT_EQ(SetOf("m01"), "-");
  EXPECT_EQ(SetOf("m02"), "-");
  const json::object* ancient = EntryOf("ancient-changes");
  ASSERT_NE(ancient, nullptr);
  EXPECT_EQ(ancient->at("time"), "2025-06-01T12:00:02Z");
  EXPECT_EQ(SetOf("ancient-changes"), R"({"f:metadata":{"f:labels":{"f:l01":{},"f:l02":{}}}})");
}

// Scenario 37: associative list order and sets across appliers.
TEST_F(ServiceFieldManagerTest, Scenario37AssociativeOrderAndSets) {
  live_ = StoreService(Obj(
      R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"ports":[{"port":80},{"port":81}]}})"));
  // The ports are owned by an Update (a create through POST).
  std::vector<api::meta::RawJson> entries = fm().Update(nullptr, *live_, Op("creator", kT0));
  ASSERT_FALSE(entries.empty());
  json::array mf;
  for (const auto& e : entries) mf.push_back(json::parse(e.text));
  (*live_)["metadata"].as_object()["managedFields"] = std::move(mf);

  ASSERT_TRUE(
      Apply(
          R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"ports":[{"port":82},{"port":80}]}})",
          "a", kT0 + 1)
          .ok());
  std::vector<int64_t> order;
  for (const auto& p : Spec().at("ports").as_array()) order.push_back(p.at("port").as_int64());
  EXPECT_EQ(order, (std::vector<int64_t>{82, 80, 81}));

  auto finalizers = [&] {
    std::vector<std::string> out;
    if (const json::value* f = live_->at("metadata").as_object().if_contains("finalizers")) {
      for (const auto& v : f->as_array()) out.emplace_back(v.as_string());
    }
    return out;
  };
  ASSERT_TRUE(
      Apply(
          R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","finalizers":["x/a"]}})",
          "fa", kT0 + 2)
          .ok());
  ASSERT_TRUE(
      Apply(
          R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","finalizers":["x/b"]}})",
          "fb", kT0 + 3)
          .ok());
  EXPECT_EQ(finalizers(), (std::vector<std::string>{"x/a", "x/b"}));
  ASSERT_TRUE(
      Apply(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","finalizers":[]}})",
            "fa", kT0 + 4)
          .ok());
  EXPECT_EQ(finalizers(), (std::vector<std::string>{"x/b"}));
  EXPECT_EQ(SetOf("fa"), "-");
}

// Spec §1.4 step 6: the apply checks that come before any merging.
TEST_F(ServiceFieldManagerTest, ApplyRejectsWrongKindManagedFieldsAndSchemaErrors) {
  Result<json::object> r =
      Apply(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web"}})", "kubectl", kT0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kBadRequest);
  EXPECT_EQ(r.status().message(), "invalid object type: /v1, Kind=ConfigMap");
  r = Apply(R"({"metadata":{"name":"web"}})", "kubectl", kT0);
  EXPECT_EQ(r.status().message(), "invalid object type: /, Kind=");
  r = Apply(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","managedFields":[]}})",
            "kubectl", kT0);
  EXPECT_EQ(r.status().code(), Code::kBadRequest);
  EXPECT_EQ(r.status().message(), "metadata.managedFields must be nil");
  EXPECT_TRUE(
      Apply(
          R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","managedFields":null}})",
          "kubectl", kT0)
          .ok());
  r = Apply(
      R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"default"},"spec":{"foo":1}})",
      "kubectl", kT0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInternal);
  EXPECT_EQ(r.status().message(),
            "failed to create typed patch object (default/web; /v1, Kind=Service): .spec.foo: "
            "field not declared in schema");
}

// §4.2: kubectl's allowance for fields the last-applied annotation describes, and the
// annotation kept equal to the applied body.
TEST_F(ServiceFieldManagerTest, KubectlLastAppliedAllowanceAndUpdater) {
  const char* csa_body =
      R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"default"},"spec":{"ports":[{"port":80,"targetPort":8080}]}})";
  std::string annotation = std::string(csa_body) + "\n";
  json::object created = Obj(csa_body);
  created["metadata"].as_object()["annotations"] =
      json::object{{"kubectl.kubernetes.io/last-applied-configuration", annotation}};
  created = StoreService(created);
  std::vector<api::meta::RawJson> entries =
      fm().Update(nullptr, created, Op("kubectl-client-side-apply", kT0));
  json::array mf;
  for (const auto& e : entries) mf.push_back(json::parse(e.text));
  created["metadata"].as_object()["managedFields"] = mf;

  const char* ssa_body =
      R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"default"},"spec":{"ports":[{"port":80,"targetPort":9090}]}})";
  live_ = created;
  Result<json::object> other = Apply(ssa_body, "mine", kT0 + 1);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(
      other.status().message(),
      R"(Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .spec.ports[port=80,protocol="TCP"].targetPort)");

  live_ = created;
  ASSERT_TRUE(Apply(ssa_body, "kubectl", kT0 + 1).ok());
  EXPECT_EQ(Spec().at("ports").at(0).at("targetPort"), 9090);
  EXPECT_EQ(live_->at("metadata")
                .at("annotations")
                .at("kubectl.kubernetes.io/last-applied-configuration"),
            json::value(std::string(ssa_body) + "\n"));
}

TEST(FieldManagerUpdate, CreateTracksEverythingButStrippedAndDefaultsLikeUpstream) {
  const FieldManager* fm = FieldManager::ForKind("Service");
  ASSERT_NE(fm, nullptr);
  json::object created = StoreService(Obj(
      R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","labels":{"app":"web"}},"spec":{"selector":{"app":"web"},"ports":[{"name":"http","port":80,"targetPort":8080}]}})"));
  std::vector<api::meta::RawJson> entries = fm->Update(nullptr, created, Op("kubectl-create", kT0));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(
      entries[0].text,
      R"({"manager":"kubectl-create","operation":"Update","apiVersion":"v1","time":"2025-06-01T12:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:clusterIP":{},"f:ports":{".":{},"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{},"f:targetPort":{}}},"f:selector":{},"f:sessionAffinity":{},"f:type":{}}}})");
}

class UpdateBookkeepingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fm_ = FieldManager::ForKind("Service");
    ASSERT_NE(fm_, nullptr);
    live_ = StoreService(Obj(kWebApply));
    Result<json::object> applied = fm_->Apply(nullptr, Obj(kWebApply), Op("kubectl", kT0), false);
    ASSERT_TRUE(applied.ok());
    live_["metadata"].as_object()["managedFields"] = applied->at("metadata").at("managedFields");
  }
  const FieldManager* fm_ = nullptr;
  json::object live_;
};

// Scenario 15 and the cheap path: nothing changed, live's entries come back byte for byte.
TEST_F(UpdateBookkeepingTest, UnchangedObjectKeepsLiveEntries) {
  json::object same = live_;
  same["metadata"].as_object()["resourceVersion"] = "6";  // stripped: owned by nobody
  same["metadata"].as_object().erase("managedFields");    // clients that strip them
  std::vector<api::meta::RawJson> entries = fm_->Update(&live_, same, Op("z", kT0 + 60));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].text, kKubectlEntry);
}

// Scenario 31: a reset stores nothing, and the object stays untracked afterwards.
TEST_F(UpdateBookkeepingTest, ResetAndUntracked) {
  json::object reset = live_;
  reset["metadata"].as_object()["managedFields"] = json::parse("[{}]");
  EXPECT_TRUE(fm_->Update(&live_, reset, Op("m", kT0)).empty());
  reset["metadata"].as_object()["managedFields"] = json::array();
  EXPECT_TRUE(fm_->Update(&live_, reset, Op("m", kT0)).empty());

  json::object untracked = live_;
  untracked["metadata"].as_object().erase("managedFields");
  json::object changed = untracked;
  changed["spec"].as_object()["sessionAffinity"] = "ClientIP";
  EXPECT_TRUE(fm_->Update(&untracked, changed, Op("m", kT0)).empty());
}

// Scenario 32: request-supplied entries are taken as written (canonicalised); on a subresource
// they are ignored.
TEST_F(UpdateBookkeepingTest, RequestSuppliedEntries) {
  json::object edited = live_;
  edited["metadata"].as_object()["managedFields"] = json::parse(
      R"([{"manager":"kubectl","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:selector":{}}}}])");
  std::vector<api::meta::RawJson> entries = fm_->Update(&live_, edited, Op("kubectl", kT0 + 5));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(
      entries[0].text,
      R"({"manager":"kubectl","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:selector":{}}}})");
  entries = fm_->Update(&live_, edited, Op("kubelet", kT0 + 5, "status"));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].text, kKubectlEntry);
}

// The reset filter: a main-resource write does not own status, a status write not spec.
TEST_F(UpdateBookkeepingTest, ResetFiltersPerEndpoint) {
  json::object status = live_;
  status["status"] = json::parse(R"({"loadBalancer":{"ingress":[{"ip":"1.2.3.4"}]}})");
  std::vector<api::meta::RawJson> main = fm_->Update(&live_, status, Op("ctl", kT0 + 1));
  ASSERT_EQ(main.size(), 1u);  // only kubectl's entry
  std::vector<api::meta::RawJson> sub = fm_->Update(&live_, status, Op("ctl", kT0 + 1, "status"));
  ASSERT_EQ(sub.size(), 2u);
  EXPECT_EQ(
      sub[1].text,
      R"({"manager":"ctl","operation":"Update","apiVersion":"v1","time":"2025-06-01T12:00:01Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:loadBalancer":{"f:ingress":{}}}},"subresource":"status"})");
}

// Scenario 38: Lease renewals keep one entry whose time follows the renewals.
TEST(FieldManagerUpdate, Scenario38LeaseRenewal) {
  const FieldManager* fm = FieldManager::ForKind("Lease");
  ASSERT_NE(fm, nullptr);
  Operation op{"holder", "", "coordination.k8s.io/v1", kT0};
  json::object lease = Obj(
      R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l","namespace":"default","uid":"u","resourceVersion":"1"},"spec":{"holderIdentity":"h","leaseDurationSeconds":15,"renewTime":"2025-06-01T11:59:58.000000Z"}})");
  std::vector<api::meta::RawJson> entries = fm->Update(nullptr, lease, op);
  ASSERT_EQ(entries.size(), 1u);
  for (int64_t t : {kT0, kT0 + 2}) {
    json::object live = lease;
    json::array mf;
    for (const auto& e : entries) mf.push_back(json::parse(e.text));
    live["metadata"].as_object()["managedFields"] = mf;
    json::object renewed = live;
    renewed["spec"].as_object()["renewTime"] = api::meta::FormatRFC3339Micro(t * 1000000);
    op.now_seconds = t;
    entries = fm->Update(&live, renewed, op);
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_NE(entries[0].text.find("\"time\":\"" + api::meta::FormatRFC3339(t) + "\""),
              std::string::npos)
        << entries[0].text;
    lease = renewed;
  }
}

TEST(ManagerFromUserAgent, PrefixBeforeSlash) {
  EXPECT_EQ(ManagerFromUserAgent("kube-controller-manager/v1.33.0 (linux/amd64) "
                                 "kubernetes/abc/system:serviceaccount:kube-system:x"),
            "kube-controller-manager");
  EXPECT_EQ(ManagerFromUserAgent(""), "unknown");
  EXPECT_EQ(ManagerFromUserAgent("/v1"), "unknown");
  EXPECT_EQ(ManagerFromUserAgent("OpenAPI-Generator/33.1.0/python"), "OpenAPI-Generator");
  EXPECT_EQ(ManagerFromUserAgent("a\x07"
                                 "b/1"),
            "ab");
  EXPECT_EQ(ManagerFromUserAgent(std::string(200, 'x')), std::string(128, 'x'));
  EXPECT_EQ(ManagerFromUserAgent("a\xff"), "a\xEF\xBF\xBD");
}

}  // namespace
}  // namespace svcplane::apiserver::fieldmanager

namespace svcplane::apiserver::fieldmanager {
namespace {

// Scenarios 19 and 20: apply to pods/status owns only status (spec is reset there), and
// conflicts with the kubelet's status Update name its subresource.
TEST(FieldManagerStatus, Scenarios19And20ApplyToPodStatus) {
  const FieldManager* fm = FieldManager::ForKind("Pod");
  ASSERT_NE(fm, nullptr);
  json::object live = Obj(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default","uid":"u","resourceVersion":"3"},"spec":{"containers":[{"name":"c","image":"nginx"}]},"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}})");
  std::vector<api::meta::RawJson> created = fm->Update(nullptr, live, Op("kubectl-create", kT0));
  json::array mf;
  for (const auto& e : created) mf.push_back(json::parse(e.text));
  live["metadata"].as_object()["managedFields"] = mf;
  // The kubelet sets the Ready condition through the status subresource.
  json::object kubelet = live;
  kubelet["status"].as_object()["conditions"] =
      json::parse(R"([{"type":"Ready","status":"False"}])");
  std::vector<api::meta::RawJson> entries =
      fm->Update(&live, kubelet, Op("kubelet", kT0 + 1, "status"));
  mf.clear();
  for (const auto& e : entries) mf.push_back(json::parse(e.text));
  kubelet["metadata"].as_object()["managedFields"] = mf;
  live = kubelet;

  Result<json::object> r = fm->Apply(
      &live,
      Obj(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"nodeName":"x"},"status":{"conditions":[{"type":"Example","status":"True"}]}})"),
      Op("ctl", kT0 + 2, "status"), false);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  bool found = false;
  for (const auto& e : r->at("metadata").at("managedFields").as_array()) {
    if (e.at("manager") != "ctl") continue;
    found = true;
    EXPECT_EQ(e.at("subresource"), "status");
    EXPECT_EQ(
        json::serialize(e.at("fieldsV1")),
        R"({"f:status":{"f:conditions":{"k:{\"type\":\"Example\"}":{".":{},"f:status":{},"f:type":{}}}}})");
  }
  EXPECT_TRUE(found);

  r = fm->Apply(
      &live,
      Obj(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"status":{"conditions":[{"type":"Ready","status":"True"}]}})"),
      Op("ctl", kT0 + 3, "status"), false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.status().message(),
      R"(Apply failed with 1 conflict: conflict with "kubelet" with subresource "status" using v1: .status.conditions[type="Ready"].status)");
}

}  // namespace
}  // namespace svcplane::apiserver::fieldmanager
