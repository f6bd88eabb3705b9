// The whole Simulator in-process: the loopback Clientset over a MemoryStore (real registries:
// defaulting, validation, graceful Pod deletion) and client/informers' factory, as
// `svcplane serve --simulate-nodes` wires it. Timings are shortened; assertions wait for
// behaviour with generous bounds and never measure speed.

#include "sim/simulator.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

#include "apiserver/loopback/testing/memory_clientset.h"
#include "client/errors.h"
#include "client/informers/informer_factory.h"
#include "sim/node_factory.h"
#include "sim/node_lifecycle.h"

namespace svcplane::sim {
namespace {

namespace core = api::core::v1;
using std::chrono::milliseconds;

bool WaitFor(const std::function<bool()>& cond,
             std::chrono::seconds limit = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return cond();
}

class SimulatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    api_.CreateNamespace("default");
    opts_.nodes = 6;
    opts_.heartbeat_interval = milliseconds(200);
    opts_.node_monitor_grace = milliseconds(1500);
    opts_.node_monitor_period = milliseconds(100);
    opts_.pod_create_delay = milliseconds(25);
    opts_.pod_ready_delay = milliseconds(25);
    opts_.pod_terminate_delay = milliseconds(50);
    opts_.workers = 2;
    Tune(opts_);
    informers_ = client::informers::MakeInformerFactory(api_.clients(), {});
    sim_ = std::make_unique<Simulator>(api_.clients(), *informers_, opts_, RealClock::Get(),
                                       nullptr, Clients());
    informers_->Start();
    ASSERT_TRUE(sim_->Start().ok());
  }
  void TearDown() override {
    sim_->Shutdown();
    informers_->Shutdown();
    sim_.reset();
  }

  // Fixtures that need other timings or clients override these.
  virtual void Tune(SimOptions&) {}
  virtual SimClients Clients() { return {}; }

  void CreatePod(const std::string& name, const api::meta::StringMap& annotations = {}) {
    core::Pod p;
    p.metadata.namespace_ = "default";
    p.metadata.name = name;
    p.metadata.labels["app"] = "web";
    p.metadata.annotations = annotations;
    core::Container c;
    c.name = "c";
    c.image = "nginx";
    p.spec.containers.push_back(c);
    auto created = api_.clients().Pods().Create(p);
    ASSERT_TRUE(created.ok()) << name << ": " << created.status().ToString();
    created_uids_[p.metadata.name] = (*created)->metadata.uid;
  }
  void CreatePods(int n) {
    for (int i = 0; i < n; ++i) CreatePod("p" + std::to_string(i));
  }
  client::ObjectPtr<core::Pod> GetPod(const std::string& name) {
    auto got = api_.clients().Pods().Get("default", name);
    return got.ok() ? *got : nullptr;
  }
  std::vector<client::ObjectPtr<core::Pod>> Pods() {
    auto list = api_.clients().Pods().List("default");
    return list.ok() ? list->items : std::vector<client::ObjectPtr<core::Pod>>{};
  }
  std::map<std::string, client::ObjectPtr<core::Node>> Nodes() {
    std::map<std::string, client::ObjectPtr<core::Node>> out;
    auto list = api_.clients().Nodes().List("");
    if (list.ok()) {
      for (auto& n : list->items) out[n->metadata.name] = n;
    }
    return out;
  }
  int ReadyPods() {
    int n = 0;
    for (const auto& p : Pods()) n += IsPodReady(*p) ? 1 : 0;
    return n;
  }

  apiserver::loopback::testing::MemoryClientset api_;
  std::map<std::string, std::string> created_uids_;  // name -> uid the create returned
  SimOptions opts_;
  std::unique_ptr<client::informers::InformerFactory> informers_;
  std::unique_ptr<Simulator> sim_;
};

