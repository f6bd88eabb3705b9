#include "client/informers/store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/informers/testing/fake_resource_client.h"
#include "client/informers/transforms.h"

namespace svcplane::client::informers {
namespace {

using api::core::v1::Pod;
using testing::TestPod;
using ::testing::UnorderedElementsAre;

std::vector<std::string> Names(const std::vector<ObjectPtr<Pod>>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->metadata.name);
  return out;
}

TEST(StoreTest, UpsertRemoveAndNamespaceIndex) {
  ThreadSafeStore<Pod> store;
  EXPECT_EQ(store.Upsert(TestPod("a", "1", "ns1", "web")), nullptr);
  EXPECT_EQ(store.Upsert(TestPod("b", "2", "ns1", "db")), nullptr);
  EXPECT_EQ(store.Upsert(TestPod("a", "3", "ns2", "web")), nullptr);
  auto old = store.Upsert(TestPod("a", "4", "ns1", "web"));
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->metadata.resource_version, "1");
  EXPECT_EQ(store.Get("ns1", "a")->metadata.resource_version, "4");
  EXPECT_EQ(store.Get("ns3", "a"), nullptr);
  EXPECT_THAT(Names(store.List("ns1")), UnorderedElementsAre("a", "b"));
  EXPECT_THAT(Names(store.List()), UnorderedElementsAre("a", "b", "a"));
  auto web = api::selectors::ParseLabelSelector("app=web");
  ASSERT_TRUE(web.ok());
  EXPECT_THAT(Names(store.List("ns1", *web)), UnorderedElementsAre("a"));
  EXPECT_EQ(store.List("", *web).size(), 2u);
  EXPECT_EQ(store.ByIndex(kNamespaceIndex, "ns2").size(), 1u);

  ASSERT_NE(store.Remove("ns1/a"), nullptr);
  EXPECT_EQ(store.Remove("ns1/a"), nullptr);
  EXPECT_THAT(Names(store.List("ns1")), UnorderedElementsAre("b"));
  ASSERT_NE(store.Remove("ns1/b"), nullptr);
  EXPECT_TRUE(store.List("ns1").empty());
  EXPECT_EQ(store.size(), 1u);
}

TEST(StoreTest, CustomIndexFollowsUpdates) {
  ThreadSafeStore<Pod> store;
  store.AddIndexer("node", [](const Pod& p) {
    if (p.spec.node_name.empty()) return std::vector<std::string>{};
    return std::vector<std::string>{p.spec.node_name};
  });
  auto a = std::make_shared<Pod>(*TestPod("a", "1"));
  a->spec.node_name = "n1";
  store.Upsert(a);
  auto b = std::make_shared<Pod>(*TestPod("b", "1"));
  b->spec.node_name = "n1";
  store.Upsert(b);
  EXPECT_THAT(Names(store.ByIndex("node", "n1")), UnorderedElementsAre("a", "b"));
  auto moved = std::make_shared<Pod>(*a);
  moved->spec.node_name = "n2";
  store.Upsert(moved);
  EXPECT_THAT(Names(store.ByIndex("node", "n1")), UnorderedElementsAre("b"));
  EXPECT_THAT(Names(store.ByIndex("node", "n2")), UnorderedElementsAre("a"));
  EXPECT_TRUE(store.ByIndex("missing-index", "n1").empty());
}

TEST(StoreTest, ReplaceReportsAddsChangesAndDisappearances) {
  ThreadSafeStore<Pod> store;
  store.Upsert(TestPod("keep", "1"));
  store.Upsert(TestPod("change", "1"));
  store.Upsert(TestPod("gone", "1"));
  std::vector<std::string> added, changed, removed;
  store.Replace({TestPod("keep", "1"), TestPod("change", "2"), TestPod("new", "3")},
                [&](const ObjectPtr<Pod>& old, const ObjectPtr<Pod>& cur) {
                  if (!old) {
                    added.push_back(cur->metadata.name);
                  } else if (!cur) {
                    removed.push_back(old->metadata.name);
                  } else if (old->metadata.resource_version != cur->metadata.resource_version) {
                    changed.push_back(cur->metadata.name);
                  }
                });
  EXPECT_THAT(added, UnorderedElementsAre("new"));
  EXPECT_THAT(changed, UnorderedElementsAre("change"));
  EXPECT_THAT(removed, UnorderedElementsAre("gone"));
  EXPECT_THAT(Names(store.List("default")), UnorderedElementsAre("keep", "change", "new"));
  EXPECT_EQ(store.Get("default", "gone"), nullptr);
}

TEST(TransformTest, SlimPodKeepsWhatServiceControllersRead) {
  auto full = std::make_shared<Pod>(*TestPod("a", "7", "ns1", "web"));
  auto& p = *full;
  p.metadata.uid = "u1";
  p.metadata.annotations["big"] = std::string(1000, 'x');
  p.spec.node_name = "n1";
  p.spec.hostname = "h";
  p.spec.subdomain = "s";
  p.spec.containers.push_back({.name = "sidecar", .image = "envoy"});
  p.spec.containers.push_back({.name = "app", .image = "nginx"});
  p.spec.containers.back().ports.push_back(
      {.name = "http", .container_port = 8080, .protocol = "TCP"});
  p.status.phase = "Running";
  p.status.pod_ip = "10.0.0.1";
  p.status.pod_ips.push_back({.ip = "10.0.0.1"});
  p.status.conditions.push_back({.type = "PodScheduled", .status = "True"});
  p.status.conditions.push_back({.type = "Ready", .status = "True"});
  auto slim = SlimPodForServiceControllers(full);
  EXPECT_EQ(slim->metadata.name, "a");
  EXPECT_EQ(slim->metadata.namespace_, "ns1");
  EXPECT_EQ(slim->metadata.uid, "u1");
  EXPECT_EQ(slim->metadata.resource_version, "7");
  EXPECT_EQ(slim->metadata.labels.at("app"), "web");
  EXPECT_TRUE(slim->metadata.annotations.empty());
  EXPECT_EQ(slim->spec.node_name, "n1");
  EXPECT_EQ(slim->spec.hostname, "h");
  EXPECT_EQ(slim->spec.subdomain, "s");
  ASSERT_EQ(slim->spec.containers.size(), 1u);
  EXPECT_EQ(slim->spec.containers[0].name, "app");
  EXPECT_EQ(slim->spec.containers[0].image, "");
  ASSERT_EQ(slim->spec.containers[0].ports.size(), 1u);
  EXPECT_EQ(slim->spec.containers[0].ports[0].container_port, 8080);
  EXPECT_EQ(slim->status.phase, "Running");
  ASSERT_EQ(slim->status.pod_ips.size(), 1u);
  EXPECT_EQ(slim->status.pod_ips[0].ip, "10.0.0.1");
  ASSERT_EQ(slim->status.conditions.size(), 1u);
  EXPECT_EQ(slim->status.conditions[0].type, "Ready");
}

}  // namespace
}  // namespace svcplane::client::informers
