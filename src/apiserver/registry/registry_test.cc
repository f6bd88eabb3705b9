#include "apiserver/registry/registry.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "storage/memory/memory_store.h"

namespace svcplane::apiserver::registry {
namespace {

using api::core::v1::Namespace;
using api::core::v1::Pod;
using api::core::v1::Service;

class RegistryTest : public ::testing::Test {
 protected:
  RegistryContext Ctx() {
    RegistryContext ctx;
    ctx.store = &store_;
    ctx.now_micros = [this] { return now_; };
    ctx.check_namespace = [this](std::string_view ns) -> Status {
      if (ns == "missing") return NotFoundError("namespaces \"missing\" not found");
      return Status::Ok();
    };
    return ctx;
  }

  static Service MakeService(std::string name, int port = 80) {
    Service s;
    s.metadata.name = std::move(name);
    s.metadata.labels["app"] = "web";
    s.spec.selector["app"] = "web";
    s.spec.cluster_ip = "10.96.0.10";
    s.spec.ports.push_back({.name = "http", .port = port});
    return s;
  }

  static Pod MakePod(std::string name, std::string app = "web") {
    Pod p;
    p.metadata.name = std::move(name);
    p.metadata.labels["app"] = std::move(app);
    p.spec.containers.push_back({.name = "c", .image = "nginx:1.25"});
    return p;
  }

  storage::memory::MemoryStore store_;
  int64_t now_ = 1714557600'000000;
};

TEST_F(RegistryTest, CreateFillsServerFieldsAndDefaults) {
  Registry<Service> services(Ctx());
  auto created = services.Create("default", MakeService("web"), {});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const Service& s = *created->obj;
  EXPECT_EQ(s.kind, "Service");
  EXPECT_EQ(s.api_version, "v1");
  EXPECT_EQ(s.metadata.namespace_, "default");
  EXPECT_EQ(s.metadata.uid.size(), 36u);
  EXPECT_EQ(s.metadata.creation_timestamp.unix_seconds, 1714557600);
  EXPECT_EQ(s.metadata.resource_version, std::to_string(created->revision));
  EXPECT_EQ(s.spec.type, "ClusterIP");         // defaulted
  EXPECT_EQ(s.spec.ports[0].protocol, "TCP");  // defaulted
  EXPECT_NE(created->json.str().find("\"resourceVersion\":\"" + s.metadata.resource_version + "\""),
            std::string::npos);
  auto got = services.Get("default", "web");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->json.str(), created->json.str());
}

TEST_F(RegistryTest, StoredBytesCarryNoEncoderSlack) {
  // The stored bytes live as long as the object and its watch history: a buffer grown by
  // doubling while encoding would waste up to half of that memory.
  Registry<Pod> pods(Ctx());
  Pod pod = MakePod("big");
  for (int i = 0; i < 40; ++i) pod.metadata.annotations["note-" + std::to_string(i)] = "xxxxxxxx";
  ASSERT_TRUE(pods.Create("default", pod, {}).ok());
  auto kv = store_.Get(pods.Key("default", "big"));
  ASSERT_TRUE(kv.ok()) << kv.status().ToString();
  EXPECT_GT(kv->value->size(), 1000u);
  EXPECT_LT(kv->value->capacity() - kv->value->size(), 32u);
}

TEST_F(RegistryTest, CreateErrors) {
  Registry<Service> services(Ctx());
  ASSERT_TRUE(services.Create("default", MakeService("web"), {}).ok());
  auto dup = services.Create("default", MakeService("web"), {});
  ASSERT_EQ(dup.status().code(), Code::kAlreadyExists);
  EXPECT_EQ(dup.status().message(), "services \"web\" already exists");

  auto invalid = services.Create("default", MakeService("1web"), {});
  ASSERT_EQ(invalid.status().code(), Code::kInvalid);
  EXPECT_NE(invalid.status().message().find("Service \"1web\" is invalid: metadata.name"),
            std::string::npos);
  ASSERT_FALSE(invalid.status().causes().empty());
  EXPECT_EQ(invalid.status().causes()[0].field, "metadata.name");

  auto missing_ns = services.Create("missing", MakeService("web"), {});
  EXPECT_EQ(missing_ns.status().code(), Code::kNotFound);

  Service with_rv = MakeService("x");
  with_rv.metadata.resource_version = "5";
  EXPECT_EQ(services.Create("default", with_rv, {}).status().code(), Code::kBadRequest);
  // Nothing half-written: only "web" exists.
  auto list = services.List("default", {});
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->items.size(), 1u);
}

