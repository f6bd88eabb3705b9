#include "controllers/endpointslice/slice_tracker.h"

#include <gtest/gtest.h>

#include "controllers/endpointslice/testing/fixtures.h"
#include "controllers/endpointslice/utils.h"

namespace svcplane::controllers::endpointslice {
namespace {

using testing::MakeService;
using testing::Share;

EndpointSlice SliceOf(const Service& s, const std::string& uid, int64_t generation) {
  EndpointSlice e = NewSlice(s, {}, "IPv4");
  e.metadata.name = "slice-" + uid;
  e.metadata.uid = uid;
  e.metadata.rest->generation = generation;
  return e;
}

TEST(SliceTracker, ShouldSyncOnlyForNewerGenerations) {
  Service s = MakeService();
  SliceTracker t;
  EndpointSlice e = SliceOf(s, "u1", 1);
  EXPECT_TRUE(t.ShouldSync(e));
  EXPECT_FALSE(t.Has(e));
  t.Update(e);
  EXPECT_TRUE(t.Has(e));
  EXPECT_FALSE(t.ShouldSync(e));
  e.metadata.rest->generation = 2;
  EXPECT_TRUE(t.ShouldSync(e));
}

// Scenario 19.
TEST(SliceTracker, StaleWhenCacheLagsOurWrites) {
  Service s = MakeService();
  SliceTracker t;
  t.Update(SliceOf(s, "u1", 2));
  EXPECT_TRUE(t.StaleSlices(s, {Share(SliceOf(s, "u1", 1))}));
  EXPECT_FALSE(t.StaleSlices(s, {Share(SliceOf(s, "u1", 2))}));
  EXPECT_FALSE(t.StaleSlices(s, {Share(SliceOf(s, "u1", 3))}));
  // A slice we created that the cache has not shown yet.
  EXPECT_TRUE(t.StaleSlices(s, {}));
  // A slice we deleted that the cache still lists.
  t.ExpectDeletion(SliceOf(s, "u1", 2));
  EXPECT_TRUE(t.StaleSlices(s, {Share(SliceOf(s, "u1", 2))}));
  EXPECT_FALSE(t.StaleSlices(s, {}));
}

TEST(SliceTracker, HandleDeletionReportsExpectedness) {
  Service s = MakeService();
  SliceTracker t;
  EndpointSlice a = SliceOf(s, "a", 1), b = SliceOf(s, "b", 1);
  t.Update(a);
  t.ExpectDeletion(b);
  EXPECT_FALSE(t.HandleDeletion(a));  // someone else deleted a slice we wrote
  EXPECT_TRUE(t.HandleDeletion(b));
  EXPECT_FALSE(t.Has(a));
  EXPECT_FALSE(t.Has(b));
  EXPECT_TRUE(t.HandleDeletion(SliceOf(s, "never", 1)));
}

TEST(SliceTracker, RecreatedServiceForgetsOldExpectations) {
  Service s = MakeService();
  SliceTracker t;
  EXPECT_FALSE(t.StaleSlices(s, {}));
  t.Update(SliceOf(s, "u1", 5));
  EXPECT_TRUE(t.StaleSlices(s, {}));
  Service again = s;
  again.metadata.uid = "new-uid";
  EXPECT_FALSE(t.StaleSlices(again, {}));
}

TEST(SliceTracker, DeleteServiceDropsRecords) {
  Service s = MakeService();
  SliceTracker t;
  EndpointSlice e = SliceOf(s, "u1", 1);
  t.Update(e);
  t.DeleteService("ns", "svc");
  EXPECT_FALSE(t.Has(e));
  EXPECT_FALSE(t.StaleSlices(s, {}));
}

}  // namespace
}  // namespace svcplane::controllers::endpointslice
