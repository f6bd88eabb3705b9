#include "apiserver/allocator/repair.h"

#include <gtest/gtest.h>

#include <atomic>

#include "storage/memory/memory_store.h"

namespace svcplane::apiserver::allocator {
namespace {

using api::core::v1::Service;

struct Recorded {
  std::string service, component, reason, message;
};

class RepairTest : public ::testing::Test {
 protected:
  RepairTest()
      : ips_(&store_, *CidrRange::Parse("10.0.0.0/24"), std::string(kServiceIpsKey)),
        ports_(&store_, *PortRange::Parse("30000-32767")) {}

  ListServicesFn List() {
    return [this]() -> Result<std::vector<Service>> { return services_; };
  }
  EventSinkFn Sink() {
    return [this](const Service& s, std::string_view c, std::string_view r, const std::string& m) {
      events_.push_back({s.metadata.name, std::string(c), std::string(r), m});
    };
  }
  void AddService(std::string name, std::string ip, std::vector<int> node_ports = {},
                  std::string protocol = "TCP") {
    Service s;
    s.metadata.name = std::move(name);
    s.metadata.namespace_ = "default";
    s.spec.cluster_ip = ip;
    s.spec.cluster_ips = {ip};
    for (int np : node_ports) {
      s.spec.ports.push_back({.protocol = protocol, .port = 80, .node_port = np});
    }
    services_.push_back(std::move(s));
  }
  bool IpTaken(const std::string& ip) {
    return ips_.stored().Read()->map.Has(*ips_.cidr().OffsetOf(*ParseIp(ip)));
  }
  bool PortTaken(int port) { return ports_.stored().Read()->map.Has(port - 30000); }