TEST_F(RegistryTest, GenerateNameAndDryRun) {
  Registry<Pod> pods(Ctx());
  Pod p = MakePod("");
  p.metadata.rest->generate_name = "web-";
  auto a = pods.Create("default", p, {});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->obj->metadata.name.size(), 9u);
  EXPECT_EQ(a->obj->metadata.name.substr(0, 4), "web-");
  EXPECT_EQ(a->obj->status.phase, "Pending");
  auto dry = pods.Create("default", MakePod("dry"), {.dry_run = true});
  ASSERT_TRUE(dry.ok());
  EXPECT_EQ(pods.Get("default", "dry").status().code(), Code::kNotFound);
}

TEST_F(RegistryTest, UpdateConflictsOnStaleResourceVersionAndSkipsNoOps) {
  Registry<Service> services(Ctx());
  auto created = services.Create("default", MakeService("web"), {});
  ASSERT_TRUE(created.ok());
  Service edit = *created->obj;
  edit.metadata.labels["tier"] = "fe";
  auto updated = services.Update("default", "web", Subresource::kNone, edit, {});
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_GT(updated->revision, created->revision);

  // The same stale RV again: 409 with upstream's message.
  auto stale = services.Update("default", "web", Subresource::kNone, edit, {});
  ASSERT_EQ(stale.status().code(), Code::kConflict);
  EXPECT_EQ(stale.status().message(),
            "Operation cannot be fulfilled on services \"web\": the object has been modified; "
            "please apply your changes to the latest version and try again");

  // Identical content: same RV, no new revision.
  Service same = *updated->obj;
  auto noop = services.Update("default", "web", Subresource::kNone, same, {});
  ASSERT_TRUE(noop.ok());
  EXPECT_EQ(noop->revision, updated->revision);
  EXPECT_EQ(store_.CurrentRevision(), updated->revision);

  // Immutable clusterIP.
  Service ip = *updated->obj;
  ip.spec.cluster_ip = "10.96.0.99";
  ip.spec.cluster_ips = {"10.96.0.99"};
  auto immutable = services.Update("default", "web", Subresource::kNone, ip, {});
  ASSERT_EQ(immutable.status().code(), Code::kInvalid);
  EXPECT_NE(immutable.status().message().find("spec.clusterIPs[0]: Invalid value"),
            std::string::npos)
      << immutable.status().message();
}

// As rest.BeforeUpdate: an unconditional PUT of a freshly built object (no uid, no
// creationTimestamp, no resourceVersion: what controllers send) keeps the stored ones.
TEST_F(RegistryTest, UnconditionalUpdateWithoutUidKeepsStoredIdentity) {
  Registry<Service> services(Ctx());
  auto created = services.Create("default", MakeService("fresh"), {});
  ASSERT_TRUE(created.ok());
  Service fresh = MakeService("fresh", 81);
  fresh.spec.cluster_ip = created->obj->spec.cluster_ip;
  fresh.spec.cluster_ips = created->obj->spec.cluster_ips;
  ASSERT_TRUE(fresh.metadata.uid.empty());
  auto updated = services.Update("default", "fresh", Subresource::kNone, fresh, {});
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(updated->obj->metadata.uid, created->obj->metadata.uid);
  EXPECT_EQ(updated->obj->metadata.creation_timestamp, created->obj->metadata.creation_timestamp);
  EXPECT_EQ(updated->obj->spec.ports.at(0).port, 81);
  // A different uid is still refused: it names another object.
  Service other = *updated->obj;
  other.metadata.uid = "6b2a5f0e-0000-4000-8000-000000000000";
  auto refused = services.Update("default", "fresh", Subresource::kNone, other, {});
  EXPECT_EQ(refused.status().code(), Code::kInvalid) << refused.status().ToString();
}

