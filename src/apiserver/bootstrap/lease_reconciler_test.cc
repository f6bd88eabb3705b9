#include "apiserver/bootstrap/lease_reconciler.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "storage/memory/memory_store.h"

namespace svcplane::apiserver::bootstrap {
namespace {

using api::core::v1::Endpoints;
using api::discovery::v1::EndpointSlice;
using namespace std::chrono_literals;

// Several API servers, each with its own reconciler and registries, sharing one store and one
// fake clock.
class LeaseReconcilerTest : public ::testing::Test {
 protected:
  struct Server {
    std::unique_ptr<registry::Registry<Endpoints>> endpoints;
    std::unique_ptr<registry::Registry<EndpointSlice>> slices;
    std::unique_ptr<LeaseEndpointReconciler> reconciler;
    std::string ip;
  };

  registry::RegistryContext Ctx() {
    registry::RegistryContext ctx;
    ctx.store = &store_;
    ctx.now_micros = [this] {
      return std::chrono::duration_cast<std::chrono::microseconds>(
                 clock_.WallNow().time_since_epoch())
          .count();
    };
    return ctx;
  }
  Server& AddServer(std::string ip) {
    auto s = std::make_unique<Server>();
    s->endpoints = std::make_unique<registry::Registry<Endpoints>>(Ctx());
    s->slices = std::make_unique<registry::Registry<EndpointSlice>>(Ctx());
    s->reconciler = std::make_unique<LeaseEndpointReconciler>(&store_, s->endpoints.get(),
                                                              s->slices.get(), clock_);
    s->ip = std::move(ip);
    servers_.push_back(std::move(s));
    return *servers_.back();
  }
  Status Tick(Server& s, bool reconcile_ports = false) {
    return s.reconciler->ReconcileEndpoints(s.ip, port_, reconcile_ports);
  }
  std::vector<std::string> EndpointsIps() {
    auto ep = servers_[0]->endpoints->Get("default", "kubernetes");
    if (!ep.ok() || ep->obj->subsets.empty()) return {};
    std::vector<std::string> out;
    for (const auto& a : ep->obj->subsets[0].addresses) out.push_back(a.ip);
    return out;
  }
  std::vector<std::string> SliceIps() {
    auto sl = servers_[0]->slices->Get("default", "kubernetes");
    if (!sl.ok()) return {};
    std::vector<std::string> out;
    for (const auto& e : sl->obj->endpoints) {
      EXPECT_EQ(e.conditions.ready, true);
      out.push_back(e.addresses.at(0));
    }
    return out;
  }

