#include "apiserver/loopback/loopback_clientset.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <future>
#include <thread>

#include "api/codec/json.h"
#include "apiserver/loopback/testing/memory_clientset.h"
#include "apiserver/registry/registry.h"
#include "apiserver/server/api_server.h"
#include "client/errors.h"
#include "client/informers/informer_factory.h"
#include "client/typed/rest_clientset.h"
#include "storage/memory/memory_store.h"

namespace svcplane::apiserver::loopback {
namespace {

using api::core::v1::Endpoints;
using api::core::v1::Pod;
using api::core::v1::Service;
using client::WatchEvent;
using client::WatchEventType;
using ::testing::ElementsAre;

Pod MakePod(std::string name, std::string app = "web", std::string ns = "default") {
  Pod p;
  p.metadata.name = std::move(name);
  p.metadata.namespace_ = std::move(ns);
  p.metadata.labels["app"] = std::move(app);
  p.spec.containers.push_back({.name = "c", .image = "nginx:1.25"});
  return p;
}

class LoopbackTest : public ::testing::Test {
 protected:
  LoopbackTest() : mem_(0, {.bookmark_interval = std::chrono::milliseconds(50)}) {
    mem_.CreateNamespace("default");
  }
  client::ResourceClient<Pod>& pods() { return mem_.clients().Pods(); }
  testing::MemoryClientset mem_;
};

TEST_F(LoopbackTest, CreateGetListShareTheRegistrysObjects) {
  auto created = pods().Create(MakePod("a"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_FALSE((*created)->metadata.uid.empty());
  EXPECT_FALSE((*created)->metadata.resource_version.empty());
  EXPECT_EQ((*created)->spec.rest->restart_policy, "Always");  // defaulted by the registry
  auto got = pods().Get("default", "a");
  ASSERT_TRUE(got.ok());
  auto list = pods().List("default");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->items.size(), 1u);
  // No copies: the same immutable object for every reader.
  EXPECT_EQ(got->get(), list->items[0].get());
  EXPECT_EQ(list->resource_version, (*created)->metadata.resource_version);
}

// A caller acting as someone (server::IdentityClientset) passes the user in its options; the
// registry's admission sees it. Calls without one are the server's own and are not admitted.
TEST(LoopbackAdmission, TheCallersUserReachesAdmission) {
  storage::memory::MemoryStore store;
  registry::RegistryContext ctx;
  ctx.store = &store;
  ctx.now_micros = [] { return int64_t{1714557600'000000}; };
  // The patch is the whole new document: admission refuses before anything else looks at it.
  ctx.apply_patch = [](std::string_view, std::string_view, std::string_view,
                       std::string_view body) -> Result<std::string> { return std::string(body); };
  registry::Registry<Pod> pods(ctx);
  std::vector<std::pair<registry::AdmissionOperation, std::string>> seen;
  pods.SetAdmission([&](const registry::AdmissionRequest<Pod>& a) -> Status {
    seen.emplace_back(a.operation, a.user.username);
    if (a.user.username == "system:node:n1") return Status(Code::kForbidden, "refused");
    return Status::Ok();
  });
  registry::Registry<api::core::v1::Namespace> namespaces(ctx);
  registry::Registry<Service> services(ctx);
  registry::Registry<api::core::v1::Node> nodes(ctx);
  registry::Registry<Endpoints> endpoints(ctx);
  registry::Registry<api::core::v1::Event> events(ctx);
  registry::Registry<api::discovery::v1::EndpointSlice> slices(ctx);
  registry::Registry<api::coordination::v1::Lease> leases(ctx);
  auto clients = MakeLoopbackClientset(
      {&namespaces, &services, &pods, &nodes, &endpoints, &events, &slices, &leases});
  client::ResourceClient<Pod>& c = clients->Pods();
  const api::authentication::v1::UserInfo jane{"jane", "", {"system:authenticated"}, {}};
  const api::authentication::v1::UserInfo n1{"system:node:n1", "", {"system:nodes"}, {}};
  ASSERT_TRUE(c.Create(MakePod("a")).ok());
  auto b = c.Create(MakePod("b"), {.user = &jane});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(c.Create(MakePod("c"), {.user = &n1}).status().code(), Code::kForbidden);
  Pod changed = **b;
  changed.metadata.labels["x"] = "y";
  EXPECT_EQ(c.Update(changed, {.user = &n1}).status().code(), Code::kForbidden);
  EXPECT_EQ(c.UpdateStatus(changed, {.user = &n1}).status().code(), Code::kForbidden);
  EXPECT_EQ(c.Patch("default", "b", client::PatchType::kMerge, api::codec::EncodeJson(changed),
                    {.user = &n1}, "")
                .status()
                .code(),
            Code::kForbidden);
  EXPECT_EQ(c.Delete("default", "b", {.user = &n1}).code(), Code::kForbidden);
  EXPECT_TRUE(c.Delete("default", "b", {.user = &jane}).ok());
  using Op = registry::AdmissionOperation;
  EXPECT_EQ(seen, (std::vector<std::pair<Op, std::string>>{{Op::kCreate, "jane"},
                                                           {Op::kCreate, "system:node:n1"},
                                                           {Op::kUpdate, "system:node:n1"},
                                                           {Op::kUpdate, "system:node:n1"},
                                                           {Op::kUpdate, "system:node:n1"},
                                                           {Op::kDelete, "system:node:n1"},
                                                           {Op::kDelete, "jane"}}));
}

TEST_F(LoopbackTest, NamespaceCheckAndValidationApply) {
  auto missing = pods().Create(MakePod("a", "web", "nope"));
  EXPECT_TRUE(client::IsNotFound(missing.status())) << missing.status().ToString();
  Pod bad = MakePod("Bad_Name");
  EXPECT_TRUE(client::IsInvalid(pods().Create(bad).status()));
  ASSERT_TRUE(pods().Create(MakePod("a")).ok());
  EXPECT_TRUE(client::IsAlreadyExists(pods().Create(MakePod("a")).status()));
}

TEST_F(LoopbackTest, ListSelectorsAndPaging) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(pods().Create(MakePod("p" + std::to_string(i), i % 2 ? "odd" : "even")).ok());
  }
  auto odd = pods().List("default", {.label_selector = "app=odd"});
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(odd->items.size(), 2u);
  auto named = pods().List("", {.field_selector = "metadata.name=p3"});
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  ASSERT_EQ(named->items.size(), 1u);
  EXPECT_EQ(named->items[0]->metadata.name, "p3");
  EXPECT_TRUE(client::IsBadRequest(pods().List("", {.label_selector = "a in ("}).status()) ||
              client::IsInvalid(pods().List("", {.label_selector = "a in ("}).status()));

  std::vector<std::string> names;
  client::ListOptions page{.limit = 2};
  std::string rv;
  while (true) {
    auto got = pods().List("default", page);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    if (rv.empty()) rv = got->resource_version;
    EXPECT_EQ(got->resource_version, rv);  // every page at the first page's snapshot
    for (const auto& p : got->items) names.push_back(p->metadata.name);
    if (got->continue_token.empty()) break;
    page.continue_token = got->continue_token;
    // A write between pages is not seen by the remaining pages.
    ASSERT_TRUE(pods().Create(MakePod("z" + std::to_string(names.size()))).ok());
  }
  EXPECT_THAT(names, ElementsAre("p0", "p1", "p2", "p3", "p4"));
}

TEST_F(LoopbackTest, UpdatesPatchesAndConflicts) {
  auto a = pods().Create(MakePod("a"));
  ASSERT_TRUE(a.ok());
  Pod changed = **a;
  changed.metadata.labels["tier"] = "front";
  auto updated = pods().Update(changed);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ((*updated)->metadata.labels.at("tier"), "front");
  // The same stale resourceVersion again: Conflict.
  EXPECT_TRUE(client::IsConflict(pods().Update(changed).status()));

  Pod status = **updated;
  status.status.phase = "Running";
  auto st = pods().UpdateStatus(status);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ((*st)->status.phase, "Running");

  auto patched = pods().Patch("default", "a", client::PatchType::kMerge,
                              R"({"metadata":{"labels":{"patched":"yes"}}})");
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_EQ((*patched)->metadata.labels.at("patched"), "yes");
  auto spatched = pods().Patch("default", "a", client::PatchType::kStrategicMerge,
                               R"({"status":{"phase":"Succeeded"}})", {}, "status");
  ASSERT_TRUE(spatched.ok()) << spatched.status().ToString();
  EXPECT_EQ((*spatched)->status.phase, "Succeeded");

  // Endpoints have no status subresource.
  Endpoints ep;
  ep.metadata.name = "e";
  ep.metadata.namespace_ = "default";
  ASSERT_TRUE(mem_.clients().Endpoints().Create(ep).ok());
  EXPECT_TRUE(client::IsNotFound(mem_.clients().Endpoints().UpdateStatus(ep).status()));
}

TEST_F(LoopbackTest, DeleteMapsOptions) {
  auto a = pods().Create(MakePod("a"));
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(client::IsConflict(pods().Delete("default", "a", {.precondition_uid = "other"})));
  ASSERT_TRUE(pods().Delete("default", "a", {.dry_run = true}).ok());
  ASSERT_TRUE(pods().Get("default", "a").ok());
  ASSERT_TRUE(pods().Delete("default", "a", {.precondition_uid = (*a)->metadata.uid}).ok());
  EXPECT_TRUE(client::IsNotFound(pods().Get("default", "a").status()));
  EXPECT_TRUE(client::IsNotFound(pods().Delete("default", "a")));

  // Orphan propagation defers the delete behind the orphan finalizer.
  ASSERT_TRUE(pods().Create(MakePod("b")).ok());
  ASSERT_TRUE(pods().Delete("default", "b", {.propagation_policy = "Orphan"}).ok());
  auto b = pods().Get("default", "b");
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE((*b)->metadata.deletion_timestamp.has_value());
  EXPECT_THAT((*b)->metadata.finalizers, ElementsAre("orphan"));
  EXPECT_FALSE(pods().Delete("default", "b", {.propagation_policy = "Sideways"}).ok());
}

// Runs a watch on its own thread, collecting events until cancelled.
struct Watcher {
  Watcher(client::ResourceClient<Pod>& pods, client::ListOptions options) {
    done = std::async(std::launch::async, [this, &pods, options] {
      return pods.Watch(
          "default", options,
          [this](WatchEvent<Pod> ev) {
            std::lock_guard lock(mu);
            events.push_back(std::move(ev));
            return true;
          },
          cancel);
    });
  }
  ~Watcher() {
    cancel.Cancel();
    if (done.valid()) done.wait();
  }
  size_t Count(WatchEventType type) {
    std::lock_guard lock(mu);
    return std::count_if(events.begin(), events.end(),
                         [&](const auto& e) { return e.type == type; });
  }
  bool WaitFor(WatchEventType type, size_t n) {
    for (int i = 0; i < 1000; ++i) {
      if (Count(type) >= n) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  std::mutex mu;
  std::vector<WatchEvent<Pod>> events;
  client::CancelToken cancel;
  std::future<Status> done;
};

TEST_F(LoopbackTest, WatchDeliversEventsBookmarksAndStopsOnCancel) {
  ASSERT_TRUE(pods().Create(MakePod("before")).ok());
  auto list = pods().List("default");
  ASSERT_TRUE(list.ok());
  Watcher w(pods(), {.label_selector = "app=web",
                     .resource_version = list->resource_version,
                     .allow_watch_bookmarks = true});
  auto a = pods().Create(MakePod("a"));
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(pods().Create(MakePod("other", "db")).ok());  // filtered out
  Pod changed = **a;
  changed.metadata.labels["x"] = "y";
  ASSERT_TRUE(pods().Update(changed).ok());
  ASSERT_TRUE(pods().Delete("default", "a").ok());
  ASSERT_TRUE(w.WaitFor(WatchEventType::kDeleted, 1));
  ASSERT_TRUE(w.WaitFor(WatchEventType::kBookmark, 1));
  w.cancel.Cancel();
  ASSERT_EQ(w.done.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_TRUE(w.done.get().ok());
  std::vector<WatchEventType> types;
  for (const auto& e : w.events) {
    if (e.type != WatchEventType::kBookmark) types.push_back(e.type);
  }
  EXPECT_THAT(types, ElementsAre(WatchEventType::kAdded, WatchEventType::kModified,
                                 WatchEventType::kDeleted));
  EXPECT_EQ(w.events[0].object->metadata.name, "a");
  auto current = pods().List("default");
  EXPECT_EQ(w.events.back().object->metadata.resource_version, current->resource_version);
}

TEST_F(LoopbackTest, WatchWithoutResourceVersionStartsWithTheState) {
  ASSERT_TRUE(pods().Create(MakePod("a")).ok());
  ASSERT_TRUE(pods().Create(MakePod("b")).ok());
  Watcher w(pods(), {});
  ASSERT_TRUE(w.WaitFor(WatchEventType::kAdded, 2));
  w.cancel.Cancel();
  EXPECT_TRUE(w.done.get().ok());
}

TEST_F(LoopbackTest, WatchTimeoutEndsCleanly) {
  Watcher w(pods(), {.resource_version = "1", .timeout_seconds = 1});
  ASSERT_EQ(w.done.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_TRUE(w.done.get().ok());
}

TEST(LoopbackGoneTest, CompactedResourceVersionIsGone) {
  testing::MemoryClientset mem(10);
  mem.CreateNamespace("default");
  auto first = mem.clients().Pods().Create(MakePod("a"));
  ASSERT_TRUE(first.ok());
  for (int i = 0; i < 50; ++i)
    ASSERT_TRUE(mem.clients().Pods().Create(MakePod("p" + std::to_string(i))).ok());
  ASSERT_TRUE(mem.store().Compact(mem.store().CurrentRevision() - 1).ok());
  client::CancelToken cancel;
  Status st = mem.clients().Pods().Watch(
      "default", {.resource_version = (*first)->metadata.resource_version},
      [](WatchEvent<Pod>) { return true; }, cancel);
  EXPECT_TRUE(client::IsGone(st)) << st.ToString();
}

// A started server on a scratch folder, its loopback Clientset and a REST one from its kubeconfig.
class LoopbackServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("svcplane-loopback-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    server::ApiServerOptions opts;
    opts.data_dir = dir_.string();
    opts.port = 0;
    opts.io_threads = 1;
    opts.worker_threads = 2;
    opts.watch_threads = 1;
    auto srv = server::ApiServer::Start(opts);
    ASSERT_TRUE(srv.ok()) << srv.status().ToString();
    srv_ = std::move(*srv);
    auto rest = client::typed::MakeRestClientsetFromKubeconfig(srv_->kubeconfig_path());
    ASSERT_TRUE(rest.ok()) << rest.status().ToString();
    rest_ = std::move(*rest);
  }
  void TearDown() override {
    rest_.reset();
    if (srv_) srv_->Shutdown();
    srv_.reset();
    std::filesystem::remove_all(dir_);
  }
  client::Clientset& local() { return srv_->loopback(); }

  std::filesystem::path dir_;
  std::unique_ptr<server::ApiServer> srv_;
  std::unique_ptr<client::Clientset> rest_;
};

// The loopback Clientset of a started server sees what REST clients write, and vice versa.
TEST_F(LoopbackServerTest, LoopbackAndRestAgree) {
  client::Clientset& local = this->local();
  client::Clientset* rest = rest_.get();

  auto a = local.Pods().Create(MakePod("from-loopback"));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto seen = rest->Pods().Get("default", "from-loopback");
  ASSERT_TRUE(seen.ok()) << seen.status().ToString();
  EXPECT_EQ((*seen)->metadata.uid, (*a)->metadata.uid);
  EXPECT_EQ((*seen)->metadata.resource_version, (*a)->metadata.resource_version);

  Watcher w(local.Pods(), {.resource_version = (*a)->metadata.resource_version});
  auto b = rest->Pods().Create(MakePod("from-rest"));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_TRUE(w.WaitFor(WatchEventType::kAdded, 1));
  EXPECT_EQ(w.events[0].object->metadata.name, "from-rest");
  w.cancel.Cancel();
  EXPECT_TRUE(w.done.get().ok());

  auto rest_list = rest->Pods().List("default");
  auto local_list = local.Pods().List("default");
  ASSERT_TRUE(rest_list.ok() && local_list.ok());
  EXPECT_EQ(rest_list->items.size(), 2u);  // before bound-by-rest below
  EXPECT_EQ(rest_list->resource_version, local_list->resource_version);
  EXPECT_TRUE(client::IsNotFound(local.Pods().Create(MakePod("x", "web", "missing")).status()));

  // pods/binding both ways: in place (same uid), once.
  ASSERT_TRUE(local.BindPod("default", "from-loopback", "node-1", (*a)->metadata.uid).ok());
  auto bound = rest->Pods().Get("default", "from-loopback");
  ASSERT_TRUE(bound.ok());
  EXPECT_EQ((*bound)->spec.node_name, "node-1");
  EXPECT_EQ((*bound)->metadata.uid, (*a)->metadata.uid);
  EXPECT_TRUE(client::IsConflict(rest->BindPod("default", "from-loopback", "node-2")));
  auto c = rest->Pods().Create(MakePod("bound-by-rest"));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(client::IsConflict(local.BindPod("default", "bound-by-rest", "n", "wrong-uid")));
  ASSERT_TRUE(rest->BindPod("default", "bound-by-rest", "node-2", (*c)->metadata.uid).ok());
  EXPECT_EQ((*local.Pods().Get("default", "bound-by-rest"))->spec.node_name, "node-2");
  EXPECT_TRUE(client::IsNotFound(local.BindPod("default", "nobody", "node-1")));
  ASSERT_TRUE(local.Pods().Delete("default", "from-rest").ok());
  EXPECT_TRUE(client::IsNotFound(rest->Pods().Get("default", "from-rest").status()));
}

// apps/v1 through both clientsets (the workload controllers' client): create, status write,
// and an informer over the REST clientset that sees both.
TEST_F(LoopbackServerTest, AppsKindsThroughBothClientsets) {
  api::apps::v1::ReplicaSet rs;
  rs.metadata.name = "web-1";
  rs.metadata.namespace_ = "default";
  rs.spec.replicas = 3;
  rs.spec.selector.emplace();
  rs.spec.selector->match_labels["app"] = "web";
  rs.spec.template_.metadata.labels["app"] = "web";
  rs.spec.template_.spec.containers.push_back({.name = "c", .image = "nginx:1.25"});
  auto created = rest_->ReplicaSets().Create(rs);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto seen = local().ReplicaSets().Get("default", "web-1");
  ASSERT_TRUE(seen.ok()) << seen.status().ToString();
  EXPECT_EQ((*seen)->metadata.uid, (*created)->metadata.uid);

  api::apps::v1::ReplicaSet with_status = **seen;
  with_status.status.replicas = 3;
  with_status.status.ready_replicas = 2;
  with_status.status.observed_generation = with_status.metadata.rest->generation;
  auto updated = local().ReplicaSets().UpdateStatus(with_status);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  auto listed = rest_->ReplicaSets().List("default");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->items.size(), 1u);
  EXPECT_EQ(listed->items[0]->status.ready_replicas, 2);

  api::apps::v1::Deployment d;
  d.metadata.name = "web";
  d.metadata.namespace_ = "default";
  d.spec.selector = rs.spec.selector;
  d.spec.template_ = rs.spec.template_;
  ASSERT_TRUE(local().Deployments().Create(d).ok());
  auto factory = client::informers::MakeInformerFactory(*rest_, {});
  auto& deployments = factory->Deployments();
  auto& replica_sets = factory->ReplicaSets();
  factory->Start();
  ASSERT_TRUE(factory->WaitForCacheSync(std::chrono::seconds(10)));
  auto d_cached = deployments.lister().Get("default", "web");
  ASSERT_TRUE(d_cached);
  EXPECT_EQ(d_cached->spec.replicas, 1);  // defaulted by the registry
  ASSERT_TRUE(replica_sets.lister().Get("default", "web-1"));
  factory->Shutdown();
}

}  // namespace
}  // namespace svcplane::apiserver::loopback
