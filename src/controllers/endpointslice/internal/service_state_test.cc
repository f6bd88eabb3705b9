#include "controllers/endpointslice/internal/service_state.h"

#include <gtest/gtest.h>

namespace svcplane::controllers::endpointslice::internal {
namespace {

std::shared_ptr<const Node> MakeNode(const std::string& name, const std::string& zone) {
  auto n = std::make_shared<Node>();
  n->metadata.name = name;
  if (!zone.empty()) n->metadata.labels[std::string(kZoneLabel)] = zone;
  return n;
}

TEST(NodeZoneCache, OneSnapshotWhileZonesAreTheSame) {
  NodeZoneCache cache;
  std::vector<std::shared_ptr<const Node>> nodes = {MakeNode("a", "z1"), MakeNode("b", "z2")};
  NodeZonesPtr first = cache.Get(nodes);
  ASSERT_EQ(first->size(), 2u);
  EXPECT_EQ(first->at("a"), "z1");
  EXPECT_EQ(cache.Get(nodes), first);
  // Status updates replace the Node objects; their zones are unchanged, so is the snapshot.
  std::vector<std::shared_ptr<const Node>> updated = {MakeNode("a", "z1"), MakeNode("b", "z2")};
  EXPECT_EQ(cache.Get(updated), first);
}

TEST(NodeZoneCache, NewSnapshotWhenAZoneOrTheNodeSetChanges) {
  NodeZoneCache cache;
  NodeZonesPtr first = cache.Get({MakeNode("a", "z1")});
  NodeZonesPtr moved = cache.Get({MakeNode("a", "z2")});
  EXPECT_NE(moved, first);
  EXPECT_EQ(moved->at("a"), "z2");
  NodeZonesPtr added = cache.Get({MakeNode("a", "z2"), MakeNode("b", "")});
  EXPECT_NE(added, moved);
  EXPECT_EQ(added->size(), 2u);
  // The old snapshot, still held by states that did not sync yet, is untouched.
  EXPECT_EQ(first->at("a"), "z1");
}

TEST(NodeZoneCache, StatesShareTheSnapshotAndSeeOnlyRealChanges) {
  NodeZoneCache cache;
  ServiceState a, b;
  NodeZonesPtr zones = cache.Get({MakeNode("a", "z1")});
  EXPECT_TRUE(UpdateNodes(a, zones));
  EXPECT_TRUE(UpdateNodes(b, zones));
  EXPECT_EQ(a.zones.get(), b.zones.get());
  EXPECT_FALSE(UpdateNodes(a, zones));
  // A different snapshot with the same content (e.g. from another reconciler) is no change.
  EXPECT_FALSE(UpdateNodes(a, std::make_shared<const NodeZones>(*zones)));
  EXPECT_TRUE(UpdateNodes(b, cache.Get({MakeNode("a", "z2")})));
}

}  // namespace
}  // namespace svcplane::controllers::endpointslice::internal