TEST_F(SimulatorTest, RegistersNodesWithLeasesAndRunsScheduledPods) {
  ASSERT_EQ(Nodes().size(), 6u);
  ASSERT_TRUE(WaitFor([&] {
    auto leases = api_.clients().Leases().List(kNodeLeaseNamespace);
    return leases.ok() && leases->items.size() == 6u;
  }));
  CreatePods(30);
  ASSERT_TRUE(WaitFor([&] { return ReadyPods() == 30; })) << ReadyPods();
  auto nodes = Nodes();
  std::set<std::string> ips;
  std::map<std::string, int> per_node;
  for (const auto& p : Pods()) {
    const core::Node& node = *nodes.at(p->spec.node_name);
    EXPECT_EQ(p->status.phase, "Running");
    auto cidr = Ipv4Cidr::Parse(node.spec.pod_cidr);
    ASSERT_TRUE(cidr.ok());
    EXPECT_TRUE(cidr->Contains(*ParseIpv4(p->status.pod_ip))) << p->status.pod_ip;
    EXPECT_EQ(p->status.rest->host_ip, node.status.addresses[0].address);
    ips.insert(p->status.pod_ip);
    ++per_node[p->spec.node_name];
  }
  EXPECT_EQ(ips.size(), 30u);
  ASSERT_EQ(per_node.size(), 6u);
  for (const auto& [name, n] : per_node) EXPECT_EQ(n, 5) << name;
  EXPECT_EQ(sim_->Stats().pods_bound, 30);
}

TEST_F(SimulatorTest, BindsThroughPodsBindingKeepingTheUid) {
  CreatePods(4);
  ASSERT_TRUE(WaitFor([&] { return ReadyPods() == 4; }));
  for (const auto& p : Pods()) {
    EXPECT_FALSE(p->spec.node_name.empty());
    EXPECT_EQ(p->metadata.uid, created_uids_.at(p->metadata.name))
        << "recreated: " << p->metadata.name;
  }
  EXPECT_EQ(sim_->Stats().pods_bound, 4);
}

// A Clientset that does not implement BindPod (as a server without the subresource): the
// default binder falls back to recreating the Pod.
class NoBindingClientset final : public client::Clientset {
 public:
  explicit NoBindingClientset(client::Clientset& inner) : inner_(inner) {}
  client::ResourceClient<core::Namespace>& Namespaces() override { return inner_.Namespaces(); }
  client::ResourceClient<core::Service>& Services() override { return inner_.Services(); }
  client::ResourceClient<core::Pod>& Pods() override { return inner_.Pods(); }
  client::ResourceClient<core::Node>& Nodes() override { return inner_.Nodes(); }
  client::ResourceClient<core::Endpoints>& Endpoints() override { return inner_.Endpoints(); }
  client::ResourceClient<core::Event>& Events() override { return inner_.Events(); }
  client::ResourceClient<api::discovery::v1::EndpointSlice>& EndpointSlices() override {
    return inner_.EndpointSlices();
  }
  client::ResourceClient<api::coordination::v1::Lease>& Leases() override {
    return inner_.Leases();
  }

 private:
  client::Clientset& inner_;
};

TEST(ClientBinderTest, BindsInPlaceOrFallsBackToRecreate) {
  apiserver::loopback::testing::MemoryClientset api;
  api.CreateNamespace("default");
  auto make_pod = [&](std::string name) {
    core::Pod p;
    p.metadata.namespace_ = "default";
    p.metadata.name = std::move(name);
    p.spec.containers.push_back({.name = "c", .image = "nginx"});
    auto created = api.clients().Pods().Create(p);
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    return *created;
  };

  ClientBinder in_place(api.clients());
  auto a = make_pod("a");
  ASSERT_TRUE(in_place.Bind(*a, "node-1").ok());
  auto got = api.clients().Pods().Get("default", "a");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)->spec.node_name, "node-1");
  EXPECT_EQ((*got)->metadata.uid, a->metadata.uid);
  EXPECT_FALSE(in_place.recreating());
  // A bound Pod is not bound again; a missing one is NotFound (not "no subresource").
  EXPECT_TRUE(client::IsConflict(in_place.Bind(*a, "node-2")));
  core::Pod ghost = *a;
  ghost.metadata.name = "ghost";
  EXPECT_TRUE(client::IsNotFound(in_place.Bind(ghost, "node-1")));
  EXPECT_FALSE(in_place.recreating());

  NoBindingClientset old_server(api.clients());
  ClientBinder fallback(old_server);
  auto b = make_pod("b");
  ASSERT_TRUE(fallback.Bind(*b, "node-3").ok());
  EXPECT_TRUE(fallback.recreating());
  got = api.clients().Pods().Get("default", "b");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)->spec.node_name, "node-3");
  EXPECT_NE((*got)->metadata.uid, b->metadata.uid);  // recreated
}