TEST_F(RegistryTest, StatusSubresourceKeepsSpecAndMainKeepsStatus) {
  Registry<Pod> pods(Ctx());
  auto created = pods.Create("default", MakePod("p"), {});
  ASSERT_TRUE(created.ok());
  Pod st = *created->obj;
  st.status.phase = "Running";
  st.status.pod_ip = "10.244.0.5";
  st.spec.containers[0].image = "ignored:2";
  auto after_status = pods.Update("default", "p", Subresource::kStatus, st, {});
  ASSERT_TRUE(after_status.ok()) << after_status.status().ToString();
  EXPECT_EQ(after_status->obj->status.phase, "Running");
  EXPECT_EQ(after_status->obj->spec.containers[0].image, "nginx:1.25");

  Pod main = *after_status->obj;
  main.status.phase = "Failed";
  main.metadata.labels["x"] = "y";
  auto after_main = pods.Update("default", "p", Subresource::kNone, main, {});
  ASSERT_TRUE(after_main.ok()) << after_main.status().ToString();
  EXPECT_EQ(after_main->obj->status.phase, "Running");
  EXPECT_EQ(after_main->obj->metadata.labels.at("x"), "y");
}

TEST_F(RegistryTest, CreateOnUpdateOnlyWhereUpstreamAllowsIt) {
  Registry<Service> services(Ctx());
  bool created = false;
  auto svc =
      services.Update("default", "web", Subresource::kNone, MakeService("web"), {}, &created);
  ASSERT_TRUE(svc.ok()) << svc.status().ToString();
  EXPECT_TRUE(created);
  Registry<Pod> pods(Ctx());
  auto pod = pods.Update("default", "p", Subresource::kNone, MakePod("p"), {});
  EXPECT_EQ(pod.status().code(), Code::kNotFound);
  EXPECT_EQ(pod.status().message(), "pods \"p\" not found");
}

TEST_F(RegistryTest, ListWithSelectorsAndPagination) {
  Registry<Pod> pods(Ctx());
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(
        pods.Create("default", MakePod("p" + std::to_string(i), i % 2 ? "a" : "b"), {}).ok());
  }
  ASSERT_TRUE(pods.Create("other", MakePod("q"), {}).ok());
  ListQuery q;
  q.label = *api::selectors::ParseLabelSelector("app=a");
  auto a = pods.List("default", q);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->items.size(), 2u);
  EXPECT_EQ(a->items[0].obj->metadata.name, "p1");

  auto all = pods.List("", {});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->items.size(), 6u);

  ListQuery page;
  page.limit = 2;
  auto p1 = pods.List("default", page);
  ASSERT_TRUE(p1.ok());
  ASSERT_EQ(p1->items.size(), 2u);
  ASSERT_FALSE(p1->continue_token.empty());
  EXPECT_EQ(p1->remaining_item_count, 3);
  // Writes between pages do not show: the pages are one snapshot.
  ASSERT_TRUE(pods.Delete("default", "p4", {}).ok());
  page.continue_token = p1->continue_token;
  auto p2 = pods.List("default", page);
  ASSERT_TRUE(p2.ok());
  EXPECT_EQ(p2->revision, p1->revision);
  page.continue_token = p2->continue_token;
  auto p3 = pods.List("default", page);
  ASSERT_TRUE(p3.ok());
  EXPECT_EQ(p3->items.size(), 1u);
  EXPECT_EQ(p3->items[0].obj->metadata.name, "p4");
  EXPECT_TRUE(p3->continue_token.empty());

  ListQuery field;
  field.field = *api::selectors::ParseFieldSelector("metadata.name=p2");
  auto one = pods.List("default", field);
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->items.size(), 1u);
}