  storage::memory::MemoryStore store_;
  FakeClock clock_;
  EndpointPortSpec port_{.name = "https", .port = 6443, .protocol = "TCP"};
  std::vector<std::unique_ptr<Server>> servers_;
};

// Scenario 4: two live leases -> both addresses, sorted, with upstream's labels.
TEST_F(LeaseReconcilerTest, ListsEveryLiveServer) {
  auto& b = AddServer("10.0.0.2");
  auto& a = AddServer("10.0.0.1");
  ASSERT_TRUE(Tick(b).ok());
  ASSERT_TRUE(Tick(a).ok());
  EXPECT_EQ(EndpointsIps(), (std::vector<std::string>{"10.0.0.1", "10.0.0.2"}));
  EXPECT_EQ(SliceIps(), (std::vector<std::string>{"10.0.0.1", "10.0.0.2"}));
  auto ep = *a.endpoints->Get("default", "kubernetes");
  EXPECT_EQ(ep.obj->metadata.labels,
            (api::meta::StringMap{{"endpointslice.kubernetes.io/skip-mirror", "true"}}));
  ASSERT_EQ(ep.obj->subsets.size(), 1u);
  ASSERT_EQ(ep.obj->subsets[0].ports.size(), 1u);
  EXPECT_EQ(ep.obj->subsets[0].ports[0].port, 6443);
  EXPECT_EQ(ep.obj->subsets[0].ports[0].name, "https");
  auto sl = *a.slices->Get("default", "kubernetes");
  EXPECT_EQ(sl.obj->metadata.labels,
            (api::meta::StringMap{{"kubernetes.io/service-name", "kubernetes"}}));
  EXPECT_EQ(sl.obj->address_type, "IPv4");
  ASSERT_TRUE(sl.obj->ports && sl.obj->ports->size() == 1);
  EXPECT_EQ((*sl.obj->ports)[0].port, 6443);
}

// A server that stops renewing drops out once its lease expires (TTL 15 s).
TEST_F(LeaseReconcilerTest, DeadServerDropsOutAfterTtl) {
  auto& a = AddServer("10.0.0.1");
  auto& b = AddServer("10.0.0.2");
  ASSERT_TRUE(Tick(a).ok());
  ASSERT_TRUE(Tick(b).ok());
  clock_.Advance(10s);
  ASSERT_TRUE(Tick(a).ok());  // b's lease has 5 s left
  EXPECT_EQ(EndpointsIps().size(), 2u);
  clock_.Advance(10s);
  ASSERT_TRUE(Tick(a).ok());  // b's lease expired 5 s ago
  EXPECT_EQ(EndpointsIps(), std::vector<std::string>{"10.0.0.1"});
  EXPECT_EQ(SliceIps(), std::vector<std::string>{"10.0.0.1"});
  EXPECT_EQ(store_.Get("/registry/masterleases/10.0.0.2").status().code(), Code::kNotFound);
  // b comes back.
  ASSERT_TRUE(Tick(b).ok());
  EXPECT_EQ(EndpointsIps().size(), 2u);
}

// Clean shutdown: a server removes its own address at once.
TEST_F(LeaseReconcilerTest, CleanShutdownRemovesOwnAddress) {
  auto& a = AddServer("10.0.0.1");
  auto& b = AddServer("10.0.0.2");
  ASSERT_TRUE(Tick(a).ok());
  ASSERT_TRUE(Tick(b).ok());
  b.reconciler->StopReconciling();
  ASSERT_TRUE(b.reconciler->RemoveEndpoints(b.ip, port_).ok());
  EXPECT_EQ(EndpointsIps(), std::vector<std::string>{"10.0.0.1"});
  ASSERT_TRUE(Tick(b).ok());  // a stopping server no longer reconciles
  EXPECT_EQ(EndpointsIps(), std::vector<std::string>{"10.0.0.1"});
  // The last server stopping leaves the lists empty.
  a.reconciler->StopReconciling();
  ASSERT_TRUE(a.reconciler->RemoveEndpoints(a.ip, port_).ok());
  EXPECT_TRUE(EndpointsIps().empty());
  EXPECT_TRUE(SliceIps().empty());
  EXPECT_EQ(a.reconciler->RemoveEndpoints(a.ip, port_).code(), Code::kNotFound);
}

// Scenario 5: nothing listed while not stopping -> refuse, endpoints untouched.
TEST_F(LeaseReconcilerTest, RefusesToEraseAllEndpoints) {
  auto& a = AddServer("10.0.0.1");
  ASSERT_TRUE(Tick(a).ok());
  Status st = a.reconciler->RemoveEndpoints(a.ip, port_);
  EXPECT_EQ(st.message(),
            "no API server IP addresses were listed in storage, refusing to erase all endpoints "
            "for the kubernetes Service");
  EXPECT_EQ(EndpointsIps(), std::vector<std::string>{"10.0.0.1"});
}

// Scenarios 6 and 7: subsets rewritten to exactly one; edited ports kept unless reconciling.
TEST_F(LeaseReconcilerTest, PortsKeptUnlessReconcilingAndSubsetsNormalised) {
  auto& a = AddServer("10.0.0.1");
  ASSERT_TRUE(Tick(a).ok());
  Endpoints ep = *a.endpoints->Get("default", "kubernetes")->obj;
  ep.subsets.push_back(ep.subsets[0]);
  ep.subsets[1].addresses = {{.ip = "10.9.9.9"}};
  ASSERT_TRUE(
      a.endpoints->Update("default", "kubernetes", registry::Subresource::kNone, ep, {}).ok());
  ASSERT_TRUE(Tick(a).ok());
  auto got = *a.endpoints->Get("default", "kubernetes");
  ASSERT_EQ(got.obj->subsets.size(), 1u);  // re-made from scratch, as upstream
  EXPECT_EQ(EndpointsIps(), std::vector<std::string>{"10.0.0.1"});
  ep = *got.obj;
  ep.subsets[0].ports[0].port = 443;
  ASSERT_TRUE(
      a.endpoints->Update("default", "kubernetes", registry::Subresource::kNone, ep, {}).ok());
  ASSERT_TRUE(Tick(a).ok());
  got = *a.endpoints->Get("default", "kubernetes");
  EXPECT_EQ(got.obj->subsets[0].ports.size(), 1u);
  EXPECT_EQ(got.obj->subsets[0].ports[0].port, 443);  // kept
  ASSERT_TRUE(Tick(a, /*reconcile_ports=*/true).ok());
  EXPECT_EQ(a.endpoints->Get("default", "kubernetes")->obj->subsets[0].ports[0].port, 6443);
}

// Scenario 8: another slice claiming the Service is deleted.
TEST_F(LeaseReconcilerTest, StraySliceIsDeleted) {
  auto& a = AddServer("10.0.0.1");
  EndpointSlice stray;
  stray.metadata.name = "kubernetes-abc";
  stray.metadata.labels["kubernetes.io/service-name"] = "kubernetes";
  stray.address_type = "IPv4";
  ASSERT_TRUE(a.slices->Create("default", stray, {}).ok());
  ASSERT_TRUE(Tick(a).ok());
  EXPECT_EQ(a.slices->Get("default", "kubernetes-abc").status().code(), Code::kNotFound);
  EXPECT_TRUE(a.slices->Get("default", "kubernetes").ok());
}

TEST_F(LeaseReconcilerTest, RenewalIsARealWrite) {
  auto& a = AddServer("10.0.0.1");
  ASSERT_TRUE(a.reconciler->UpdateLease(a.ip).ok());
  auto first = store_.Get("/registry/masterleases/10.0.0.1");
  ASSERT_TRUE(a.reconciler->UpdateLease(a.ip).ok());
  auto second = store_.Get("/registry/masterleases/10.0.0.1");
  EXPECT_GT(second->mod_revision, first->mod_revision);
  EXPECT_EQ(*a.reconciler->ListLeases(), std::vector<std::string>{"10.0.0.1"});
}

TEST_F(LeaseReconcilerTest, RecordIsUpstreamsEndpointsWithGenerationAndOurExpiry) {
  auto& a = AddServer("10.0.0.1");
  ASSERT_TRUE(a.reconciler->UpdateLease(a.ip).ok());
  ASSERT_TRUE(a.reconciler->UpdateLease(a.ip).ok());
  auto kv = store_.Get("/registry/masterleases/10.0.0.1");
  ASSERT_TRUE(kv.ok());
  auto doc = boost::json::parse(*kv->value).as_object();
  EXPECT_EQ(doc.at("kind"), "Endpoints");
  EXPECT_EQ(doc.at("apiVersion"), "v1");
  EXPECT_EQ(doc.at("metadata").at("generation"), 2);
  EXPECT_FALSE(doc.at("metadata").as_object().contains("name"));  // as upstream's
  EXPECT_EQ(doc.at("subsets").at(0).at("addresses").at(0).at("ip"), "10.0.0.1");
  const int64_t now_us =
      std::chrono::duration_cast<std::chrono::microseconds>(clock_.WallNow().time_since_epoch())
          .count();
  EXPECT_EQ(MasterLeaseExpiry(*kv->value), now_us + 15'000'000);
}

// What a kube-apiserver sharing the store writes: no expiry of ours, an etcd lease instead.
constexpr char kKubeRecord[] =
    R"({"kind":"Endpoints","apiVersion":"v1","metadata":{"generation":3},)"
    R"("subsets":[{"addresses":[{"ip":"10.0.0.9"}]}]})";

TEST_F(LeaseReconcilerTest, KubeApiserversRecordsAreLiveWhereTheStoreExpiresThem) {
  ASSERT_TRUE(
      store_.Create("/registry/masterleases/10.0.0.9", storage::MakeValue(kKubeRecord)).ok());
  registry::Registry<Endpoints> endpoints(Ctx());
  registry::Registry<EndpointSlice> slices(Ctx());
  LeaseEndpointReconciler on_etcd(&store_, &endpoints, &slices, clock_, kMasterLeaseTtl,
                                  /*store_expires_records=*/true);
  ASSERT_TRUE(on_etcd.UpdateLease("10.0.0.1").ok());
  EXPECT_EQ(*on_etcd.ListLeases(), (std::vector<std::string>{"10.0.0.1", "10.0.0.9"}));
  // Where nothing expires records by itself, one without an expiry is a leftover: removed.
  auto& embedded = AddServer("10.0.0.1");
  EXPECT_EQ(*embedded.reconciler->ListLeases(), std::vector<std::string>{"10.0.0.1"});
  EXPECT_EQ(store_.Get("/registry/masterleases/10.0.0.9").status().code(), Code::kNotFound);
}

TEST(MasterLeaseExpiryTest, ReadsTheAnnotationAndEarlierSvcplaneRecords) {
  EXPECT_EQ(
      MasterLeaseExpiry(
          R"({"metadata":{"annotations":{"svcplane.io/expires-at-micros":"1700000000000000"}}})"),
      1700000000000000);
  EXPECT_EQ(MasterLeaseExpiry(R"({"kind":"Endpoints","expiresAtMicros":42})"), 42);
  EXPECT_EQ(MasterLeaseExpiry(kKubeRecord), std::nullopt);
  EXPECT_EQ(
      MasterLeaseExpiry(R"({"metadata":{"annotations":{"svcplane.io/expires-at-micros":"x"}}})"),
      std::nullopt);
  EXPECT_EQ(MasterLeaseExpiry("not json"), std::nullopt);
}

}  // namespace
}  // namespace svcplane::apiserver::bootstrap