TEST_F(SimulatorTest, SilentZoneGoesUnknownAndItsPodsNotReadyThenRecovers) {
  CreatePods(12);
  ASSERT_TRUE(WaitFor([&] { return ReadyPods() == 12; }));
  sim_->StopHeartbeats("zone-a");
  auto zone_a = [&](const std::string& node) {
    return Nodes().at(node)->metadata.labels.at(std::string(kZoneLabel)) == "zone-a";
  };
  ASSERT_TRUE(WaitFor([&] {
    for (const auto& p : Pods()) {
      if (zone_a(p->spec.node_name) == IsPodReady(*p)) return false;
    }
    return true;
  }));
  for (const auto& [name, node] : Nodes()) {
    EXPECT_EQ(NodeIsReady(*node), !zone_a(name)) << name;
  }
  // The counter moves after the status write returns, so a reader can see the write first
  // (ASan under load did).
  EXPECT_TRUE(WaitFor([&] { return sim_->Stats().nodes_marked_unknown >= 2; }))
      << sim_->Stats().nodes_marked_unknown;
  sim_->ResumeHeartbeats("zone-a");
  ASSERT_TRUE(WaitFor([&] { return ReadyPods() == 12; }));
  for (const auto& [name, node] : Nodes()) EXPECT_TRUE(NodeIsReady(*node)) << name;
}

TEST_F(SimulatorTest, DeletedPodIsTerminatedThenRemoved) {
  CreatePods(2);
  ASSERT_TRUE(WaitFor([&] { return ReadyPods() == 2; }));
  ASSERT_TRUE(api_.clients().Pods().Delete("default", "p0").ok());  // graceful: 30 s
  ASSERT_TRUE(WaitFor([&] { return Pods().size() == 1u; }));
  EXPECT_EQ(Pods()[0]->metadata.name, "p1");
  EXPECT_EQ(sim_->Stats().pods_deleted, 1);
}

TEST_F(SimulatorTest, UnscheduledPodIsDeletedAtOnce) {
  // The API server, not the kubelet stand-in: a Pod on no node has no containers to stop, so a
  // graceful delete removes it immediately (workloads spec §5.4).
  core::Pod p;
  p.metadata.namespace_ = "default";
  p.metadata.name = "elsewhere";
  p.spec.rest->scheduler_name = "another-scheduler";  // never bound by ours
  p.spec.containers.push_back({.name = "c", .image = "nginx"});
  ASSERT_TRUE(api_.clients().Pods().Create(p).ok());
  ASSERT_TRUE(api_.clients().Pods().Delete("default", "elsewhere").ok());  // default grace: 30 s
  EXPECT_TRUE(client::IsNotFound(api_.clients().Pods().Get("default", "elsewhere").status()));
}

// Passes everything on to a real client; remembers the Pod deletes.
class RecordingPods final : public client::ResourceClient<core::Pod> {
 public:
  struct Deleted {
    std::string name;
    client::DeleteOptions options;
    std::chrono::steady_clock::time_point at;
  };
  explicit RecordingPods(client::ResourceClient<core::Pod>& inner) : inner_(inner) {}