TEST_F(RegistryTest, JsonOnlyListWritesTheSameJsonWithoutTypedObjects) {
  Registry<Pod> pods(Ctx());
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(
        pods.Create("default", MakePod("p" + std::to_string(i), i % 2 ? "a" : "b"), {}).ok());
  }
  Pod edit = MakePod("p0", "b");
  edit.metadata.labels["v"] = "2";
  ASSERT_TRUE(pods.Update("default", "p0", Subresource::kNone, edit, {}).ok());
  auto full = pods.List("default", {});
  ListQuery json_only;
  json_only.json_only = true;
  auto lean = pods.List("default", json_only);
  ASSERT_TRUE(full.ok() && lean.ok());
  ASSERT_EQ(lean->items.size(), full->items.size());
  EXPECT_EQ(lean->revision, full->revision);
  for (size_t i = 0; i < full->items.size(); ++i) {
    EXPECT_EQ(lean->items[i].obj, nullptr);
    EXPECT_EQ(lean->items[i].json.str(), full->items[i].json.str());
    EXPECT_EQ(lean->items[i].revision, full->items[i].revision);
  }
  EXPECT_NE(lean->items[0].json.str().find("\"v\":\"2\""), std::string::npos);
  // A selector needs the typed objects to match: those lists still have them.
  json_only.label = *api::selectors::ParseLabelSelector("app=a");
  auto selected = pods.List("default", json_only);
  ASSERT_TRUE(selected.ok());
  ASSERT_EQ(selected->items.size(), 2u);
  EXPECT_EQ(selected->items[0].obj->metadata.name, "p1");
}

// kube-apiserver's watch cache ignores the limit of a list at resourceVersion "0" (cacher.go
// computeListLimit): a reflector's first list, limit=500&resourceVersion=0, gets everything.
TEST_F(RegistryTest, ListAtResourceVersionZeroIgnoresTheLimit) {
  Registry<Pod> pods(Ctx());
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(pods.Create("default", MakePod("p" + std::to_string(i)), {}).ok());
  ListQuery q;
  q.limit = 2;
  q.resource_version = "0";
  auto all = pods.List("default", q);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->items.size(), 5u);
  EXPECT_TRUE(all->continue_token.empty());
  // Any other version (and none) still pages.
  q.resource_version.clear();
  auto page = pods.List("default", q);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->items.size(), 2u);
  EXPECT_FALSE(page->continue_token.empty());
  q.resource_version = std::to_string(all->revision);
  page = pods.List("default", q);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->items.size(), 2u);
}

TEST_F(RegistryTest, DeleteWithFinalizersIsDeferredUntilTheyAreRemoved) {
  Registry<Service> services(Ctx());
  Service s = MakeService("web");
  s.metadata.finalizers = {"example.com/hold"};
  ASSERT_TRUE(services.Create("default", s, {}).ok());
  auto del = services.Delete("default", "web", {});
  ASSERT_TRUE(del.ok()) << del.status().ToString();
  EXPECT_FALSE(del->deleted);
  ASSERT_TRUE(del->object.obj->metadata.deletion_timestamp.has_value());
  Service release = *del->object.obj;
  release.metadata.finalizers.clear();
  auto gone = services.Update("default", "web", Subresource::kNone, release, {});
  ASSERT_TRUE(gone.ok()) << gone.status().ToString();
  EXPECT_EQ(services.Get("default", "web").status().code(), Code::kNotFound);
}

