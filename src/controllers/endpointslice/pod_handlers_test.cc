#include "controllers/endpointslice/pod_handlers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/endpointslice/testing/fixtures.h"

namespace svcplane::controllers::endpointslice {
namespace {

using api::core::v1::Pod;
using api::core::v1::Service;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A Lister over a fixed set of Services (namespace filter only, as the handlers use it).
class VectorServiceLister final : public client::informers::Lister<Service> {
 public:
  void Add(Service s) { items_.push_back(std::make_shared<const Service>(std::move(s))); }
  client::ObjectPtr<Service> Get(std::string_view ns, std::string_view name) const override {
    for (const auto& s : items_) {
      if (s->metadata.namespace_ == ns && s->metadata.name == name) return s;
    }
    return nullptr;
  }
  std::vector<client::ObjectPtr<Service>> List(
      std::string_view ns, const api::selectors::LabelSelector& selector) const override {
    std::vector<client::ObjectPtr<Service>> out;
    for (const auto& s : items_) {
      if ((ns.empty() || s->metadata.namespace_ == ns) && selector.Matches(s->metadata.labels)) {
        out.push_back(s);
      }
    }
    return out;
  }
  std::vector<client::ObjectPtr<Service>> ByIndex(std::string_view,
                                                  std::string_view) const override {
    return {};
  }

 private:
  std::vector<client::ObjectPtr<Service>> items_;
};

class PodHandlersTest : public ::testing::Test {
 protected:
  PodHandlersTest() {
    Service a = testing::MakeService("a");
    a.spec.selector = {{"app", "a"}};
    Service b = testing::MakeService("b");
    b.spec.selector = {{"app", "b"}};
    Service all_tier = testing::MakeService("tier");
    all_tier.spec.selector = {{"tier", "web"}};
    Service none = testing::MakeService("none");
    none.spec.selector.clear();  // selectorless: never enqueued for pods
    Service other_ns = testing::MakeService("a", "other");
    other_ns.spec.selector = {{"app", "a"}};
    for (auto* s : {&a, &b, &all_tier, &none, &other_ns}) services_.Add(*s);
  }
  Pod P(std::string app, std::string rv = "1") {
    Pod p = testing::MakePod(1);
    p.metadata.labels = {{"app", app}, {"tier", "web"}};
    p.metadata.resource_version = rv;
    return p;
  }
  VectorServiceLister services_;
};

TEST_F(PodHandlersTest, AddAndDeleteEnqueueMatchingServicesOfTheNamespace) {
  Pod p = P("a");
  EXPECT_THAT(ServicesForPodEvent(services_, nullptr, p), ElementsAre("ns/a", "ns/tier"));
}

TEST_F(PodHandlersTest, ResyncAndIrrelevantChangesEnqueueNothing) {
  Pod p = P("a");
  EXPECT_THAT(ServicesForPodEvent(services_, &p, p), IsEmpty());
  Pod phase = P("a", "2");
  phase.status.phase = "Pending";  // not checked on its own
  EXPECT_THAT(ServicesForPodEvent(services_, &p, phase), IsEmpty());
}

TEST_F(PodHandlersTest, ReadinessChangeEnqueuesCurrentServices) {
  Pod p = P("a");
  Pod unready = P("a", "2");
  unready.status.conditions[0].status = "False";
  EXPECT_THAT(ServicesForPodEvent(services_, &p, unready), ElementsAre("ns/a", "ns/tier"));
  Pod ip = P("a", "3");
  ip.status.pod_ips[0].ip = "10.9.9.9";
  EXPECT_TRUE(ComparePods(p, ip).pod_changed);
  Pod deleting = P("a", "4");
  deleting.metadata.deletion_timestamp = api::meta::Time::FromUnix(5);
  EXPECT_TRUE(ComparePods(p, deleting).pod_changed);
}

TEST_F(PodHandlersTest, LabelChangeEnqueuesSymmetricDifference) {
  Pod p = P("a");
  Pod moved = P("b", "2");
  // tier=web selects both: unchanged membership is not enqueued.
  EXPECT_THAT(ServicesForPodEvent(services_, &p, moved), ElementsAre("ns/a", "ns/b"));
  // With a readiness change as well: the union.
  moved.status.conditions[0].status = "False";
  EXPECT_THAT(ServicesForPodEvent(services_, &p, moved), ElementsAre("ns/a", "ns/b", "ns/tier"));
}

TEST_F(PodHandlersTest, HostnameOnlyChangeEnqueuesNothingLiterally) {
  Pod p = P("a");
  Pod renamed = P("a", "2");
  renamed.spec.hostname = "h";
  EXPECT_TRUE(ComparePods(p, renamed).labels_changed);
  EXPECT_THAT(ServicesForPodEvent(services_, &p, renamed), IsEmpty());
}

}  // namespace
}  // namespace svcplane::controllers::endpointslice