  Result<client::ObjectPtr<core::Pod>> Get(std::string_view ns, std::string_view name,
                                           const client::GetOptions& o) override {
    return inner_.Get(ns, name, o);
  }
  Result<client::ObjectList<core::Pod>> List(std::string_view ns,
                                             const client::ListOptions& o) override {
    return inner_.List(ns, o);
  }
  Status Watch(std::string_view ns, const client::ListOptions& o,
               const client::WatchEventHandler<core::Pod>& h, client::CancelToken& c) override {
    return inner_.Watch(ns, o, h, c);
  }
  Result<client::ObjectPtr<core::Pod>> Create(const core::Pod& p,
                                              const client::WriteOptions& o) override {
    return inner_.Create(p, o);
  }
  Result<client::ObjectPtr<core::Pod>> Update(const core::Pod& p,
                                              const client::WriteOptions& o) override {
    return inner_.Update(p, o);
  }
  Result<client::ObjectPtr<core::Pod>> UpdateStatus(const core::Pod& p,
                                                    const client::WriteOptions& o) override {
    return inner_.UpdateStatus(p, o);
  }
  Result<client::ObjectPtr<core::Pod>> Patch(std::string_view ns, std::string_view name,
                                             client::PatchType t, std::string_view body,
                                             const client::WriteOptions& o,
                                             std::string_view sub) override {
    return inner_.Patch(ns, name, t, body, o, sub);
  }
  Status Delete(std::string_view ns, std::string_view name,
                const client::DeleteOptions& o) override {
    {
      std::lock_guard<std::mutex> l(mu_);
      deletes_.push_back({std::string(name), o, std::chrono::steady_clock::now()});
    }
    return inner_.Delete(ns, name, o);
  }
  std::vector<Deleted> deletes() {
    std::lock_guard<std::mutex> l(mu_);
    return deletes_;
  }

 private:
  client::ResourceClient<core::Pod>& inner_;
  std::mutex mu_;
  std::vector<Deleted> deletes_;
};

// The kubelets' client in these tests: the real API, Pod deletes recorded.
class RecordingKubelet final : public client::Clientset {
 public:
  explicit RecordingKubelet(client::Clientset& inner) : inner_(inner), pods_(inner.Pods()) {}
  client::ResourceClient<core::Namespace>& Namespaces() override { return inner_.Namespaces(); }
  client::ResourceClient<core::Service>& Services() override { return inner_.Services(); }
  client::ResourceClient<core::Pod>& Pods() override { return pods_; }
  client::ResourceClient<core::Node>& Nodes() override { return inner_.Nodes(); }
  client::ResourceClient<core::Endpoints>& Endpoints() override { return inner_.Endpoints(); }
  client::ResourceClient<core::Event>& Events() override { return inner_.Events(); }
  client::ResourceClient<api::discovery::v1::EndpointSlice>& EndpointSlices() override {
    return inner_.EndpointSlices();
  }
  client::ResourceClient<api::coordination::v1::Lease>& Leases() override {
    return inner_.Leases();
  }
  RecordingPods& pods() { return pods_; }

 private:
  client::Clientset& inner_;
  RecordingPods pods_;
};

// Delays long enough to see each stage of the kubelet stand-in.
class KubeletStagesTest : public SimulatorTest {
 protected:
  void Tune(SimOptions& o) override {
    o.pod_create_delay = milliseconds(300);
    o.pod_ready_delay = milliseconds(600);
    o.pod_terminate_delay = milliseconds(800);
  }
  SimClients Clients() override {
    return {.kubelet = [this](const std::string&) -> client::Clientset& { return kubelet_; }};
  }

  // Where a Pod is, as a test sees it.
  static std::string Stage(const client::ObjectPtr<core::Pod>& p) {
    if (p == nullptr) return "gone";
    if (p->spec.node_name.empty()) return "unbound";
    if (p->status.pod_ip.empty()) return "bound";
    const bool creating =
        p->status.rest->container_statuses.size() == 1 &&
        p->status.rest->container_statuses[0].text.find(
            "\"waiting\":{\"reason\":\"ContainerCreating\"}") != std::string::npos;
    if (p->status.phase == "Pending" && creating && !IsPodReady(*p)) return "creating";
    if (p->status.phase == "Running") return IsPodReady(*p) ? "ready" : "running-not-ready";
    return "other(" + p->status.phase + ")";
  }
  // The stages `name` goes through until `last` (or the time limit), each listed once.
  std::vector<std::string> StagesUntil(const std::string& name, const std::string& last,
                                       std::chrono::seconds limit = std::chrono::seconds(20)) {
    std::vector<std::string> seen;
    WaitFor(
        [&] {
          std::string stage = Stage(GetPod(name));
          if (seen.empty() || seen.back() != stage) seen.push_back(stage);
          return stage == last;
        },
        limit);
    return seen;
  }