TEST_F(RegistryTest, DeletePreconditionsAndPodGrace) {
  Registry<Pod> pods(Ctx());
  Pod p = MakePod("p");
  p.spec.node_name = "n1";
  auto created = pods.Create("default", p, {});
  ASSERT_TRUE(created.ok());
  DeleteOptions wrong_uid;
  wrong_uid.precondition_uid = "nope";
  EXPECT_EQ(pods.Delete("default", "p", wrong_uid).status().code(), Code::kConflict);
  auto graceful = pods.Delete("default", "p", {});
  ASSERT_TRUE(graceful.ok());
  EXPECT_FALSE(graceful->deleted);
  EXPECT_EQ(graceful->object.obj->metadata.deletion_timestamp->unix_seconds, 1714557600 + 30);
  DeleteOptions now;
  now.grace_period_seconds = 0;
  auto forced = pods.Delete("default", "p", now);
  ASSERT_TRUE(forced.ok()) << forced.status().ToString();
  EXPECT_TRUE(forced->deleted);
  EXPECT_EQ(pods.Get("default", "p").status().code(), Code::kNotFound);
}

TEST_F(RegistryTest, NamespaceDeletionGoesThroughTerminating) {
  Registry<Namespace> namespaces(Ctx());
  Namespace ns;
  ns.metadata.name = "team-a";
  auto created = namespaces.Create("", ns, {});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->obj->spec.finalizers, std::vector<std::string>{"kubernetes"});
  EXPECT_EQ(created->obj->metadata.labels.at("kubernetes.io/metadata.name"), "team-a");
  auto first = namespaces.Delete("", "team-a", {});
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->deleted);
  EXPECT_EQ(first->object.obj->status.phase, "Terminating");
  auto second = namespaces.Delete("", "team-a", {});
  ASSERT_EQ(second.status().code(), Code::kConflict);
  EXPECT_NE(second.status().message().find("ensuring all content is removed"), std::string::npos);
  Namespace fin = *first->object.obj;
  fin.spec.finalizers.clear();
  auto done = namespaces.Update("", "team-a", Subresource::kFinalize, fin, {});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(namespaces.Get("", "team-a").status().code(), Code::kNotFound);
}

TEST_F(RegistryTest, WatchDeliversSelectorTransitions) {
  Registry<Pod> pods(Ctx());
  ASSERT_TRUE(pods.Create("default", MakePod("p", "a"), {}).ok());
  ListQuery q;
  q.label = *api::selectors::ParseLabelSelector("app=a");
  q.resource_version = std::to_string(store_.CurrentRevision());
  auto w = pods.Watch("default", q, {});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  auto cur = pods.Get("default", "p");
  Pod relabel = *cur->obj;
  relabel.metadata.labels["app"] = "b";
  auto moved = pods.Update("default", "p", Subresource::kNone, relabel, {});
  ASSERT_TRUE(moved.ok());
  ASSERT_TRUE(pods.Create("default", MakePod("q", "a"), {}).ok());
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::vector<WatchItem<Pod>> got;
  while (got.size() < 2 && std::chrono::steady_clock::now() < deadline) {
    auto batch = (*w)->Next(10, deadline);
    ASSERT_TRUE(batch.ok());
    for (auto& item : *batch) got.push_back(std::move(item));
  }
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].type, WatchEventType::kDeleted);
  EXPECT_EQ(got[0].object.obj->metadata.labels.at("app"), "a");  // last matching state
  EXPECT_EQ(got[0].object.revision, moved->revision);            // at the new revision
  EXPECT_EQ(got[1].type, WatchEventType::kAdded);
  EXPECT_EQ(got[1].object.obj->metadata.name, "q");
}