  storage::memory::MemoryStore store_;
  IpAllocator ips_;
  PortAllocator ports_;
  std::vector<Service> services_;
  std::vector<Recorded> events_;
};

// Scenario 18: a Service IP missing from the snapshot is added back, with an Event.
TEST_F(RepairTest, MissingIpIsRepairedWithEvent) {
  AddService("web", "10.0.0.5");
  ClusterIpRepair repair({&ips_}, List(), Sink());
  ASSERT_TRUE(repair.RunOnce().ok());
  EXPECT_TRUE(IpTaken("10.0.0.5"));
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_EQ(events_[0].service, "web");
  EXPECT_EQ(events_[0].component, "ipallocator-repair-controller");
  EXPECT_EQ(events_[0].reason, "ClusterIPNotAllocated");
  EXPECT_EQ(events_[0].message, "Cluster IP 10.0.0.5 is not allocated; repairing");
  // A second run finds everything in order: no more events.
  ASSERT_TRUE(repair.RunOnce().ok());
  EXPECT_EQ(events_.size(), 1u);
}

// Scenario 19 and 21: duplicates and out-of-range addresses are reported, not allocated.
TEST_F(RepairTest, DuplicateAndOutOfRangeAreReported) {
  ASSERT_EQ(*ips_.Allocate("10.0.0.5"), AllocError::kNone);
  AddService("a", "10.0.0.5");
  AddService("b", "10.0.0.5");
  AddService("c", "192.168.0.1");
  AddService("d", "not-an-ip");
  ClusterIpRepair repair({&ips_}, List(), Sink());
  ASSERT_TRUE(repair.RunOnce().ok());
  ASSERT_EQ(events_.size(), 3u);
  EXPECT_EQ(events_[0].service, "b");
  EXPECT_EQ(events_[0].reason, "ClusterIPAlreadyAllocated");
  EXPECT_EQ(events_[0].message,
            "Cluster IP 10.0.0.5 was assigned to multiple services; please recreate service");
  EXPECT_EQ(events_[1].reason, "ClusterIPOutOfRange");
  EXPECT_EQ(events_[1].message,
            "Cluster IP 192.168.0.1 is not within the service CIDR 10.0.0.0/24; please recreate "
            "service");
  EXPECT_EQ(events_[2].reason, "ClusterIPNotValid");
  EXPECT_EQ(events_[2].message, "Cluster IP not-an-ip is not a valid IP; please recreate service");
  EXPECT_EQ(ips_.stored().Read()->map.Count(), 1u);
}

// Scenario 20: a leaked IP survives runs 1 and 2 and is freed by run 3.
TEST_F(RepairTest, LeakFreedOnThirdRun) {
  ASSERT_EQ(*ips_.Allocate("10.0.0.9"), AllocError::kNone);
  ClusterIpRepair repair({&ips_}, List(), Sink());
  ASSERT_TRUE(repair.RunOnce().ok());
  EXPECT_TRUE(IpTaken("10.0.0.9"));
  ASSERT_TRUE(repair.RunOnce().ok());
  EXPECT_TRUE(IpTaken("10.0.0.9"));
  ASSERT_TRUE(repair.RunOnce().ok());
  EXPECT_FALSE(IpTaken("10.0.0.9"));
  EXPECT_TRUE(events_.empty());
}

// A Service that shows up again before the grace ends clears its leak counter.
TEST_F(RepairTest, UsedEntryClearsLeakCounter) {
  ASSERT_EQ(*ips_.Allocate("10.0.0.9"), AllocError::kNone);
  ClusterIpRepair repair({&ips_}, List(), Sink());
  ASSERT_TRUE(repair.RunOnce().ok());
  ASSERT_TRUE(repair.RunOnce().ok());
  AddService("late", "10.0.0.9");
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(repair.RunOnce().ok());
  EXPECT_TRUE(IpTaken("10.0.0.9"));
}

// An allocation between the snapshot read and the write makes the run start over, so the
// repair never erases a fresh allocation.
TEST_F(RepairTest, ConcurrentAllocationIsNotLost) {
  std::atomic<int> lists{0};
  std::string fresh;
  ListServicesFn racing = [&]() -> Result<std::vector<Service>> {
    if (lists++ == 0) fresh = **ips_.AllocateNext();  // lands after the snapshot was read
    return services_;
  };
  ClusterIpRepair repair({&ips_}, racing, Sink());
  ASSERT_TRUE(repair.RunOnce().ok());
  EXPECT_GE(lists.load(), 2);
  EXPECT_TRUE(IpTaken(fresh));  // kept as a possible leak (grace), not dropped
}

TEST_F(RepairTest, MismatchedStoredRangeIsRewritten) {
  IpAllocator old_range(&store_, *CidrRange::Parse("10.1.0.0/24"), std::string(kServiceIpsKey));
  ASSERT_EQ(*old_range.Allocate("10.1.0.7"), AllocError::kNone);
  EXPECT_FALSE(ips_.Allocate("10.0.0.7").ok());
  AddService("web", "10.0.0.5");
  ClusterIpRepair repair({&ips_}, List(), Sink());
  ASSERT_TRUE(repair.RunOnce().ok());
  EXPECT_EQ(ips_.stored().Read()->range, "10.0.0.0/24");
  EXPECT_TRUE(IpTaken("10.0.0.5"));
  EXPECT_EQ(*ips_.Allocate("10.0.0.7"), AllocError::kNone);
}

// Scenario 17: TCP+UDP on one node port counts once; two TCP ports on it are a duplicate.
TEST_F(RepairTest, NodePortsCountedPerProtocol) {
  Service s;
  s.metadata.name = "dns";
  s.spec.ports = {{.name = "a", .protocol = "TCP", .port = 53, .node_port = 30053},
                  {.name = "b", .protocol = "UDP", .port = 53, .node_port = 30053}};
  services_.push_back(s);
  Service dup;
  dup.metadata.name = "dup";
  dup.spec.ports = {{.name = "a", .protocol = "TCP", .port = 80, .node_port = 30080},
                    {.name = "b", .protocol = "TCP", .port = 81, .node_port = 30080}};
  services_.push_back(dup);
  AddService("out", "10.0.0.3", {80});
  NodePortRepair repair(&ports_, List(), Sink());
  ASSERT_TRUE(repair.RunOnce().ok());
  EXPECT_TRUE(PortTaken(30053));
  EXPECT_TRUE(PortTaken(30080));
  std::vector<std::string> reasons;
  for (const auto& e : events_) reasons.push_back(e.service + ":" + e.reason);
  EXPECT_EQ(reasons, (std::vector<std::string>{"dns:PortNotAllocated", "dup:PortNotAllocated",
                                               "dup:PortAlreadyAllocated", "out:PortOutOfRange"}));
  EXPECT_EQ(events_[0].message, "Port 30053 is not allocated; repairing");
  EXPECT_EQ(events_[0].component, "portallocator-repair-controller");
  EXPECT_EQ(events_[2].message,
            "Port 30080 was assigned to multiple services; please recreate "
            "service");
  EXPECT_EQ(events_[3].message,
            "Port 80 is not within the port range 30000-32767; please recreate service");
}

TEST_F(RepairTest, NodePortLeakFreedOnThirdRun) {
  ASSERT_EQ(*ports_.Allocate(31000), AllocError::kNone);
  NodePortRepair repair(&ports_, List(), Sink());
  for (int run = 1; run <= 3; ++run) {
    ASSERT_TRUE(repair.RunOnce().ok());
    EXPECT_EQ(PortTaken(31000), run < 3) << "run " << run;
  }
}

TEST(RepairLoopTest, RunsOnTheClockAndOnDemand) {
  FakeClock clock;
  std::atomic<int> passes{0};
  {
    RepairLoop loop(clock, std::chrono::minutes(3), [&] {
      ++passes;
      return Status::Ok();
    });
    ASSERT_TRUE(loop.RunNow().ok());
    EXPECT_EQ(passes.load(), 1);
    loop.Start();
    clock.BlockUntilWaiters(1);
    clock.Advance(std::chrono::minutes(3));
    while (passes.load() < 2) std::this_thread::yield();
    clock.BlockUntilWaiters(1);
    EXPECT_EQ(passes.load(), 2);
  }  // destruction stops the loop without another pass
  EXPECT_EQ(passes.load(), 2);
}

}  // namespace
}  // namespace svcplane::apiserver::allocator
