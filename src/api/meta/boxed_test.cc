#include "api/meta/boxed.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "api/core/v1/pod.h"

namespace svcplane::api::meta {
namespace {

struct Rest {
  std::string a;
  int b = 0;
  bool operator==(const Rest&) const = default;
};

TEST(BoxedTest, ConstReadsDoNotAllocate) {
  const Boxed<Rest> box;
  EXPECT_EQ(box->a, "");
  EXPECT_EQ(box->b, 0);
  EXPECT_FALSE(box.allocated());
}

TEST(BoxedTest, WritesAllocateAndCopiesAreDeep) {
  Boxed<Rest> box;
  box->a = "x";
  EXPECT_TRUE(box.allocated());
  Boxed<Rest> copy = box;
  copy->a = "y";
  EXPECT_EQ(box->a, "x");
  EXPECT_EQ(copy->a, "y");
  Boxed<Rest> moved = std::move(copy);
  EXPECT_EQ(moved->a, "y");
  Boxed<Rest> assigned;
  assigned = box;
  EXPECT_EQ(assigned->a, "x");
}

TEST(BoxedTest, AnEmptyBoxEqualsADefaultOne) {
  Boxed<Rest> empty;
  Boxed<Rest> defaulted;
  defaulted.mut();
  EXPECT_EQ(empty, defaulted);
  defaulted->b = 1;
  EXPECT_NE(empty, defaulted);
  defaulted.reset();
  EXPECT_EQ(empty, defaulted);
}

TEST(BoxedVectorTest, BehavesLikeAVector) {
  BoxedVector<std::pair<std::string, std::string>> v;
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.begin(), v.end());
  v.emplace_back("k", "1");
  v.push_back({"l", "2"});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1].first, "l");
  EXPECT_EQ(v.back().second, "2");
  int n = 0;
  for (auto& [k, val] : v) n += static_cast<int>(k.size() + val.size());
  EXPECT_EQ(n, 4);
  auto copy = v;
  copy[0].second = "changed";
  EXPECT_EQ(v[0].second, "1");
  EXPECT_NE(copy, v);
  copy.clear();
  EXPECT_TRUE(copy.empty());
  EXPECT_EQ(copy, decltype(copy){});
}

// The point of boxing: the Pod an informer's transform builds carries none of what it drops.
TEST(BoxedTest, PodKeepsRarelyReadFieldsOutOfLine) {
  static_assert(sizeof(UnknownFields) == sizeof(void*));
  static_assert(sizeof(core::v1::Pod) < 900, "a Pod's rarely read fields belong in `rest`");
  core::v1::Pod pod;
  pod.spec.node_name = "n";
  pod.spec.rest->restart_policy = "Always";
  const core::v1::Pod& cpod = pod;
  EXPECT_EQ(cpod.spec.rest->restart_policy, "Always");
  EXPECT_EQ(cpod.status.rest->host_ip, "");
  EXPECT_FALSE(cpod.status.rest.allocated());
  core::v1::Pod copy = pod;
  EXPECT_EQ(copy, pod);
  copy.spec.rest->restart_policy = "Never";
  EXPECT_NE(copy, pod);
}

}  // namespace
}  // namespace svcplane::api::meta