TEST_F(RegistryTest, WatchFromZeroStartsWithTheCurrentState) {
  Registry<Pod> pods(Ctx());
  ASSERT_TRUE(pods.Create("default", MakePod("a"), {}).ok());
  ASSERT_TRUE(pods.Create("default", MakePod("b"), {}).ok());
  ListQuery q;
  q.resource_version = "0";
  auto w = pods.Watch("default", q, {});
  ASSERT_TRUE(w.ok());
  auto first = (*w)->Poll(10);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->size(), 2u);
  EXPECT_EQ((*first)[0].type, WatchEventType::kAdded);
}

TEST_F(RegistryTest, WatchNotifiesAgainAfterAPollThatFilteredEverything) {
  // A Poll whose storage events all fail the selector returns nothing; the storage channel
  // must still be drained so it notifies on the next event (else the watch goes silent).
  Registry<Pod> pods(Ctx());
  ListQuery q;
  q.label = *api::selectors::ParseLabelSelector("app=a");
  q.resource_version = std::to_string(store_.CurrentRevision());
  std::atomic<int> notified{0};
  storage::WatchOptions wopts;
  wopts.notify = [&] { ++notified; };
  auto w = pods.Watch("default", q, wopts);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  auto wait_for = [&](int n) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (notified.load() < n && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return notified.load() >= n;
  };
  auto empty = (*w)->Poll(10);  // arms the notification
  ASSERT_TRUE(empty.ok());
  ASSERT_TRUE(pods.Create("default", MakePod("other", "b"), {}).ok());
  ASSERT_TRUE(wait_for(1));
  auto filtered = (*w)->Poll(10);
  ASSERT_TRUE(filtered.ok());
  EXPECT_TRUE(filtered->empty());
  ASSERT_TRUE(pods.Create("default", MakePod("mine", "a"), {}).ok());
  ASSERT_TRUE(wait_for(2)) << "no notification after a fully filtered Poll";
  auto got = (*w)->Poll(10);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].object.obj->metadata.name, "mine");
}

// The write hooks: begin_write may edit the object before validation, and its callback hears
// exactly once whether the object was stored; after_delete sees the deleted object.
TEST_F(RegistryTest, WriteHooksSeeEveryOutcome) {
  Registry<Service> services(Ctx());
  std::vector<std::string> log;
  WriteHooks<Service> hooks;
  hooks.begin_write = [&](Service& s, const Service* old,
                          bool dry_run) -> Result<std::function<void(bool)>> {
    if (s.metadata.labels.count("refuse")) return ConflictError("refused by hook");
    s.metadata.annotations["hooked"] = old ? "update" : "create";
    std::string name = s.metadata.name + (dry_run ? "/dry" : "");
    return std::function<void(bool)>(
        [&log, name](bool stored) { log.push_back(name + (stored ? ":stored" : ":dropped")); });
  };
  hooks.after_delete = [&](const Service& s) { log.push_back(s.metadata.name + ":deleted"); };
  services.SetHooks(hooks);

  auto created = services.Create("default", MakeService("a"), {});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->obj->metadata.annotations.at("hooked"), "create");
  Service bad = MakeService("b");
  bad.spec.ports[0].port = 0;  // invalid: the hook ran, nothing was stored
  EXPECT_FALSE(services.Create("default", bad, {}).ok());
  EXPECT_TRUE(services.Create("default", MakeService("c"), {.dry_run = true}).ok());
  Service refused = MakeService("d");
  refused.metadata.labels["refuse"] = "1";
  EXPECT_EQ(services.Create("default", refused, {}).status().message(), "refused by hook");
  Service upd = *created->obj;
  upd.spec.ports[0].port = 81;
  auto updated = services.Update("default", "a", Subresource::kNone, upd, {});
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(updated->obj->metadata.annotations.at("hooked"), "update");
  ASSERT_TRUE(services.Delete("default", "a", {}).ok());
  EXPECT_EQ(log, (std::vector<std::string>{"a:stored", "b:dropped", "c/dry:dropped", "a:stored",
                                           "a:deleted"}));
}

}  // namespace
}  // namespace svcplane::apiserver::registry
