#include "apiserver/allocator/service_allocator.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "apiserver/registry/registry.h"
#include "storage/memory/memory_store.h"

namespace svcplane::apiserver::allocator {
namespace {

using api::core::v1::Service;
using registry::Registry;

class ServiceAllocatorTest : public ::testing::Test {
 protected:
  void SetUpWith(std::vector<std::string> cidrs) {
    ServiceAllocatorOptions o;
    for (const auto& c : cidrs) o.cidrs.push_back(*CidrRange::Parse(c));
    o.node_ports = *PortRange::Parse("30000-32767");
    alloc_ = std::make_unique<ServiceAllocator>(&store_, o);
    registry::RegistryContext ctx;
    ctx.store = &store_;
    ctx.now_micros = [] { return int64_t{1714557600'000000}; };
    services_ = std::make_unique<Registry<Service>>(ctx);
    registry::WriteHooks<Service> hooks;
    hooks.begin_write = [this](Service& s, const Service* old, bool dry) {
      return alloc_->Begin(s, old, dry);
    };
    hooks.after_delete = [this](const Service& s) { alloc_->ReleaseAll(s); };
    services_->SetHooks(std::move(hooks));
  }
  void SetUp() override { SetUpWith({"10.96.0.0/12"}); }

  static Service Svc(std::string name, std::string type = "ClusterIP") {
    Service s;
    s.metadata.name = std::move(name);
    s.spec.type = std::move(type);
    s.spec.selector["app"] = "web";
    s.spec.ports.push_back({.name = "http", .port = 80});
    return s;
  }

  Result<registry::Object<Service>> Create(Service s) {
    return services_->Create("default", std::move(s), {});
  }
  bool IpTaken(const std::string& ip) {
    auto off = alloc_->primary().cidr().OffsetOf(*ParseIp(ip));
    return off && alloc_->primary().stored().Read()->map.Has(*off);
  }
  bool PortTaken(int port) { return alloc_->node_ports().stored().Read()->map.Has(port - 30000); }
  size_t IpsInUse() { return alloc_->primary().stored().Read()->map.Count(); }
  size_t PortsInUse() { return alloc_->node_ports().stored().Read()->map.Count(); }

  storage::memory::MemoryStore store_;
  std::unique_ptr<ServiceAllocator> alloc_;
  std::unique_ptr<Registry<Service>> services_;
};

TEST_F(ServiceAllocatorTest, DynamicClusterIpFromUpperBandWithFamilyDefaults) {
  auto s = Create(Svc("web"));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const auto& spec = s->obj->spec;
  auto off = alloc_->primary().cidr().OffsetOf(*ParseIp(spec.cluster_ip));
  ASSERT_TRUE(off);
  EXPECT_GE(*off, 256u);
  EXPECT_EQ(spec.cluster_ips, std::vector<std::string>{spec.cluster_ip});
  EXPECT_EQ(spec.ip_families, std::vector<std::string>{"IPv4"});
  EXPECT_EQ(spec.ip_family_policy, "SingleStack");
  EXPECT_TRUE(IpTaken(spec.cluster_ip));
}

TEST_F(ServiceAllocatorTest, ExplicitIpHonouredThenRejectedWithUpstreamText) {
  Service a = Svc("a");
  a.spec.cluster_ip = "10.96.0.10";
  ASSERT_TRUE(Create(a).ok());
  Service b = Svc("b");
  b.spec.cluster_ip = "10.96.0.10";
  auto r = Create(b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalid);
  EXPECT_EQ(r.status().message(),
            "Service \"b\" is invalid: spec.clusterIPs: Invalid value: []string{\"10.96.0.10\"}: "
            "failed to allocate IP 10.96.0.10: provided IP is already allocated");
  Service c = Svc("c");
  c.spec.cluster_ip = "192.168.1.1";
  r = Create(c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "Service \"c\" is invalid: spec.clusterIPs: Invalid value: []string{\"192.168.1.1\"}: "
            "failed to allocate IP 192.168.1.1: provided IP is not in the valid range. The range "
            "of valid IPs is 10.96.0.0/12");
  EXPECT_EQ(IpsInUse(), 1u);
}

TEST_F(ServiceAllocatorTest, HeadlessGetsNoIp) {
  Service s = Svc("h");
  s.spec.cluster_ip = "None";
  auto r = Create(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->obj->spec.cluster_ips, std::vector<std::string>{"None"});
  EXPECT_EQ(r->obj->spec.ip_families, std::vector<std::string>{"IPv4"});
  EXPECT_EQ(IpsInUse(), 0u);
}

TEST_F(ServiceAllocatorTest, ExternalNameGetsNothing) {
  Service s = Svc("x", "ExternalName");
  s.spec.selector.clear();
  s.spec.external_name = "example.com";
  auto r = Create(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->obj->spec.cluster_ip.empty());
  EXPECT_FALSE(r->obj->spec.ip_family_policy);
  EXPECT_EQ(IpsInUse(), 0u);
}

TEST_F(ServiceAllocatorTest, NodePortsAllocatedAndExplicitConflictRejected) {
  Service a = Svc("a", "NodePort");
  a.spec.ports[0].node_port = 30080;
  a.spec.ports.push_back({.name = "dns", .protocol = "UDP", .port = 53});
  a.spec.ports.push_back({.name = "dns-tcp", .protocol = "TCP", .port = 53});
  auto r = Create(a);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& ports = r->obj->spec.ports;
  EXPECT_EQ(ports[0].node_port, 30080);
  EXPECT_GE(ports[1].node_port, 30086);
  EXPECT_EQ(ports[2].node_port, ports[1].node_port);  // one node port per service port
  EXPECT_EQ(PortsInUse(), 2u);

  Service b = Svc("b", "NodePort");
  b.spec.ports[0].node_port = 30080;
  auto r2 = Create(b);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.status().message(),
            "Service \"b\" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided "
            "port is already allocated");
  // All or nothing: the cluster IP b took before the port failed is back.
  EXPECT_EQ(IpsInUse(), 1u);
  Service c = Svc("c", "NodePort");
  c.spec.ports[0].node_port = 80;
  EXPECT_EQ(Create(c).status().message(),
            "Service \"c\" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port "
            "is not in the valid range. The range of valid ports is 30000-32767");
}

TEST_F(ServiceAllocatorTest, FailedValidationReleasesEverything) {
  Service s = Svc("bad", "NodePort");
  s.spec.cluster_ip = "10.96.0.20";
  s.spec.ports[0].node_port = 30001;
  s.spec.ports[0].target_port = api::meta::IntOrString::FromInt(70000);  // invalid
  auto r = Create(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalid);
  EXPECT_FALSE(IpTaken("10.96.0.20"));
  EXPECT_FALSE(PortTaken(30001));
}

TEST_F(ServiceAllocatorTest, DryRunAllocatesNothing) {
  Service s = Svc("d", "NodePort");
  auto r = services_->Create("default", s, {.dry_run = true});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->obj->spec.cluster_ip.empty());
  EXPECT_NE(r->obj->spec.ports[0].node_port, 0);
  EXPECT_EQ(IpsInUse(), 0u);
  EXPECT_EQ(PortsInUse(), 0u);
}

TEST_F(ServiceAllocatorTest, DeleteReleases) {
  Service s = Svc("lb", "LoadBalancer");
  s.spec.external_traffic_policy = "Local";
  auto r = Create(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE(r->obj->spec.health_check_node_port, 0);
  EXPECT_EQ(PortsInUse(), 2u);
  EXPECT_EQ(IpsInUse(), 1u);
  ASSERT_TRUE(services_->Delete("default", "lb", {}).ok());
  EXPECT_EQ(PortsInUse(), 0u);
  EXPECT_EQ(IpsInUse(), 0u);
}

TEST_F(ServiceAllocatorTest, TypeChangesReleaseAndAllocate) {
  auto r = Create(Svc("t", "NodePort"));
  ASSERT_TRUE(r.ok());
  int np = r->obj->spec.ports[0].node_port;
  std::string ip = r->obj->spec.cluster_ip;
  // NodePort -> ClusterIP: the node port goes back.
  Service u = *r->obj;
  u.spec.type = "ClusterIP";
  u.spec.external_traffic_policy.clear();
  auto r2 = services_->Update("default", "t", registry::Subresource::kNone, u, {});
  ASSERT_TRUE(r2.ok()) << r2.status().ToString();
  EXPECT_EQ(r2->obj->spec.ports[0].node_port, 0);
  EXPECT_FALSE(PortTaken(np));
  EXPECT_EQ(r2->obj->spec.cluster_ip, ip);
  // ClusterIP -> ExternalName: the IP goes back.
  Service x = *r2->obj;
  x.spec.type = "ExternalName";
  x.spec.external_name = "example.com";
  x.spec.selector.clear();
  auto r3 = services_->Update("default", "t", registry::Subresource::kNone, x, {});
  ASSERT_TRUE(r3.ok()) << r3.status().ToString();
  EXPECT_FALSE(IpTaken(ip));
  // ExternalName -> NodePort: new IP and node port.
  Service n = *r3->obj;
  n.spec.type = "NodePort";
  n.spec.external_name.clear();
  auto r4 = services_->Update("default", "t", registry::Subresource::kNone, n, {});
  ASSERT_TRUE(r4.ok()) << r4.status().ToString();
  EXPECT_TRUE(IpTaken(r4->obj->spec.cluster_ip));
  EXPECT_TRUE(PortTaken(r4->obj->spec.ports[0].node_port));
  EXPECT_EQ(IpsInUse(), 1u);
  EXPECT_EQ(PortsInUse(), 1u);
}

TEST_F(ServiceAllocatorTest, FailedUpdateKeepsOldAllocations) {
  auto a = Create(Svc("a", "NodePort"));
  auto b = Create(Svc("b", "NodePort"));
  ASSERT_TRUE(a.ok() && b.ok());
  // b asks for a's node port: rejected, and b keeps its own.
  Service u = *b->obj;
  int own = u.spec.ports[0].node_port;
  u.spec.ports[0].node_port = a->obj->spec.ports[0].node_port;
  auto r = services_->Update("default", "b", registry::Subresource::kNone, u, {});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(PortTaken(own));
  EXPECT_EQ(PortsInUse(), 2u);
}

TEST_F(ServiceAllocatorTest, DualStackPreferDualStackGetsTwoFamilies) {
  SetUpWith({"10.96.0.0/12", "fd00:10:96::/112"});
  Service s = Svc("ds");
  s.spec.ip_family_policy = "PreferDualStack";
  auto r = Create(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->obj->spec.cluster_ips.size(), 2u);
  EXPECT_EQ(FamilyOf(r->obj->spec.cluster_ips[0]), "IPv4");
  EXPECT_EQ(FamilyOf(r->obj->spec.cluster_ips[1]), "IPv6");
  EXPECT_EQ(r->obj->spec.ip_families, (std::vector<std::string>{"IPv4", "IPv6"}));
  // Downgrade to SingleStack releases the IPv6 address.
  Service d = *r->obj;
  d.spec.ip_family_policy = "SingleStack";
  auto r2 = services_->Update("default", "ds", registry::Subresource::kNone, d, {});
  ASSERT_TRUE(r2.ok()) << r2.status().ToString();
  EXPECT_EQ(r2->obj->spec.cluster_ips.size(), 1u);
  EXPECT_EQ(alloc_->ForFamily("IPv6")->stored().Read()->map.Count(), 0u);
}

TEST_F(ServiceAllocatorTest, RequireDualStackOnSingleStackClusterIsRejected) {
  Service s = Svc("ds");
  s.spec.ip_family_policy = "RequireDualStack";
  auto r = Create(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "Service \"ds\" is invalid: spec.ipFamilyPolicy: Invalid value: \"RequireDualStack\": "
            "this cluster is not configured for dual-stack services");
  Service v6 = Svc("v6");
  v6.spec.ip_families = {"IPv6"};
  EXPECT_EQ(Create(v6).status().message(),
            "Service \"v6\" is invalid: spec.ipFamilies[0]: Invalid value: \"IPv6\": not "
            "configured on this cluster");
}

}  // namespace
}  // namespace svcplane::apiserver::allocator

namespace svcplane::apiserver::allocator {
namespace {

TEST_F(ServiceAllocatorTest, MalformedIpLeftToValidation) {
  Service s = Svc("bad");
  s.spec.cluster_ip = "10.96.0.300";
  auto r = Create(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalid);
  EXPECT_NE(r.status().message().find("spec.clusterIPs[0]: Invalid value: \"10.96.0.300\""),
            std::string::npos)
      << r.status().message();
  EXPECT_EQ(IpsInUse(), 0u);
}

// Two API servers (own allocator and registry each) on one store, creating concurrently.
TEST(MultiServerAllocationTest, NoDuplicatesAcrossServers) {
  storage::memory::MemoryStore store;
  ServiceAllocatorOptions o;
  o.cidrs = {*CidrRange::Parse("10.96.0.0/22")};
  o.node_ports = *PortRange::Parse("30000-30999");
  struct ServerState {
    std::unique_ptr<ServiceAllocator> alloc;
    std::unique_ptr<Registry<Service>> services;
  };
  std::vector<ServerState> servers(2);
  for (auto& srv : servers) {
    srv.alloc = std::make_unique<ServiceAllocator>(&store, o);
    registry::RegistryContext ctx;
    ctx.store = &store;
    ctx.now_micros = [] { return int64_t{1714557600'000000}; };
    srv.services = std::make_unique<Registry<Service>>(ctx);
    registry::WriteHooks<Service> hooks;
    auto* alloc = srv.alloc.get();
    hooks.begin_write = [alloc](Service& s, const Service* old, bool dry) {
      return alloc->Begin(s, old, dry);
    };
    srv.services->SetHooks(std::move(hooks));
  }
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 60; ++i) {
        Service s;
        s.metadata.name = "s-" + std::to_string(t) + "-" + std::to_string(i);
        s.spec.type = "NodePort";
        s.spec.selector["app"] = "x";
        s.spec.ports.push_back({.name = "http", .port = 80});
        if (!servers[t % 2].services->Create("default", std::move(s), {}).ok()) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  auto list = servers[0].services->List("default", {});
  ASSERT_TRUE(list.ok());
  std::set<std::string> ips;
  std::set<int> ports;
  for (const auto& o : list->items) {
    ips.insert(o.obj->spec.cluster_ip);
    ports.insert(o.obj->spec.ports[0].node_port);
  }
  EXPECT_EQ(list->items.size(), 360u);
  EXPECT_EQ(ips.size(), 360u);
  EXPECT_EQ(ports.size(), 360u);
  EXPECT_EQ(servers[1].alloc->primary().stored().Read()->map.Count(), 360u);
  EXPECT_EQ(servers[1].alloc->node_ports().stored().Read()->map.Count(), 360u);
}

}  // namespace
}  // namespace svcplane::apiserver::allocator