  RecordingKubelet kubelet_{api_.clients()};
};

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : " ") + s;
  return out;
}

TEST_F(KubeletStagesTest, BoundPodShowsContainerCreatingThenRunsAndIsReady) {
  const auto t0 = std::chrono::steady_clock::now();
  CreatePod("p0");
  std::vector<std::string> seen = StagesUntil("p0", "ready");
  const auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_FALSE(seen.empty());
  ASSERT_EQ(seen.back(), "ready") << Join(seen);
  ASSERT_GE(seen.size(), 2u) << Join(seen);
  // Pending (containers being created) for the readiness delay, then Running and Ready; never
  // Running without being Ready, nor anything else.
  EXPECT_EQ(seen[seen.size() - 2], "creating") << Join(seen);
  for (const std::string& s : seen) {
    EXPECT_TRUE(s == "unbound" || s == "bound" || s == "creating" || s == "ready") << Join(seen);
  }
  EXPECT_GE(took, milliseconds(900));  // create + ready delays (a lower bound only)

  auto p = GetPod("p0");
  ASSERT_TRUE(p != nullptr);
  const core::PodCondition* ready = FindCondition(*p, "Ready");
  ASSERT_TRUE(ready != nullptr);
  ASSERT_TRUE(p->status.rest->start_time.has_value());
  EXPECT_GE(ready->last_transition_time.unix_seconds, p->status.rest->start_time->unix_seconds);
  const std::string& cs = p->status.rest->container_statuses.at(0).text;
  EXPECT_NE(cs.find("\"ready\":true"), std::string::npos) << cs;
  EXPECT_NE(cs.find("\"running\":{\"startedAt\""), std::string::npos) << cs;
  EXPECT_EQ(sim_->Stats().invalid_annotations, 0);
}

TEST_F(KubeletStagesTest, ReadyAfterAnnotationDelaysOrPreventsReadiness) {
  const auto t0 = std::chrono::steady_clock::now();
  CreatePod("stuck", {{kReadyAfterAnnotation, "never"}});
  CreatePod("slow", {{kReadyAfterAnnotation, "2500ms"}});
  CreatePod("typo", {{kReadyAfterAnnotation, "2 seconds"}});
  // The invalid value is ignored (default delay) and counted (and logged once).
  ASSERT_TRUE(WaitFor([&] { return Stage(GetPod("typo")) == "ready"; }));
  EXPECT_EQ(sim_->Stats().invalid_annotations, 1);
  // 300 ms + 2.5 s at the earliest.
  if (std::chrono::steady_clock::now() - t0 < milliseconds(2500)) {
    EXPECT_EQ(Stage(GetPod("slow")), "creating");
  }
  ASSERT_TRUE(WaitFor([&] { return Stage(GetPod("slow")) == "ready"; }));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, milliseconds(2800));
  // `never`: its containers run after the usual delay but it never turns Ready.
  ASSERT_TRUE(WaitFor([&] { return Stage(GetPod("stuck")) == "running-not-ready"; }));
  std::this_thread::sleep_for(milliseconds(1200));
  auto stuck = GetPod("stuck");
  EXPECT_EQ(Stage(stuck), "running-not-ready");
  const core::PodCondition* cr = FindCondition(*stuck, "ContainersReady");
  ASSERT_TRUE(cr != nullptr);
  EXPECT_EQ(cr->status, "False");
  EXPECT_EQ(cr->rest->reason, "ContainersNotReady");
  EXPECT_EQ(sim_->Stats().invalid_annotations, 1);
}

