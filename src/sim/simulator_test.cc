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
      ASSERT_TRUE(api_.clients().Pods().Create(p).ok()) << i;
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
    EXPECT_EQ(p->status.host_ip, node.status.addresses[0].address);
    ips.insert(p->status.pod_ip);
    ++per_node[p->spec.node_name];
  }
  EXPECT_EQ(ips.size(), 30u);
  ASSERT_EQ(per_node.size(), 6u);
  for (const auto& [name, n] : per_node) EXPECT_EQ(n, 5) << name;
  EXPECT_EQ(sim_->Stats().pods_bound, 30);
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
  EXPECT_GE(sim_->Stats().nodes_marked_unknown, 2);
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
