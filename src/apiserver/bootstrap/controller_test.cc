#include "apiserver/bootstrap/controller.h"

#include <gtest/gtest.h>

#include <thread>

#include "apiserver/allocator/service_allocator.h"
#include "apiserver/bootstrap/host_address.h"
#include "storage/memory/memory_store.h"

namespace svcplane::apiserver::bootstrap {
namespace {

using api::core::v1::Endpoints;
using api::core::v1::Namespace;
using api::core::v1::Service;
using api::discovery::v1::EndpointSlice;
using namespace std::chrono_literals;

class ControllerTest : public ::testing::Test {
 protected:
  ControllerTest() {
    registry::RegistryContext ctx;
    ctx.store = &store_;
    ctx.now_micros = [] { return int64_t{1714557600'000000}; };
    namespaces_ = std::make_unique<registry::Registry<Namespace>>(ctx);
    services_ = std::make_unique<registry::Registry<Service>>(ctx);
    endpoints_ = std::make_unique<registry::Registry<Endpoints>>(ctx);
    slices_ = std::make_unique<registry::Registry<EndpointSlice>>(ctx);
    allocator::ServiceAllocatorOptions ao;
    ao.cidrs = {*allocator::CidrRange::Parse("10.0.0.0/24")};
    ao.node_ports = *allocator::PortRange::Parse("30000-32767");
    alloc_ = std::make_unique<allocator::ServiceAllocator>(&store_, ao);
    registry::WriteHooks<Service> hooks;
    hooks.begin_write = [this](Service& s, const Service* old, bool dry) {
      return alloc_->Begin(s, old, dry);
    };
    services_->SetHooks(hooks);
    reconciler_ =
        std::make_unique<LeaseEndpointReconciler>(&store_, endpoints_.get(), slices_.get(), clock_);
    BootstrapOptions o;
    o.service_ip = allocator::FormatIp(alloc_->primary().cidr().First());
    o.secure_port = 6443;
    o.public_ip = "192.168.1.10";
    controller_ = std::make_unique<BootstrapController>(
        BootstrapRegistries{namespaces_.get(), services_.get(), endpoints_.get(), slices_.get()},
        reconciler_.get(), clock_, o);
  }

  storage::memory::MemoryStore store_;
  FakeClock clock_;
  std::unique_ptr<registry::Registry<Namespace>> namespaces_;
  std::unique_ptr<registry::Registry<Service>> services_;
  std::unique_ptr<registry::Registry<Endpoints>> endpoints_;
  std::unique_ptr<registry::Registry<EndpointSlice>> slices_;
  std::unique_ptr<allocator::ServiceAllocator> alloc_;
  std::unique_ptr<LeaseEndpointReconciler> reconciler_;
  std::unique_ptr<BootstrapController> controller_;
};

// Scenario 1: the Service as upstream creates it, holding the first address of the range.
TEST_F(ControllerTest, StartCreatesServiceEndpointsAndNamespaces) {
  controller_->Start();
  auto svc = services_->Get("default", "kubernetes");
  ASSERT_TRUE(svc.ok()) << svc.status().ToString();
  const Service& s = *svc->obj;
  EXPECT_EQ(s.metadata.labels,
            (api::meta::StringMap{{"component", "apiserver"}, {"provider", "kubernetes"}}));
  EXPECT_EQ(s.spec.cluster_ip, "10.0.0.1");
  EXPECT_EQ(s.spec.type, "ClusterIP");
  EXPECT_EQ(s.spec.ip_family_policy, "SingleStack");
  EXPECT_TRUE(s.spec.selector.empty());
  ASSERT_EQ(s.spec.ports.size(), 1u);
  EXPECT_EQ(s.spec.ports[0].name, "https");
  EXPECT_EQ(s.spec.ports[0].port, 443);
  EXPECT_EQ(s.spec.ports[0].target_port.int_value, 6443);
  EXPECT_TRUE(alloc_->primary().stored().Read()->map.Has(0));  // 10.0.0.1 is taken
  auto ep = endpoints_->Get("default", "kubernetes");
  ASSERT_TRUE(ep.ok());
  EXPECT_EQ(ep->obj->subsets.at(0).addresses.at(0).ip, "192.168.1.10");
  EXPECT_TRUE(slices_->Get("default", "kubernetes").ok());
  for (auto ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    EXPECT_TRUE(namespaces_->Get("", ns).ok()) << ns;
  }
  controller_->Stop();
  ep = endpoints_->Get("default", "kubernetes");
  EXPECT_TRUE(ep->obj->subsets.empty());  // own address removed on clean shutdown
}

// Scenario 3: an edited Service is left alone by the periodic loop and corrected at start.
TEST_F(ControllerTest, EditedServiceCorrectedOnlyAtStart) {
  ASSERT_TRUE(controller_->UpdateKubernetesService(true).ok());
  Service edited = *services_->Get("default", "kubernetes")->obj;
  edited.spec.ports[0].port = 8443;
  ASSERT_TRUE(
      services_->Update("default", "kubernetes", registry::Subresource::kNone, edited, {}).ok());
  ASSERT_TRUE(controller_->UpdateKubernetesService(false).ok());
  EXPECT_EQ(services_->Get("default", "kubernetes")->obj->spec.ports[0].port, 8443);
  ASSERT_TRUE(controller_->UpdateKubernetesService(true).ok());
  EXPECT_EQ(services_->Get("default", "kubernetes")->obj->spec.ports[0].port, 443);
}

// Scenario 12: a system namespace that disappears is back within one namespace interval, and
// the endpoint loop keeps renewing the lease.
TEST_F(ControllerTest, LoopsRecreateNamespacesAndRenewLease) {
  controller_->Start();
  auto ns = store_.Get(namespaces_->Key("", "kube-public"));
  ASSERT_TRUE(ns.ok());
  ASSERT_TRUE(store_.Delete(ns->key, ns->mod_revision).ok());
  auto lease = store_.Get("/registry/masterleases/192.168.1.10");
  ASSERT_TRUE(lease.ok());
  for (int i = 0; i < 6; ++i) {
    clock_.BlockUntilWaiters(1);
    int64_t ticks = controller_->TicksForTest();
    clock_.Advance(10s);
    while (controller_->TicksForTest() == ticks) std::this_thread::yield();
  }
  EXPECT_TRUE(namespaces_->Get("", "kube-public").ok());
  EXPECT_GT(store_.Get("/registry/masterleases/192.168.1.10")->mod_revision, lease->mod_revision);
  controller_->Stop();
}

TEST(HostAddressTest, ListenAddressUsedUnlessLoopbackOrUnspecified) {
  EXPECT_EQ(AdvertiseAddressFor("192.168.7.7"), "192.168.7.7");
  std::string chosen = AdvertiseAddressFor("127.0.0.1");
  EXPECT_NE(chosen.rfind("127.", 0), 0u);
  EXPECT_EQ(AdvertiseAddressFor("0.0.0.0"), chosen);
}

}  // namespace
}  // namespace svcplane::apiserver::bootstrap