TEST_F(KubeletStagesTest, TerminatingPodStaysReadyThenIsDeletedWithItsUid) {
  CreatePod("p0");
  ASSERT_TRUE(WaitFor([&] { return Stage(GetPod("p0")) == "ready"; }));
  const std::string uid = created_uids_.at("p0");
  const std::string node = GetPod("p0")->spec.node_name;
  const auto t_del = std::chrono::steady_clock::now();
  ASSERT_TRUE(api_.clients().Pods().Delete("default", "p0").ok());  // graceful: 30 s
  int terminating_ready = 0;
  std::vector<std::string> wrong;
  ASSERT_TRUE(WaitFor([&] {
    auto p = GetPod("p0");
    if (p == nullptr) return true;
    if (!p->metadata.deletion_timestamp) {
      wrong.push_back("no deletionTimestamp");
    } else if (p->status.phase == "Running" && IsPodReady(*p)) {
      ++terminating_ready;
    } else {
      wrong.push_back(Stage(p));
    }
    return false;
  }));
  EXPECT_TRUE(wrong.empty()) << Join(wrong);
  EXPECT_GT(terminating_ready, 0);

  auto deletes = kubelet_.pods().deletes();
  ASSERT_EQ(deletes.size(), 1u);
  EXPECT_EQ(deletes[0].name, "p0");
  EXPECT_EQ(deletes[0].options.grace_period_seconds, std::optional<int64_t>(0));
  EXPECT_EQ(deletes[0].options.precondition_uid, uid);
  EXPECT_GE(deletes[0].at - t_del, milliseconds(750));  // after the termination delay
  EXPECT_EQ(sim_->Stats().pods_deleted, 1);

  // kubelet's event for each container it stops.
  client::ObjectPtr<core::Event> killing;
  ASSERT_TRUE(WaitFor([&] {
    auto events = api_.clients().Events().List("default");
    if (!events.ok()) return false;
    for (const auto& e : events->items) {
      if (e->reason == "Killing") killing = e;
    }
    return killing != nullptr;
  }));
  EXPECT_EQ(killing->type, "Normal");
  EXPECT_EQ(killing->message, "Stopping container c");
  EXPECT_EQ(killing->source.component, "kubelet");
  EXPECT_EQ(killing->source.host, node);
  EXPECT_EQ(killing->reporting_component, "kubelet");
  EXPECT_EQ(killing->reporting_instance, node);
  EXPECT_EQ(killing->involved_object.kind, "Pod");
  EXPECT_EQ(killing->involved_object.name, "p0");
  EXPECT_EQ(killing->involved_object.uid, uid);
  EXPECT_EQ(killing->involved_object.field_path, "spec.containers{c}");
  EXPECT_EQ(sim_->Stats().killing_events, 1);
}

// A termination delay longer than the grace period the delete asked for.
class LongTerminateTest : public KubeletStagesTest {
 protected:
  void Tune(SimOptions& o) override {
    o.pod_create_delay = milliseconds(25);
    o.pod_ready_delay = milliseconds(25);
    o.pod_terminate_delay = std::chrono::seconds(60);
  }
};

TEST_F(LongTerminateTest, DeletesWhenTheGracePeriodEndsNotAfter) {
  CreatePod("p0");
  ASSERT_TRUE(WaitFor([&] { return Stage(GetPod("p0")) == "ready"; }));
  client::DeleteOptions del;
  del.grace_period_seconds = 2;
  const auto t_del = std::chrono::steady_clock::now();
  ASSERT_TRUE(api_.clients().Pods().Delete("default", "p0", del).ok());
  auto p = GetPod("p0");
  ASSERT_TRUE(p != nullptr && p->metadata.deletion_timestamp.has_value());
  // deletionTimestamp has whole seconds: between 1 and 2 s of grace are left.
  ASSERT_TRUE(WaitFor([&] { return GetPod("p0") == nullptr; }, std::chrono::seconds(10)));
  auto deletes = kubelet_.pods().deletes();
  ASSERT_EQ(deletes.size(), 1u);
  EXPECT_EQ(deletes[0].options.grace_period_seconds, std::optional<int64_t>(0));
  EXPECT_EQ(deletes[0].options.precondition_uid, created_uids_.at("p0"));
  EXPECT_LT(deletes[0].at - t_del, std::chrono::seconds(8));  // far from the 60 s configured
}

}  // namespace
}  // namespace svcplane::sim
