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
    opts_.pod_ready_delay = milliseconds(50);
    opts_.pod_terminate_delay = milliseconds(50);
    opts_.workers = 2;
    informers_ = client::informers::MakeInformerFactory(api_.clients(), {});
    sim_ = std::make_unique<Simulator>(api_.clients(), *informers_, opts_);
    informers_->Start();
    ASSERT_TRUE(sim_->Start().ok());
  }
  void TearDown() override {
    sim_->Shutdown();
    informers_->Shutdown();
    sim_.reset();
  }

  void CreatePods(int n) {
    for (int i = 0; i < n; ++i) {
      core::Pod p;
      p.metadata.namespace_ = "default";
      p.metadata.name = "p" + std::to_string(i);
      p.metadata.labels["app"] = "web";
      core::Container c;
      c.name = "c";
      c.image = "nginx";
      p.spec.containers.push_back(c);
      auto created = api_.clients().Pods().Create(p);
      ASSERT_TRUE(created.ok()) << i;
      created_uids_[p.metadata.name] = (*created)->metadata.uid;
    }
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

}  // namespace
}  // namespace svcplane::sim
