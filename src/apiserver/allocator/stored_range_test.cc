#include "apiserver/allocator/stored_range.h"

#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "apiserver/allocator/allocators.h"
#include "storage/memory/memory_store.h"

namespace svcplane::apiserver::allocator {
namespace {

TEST(StoredRangeTest, AllocationsPersistInTheStore) {
  storage::memory::MemoryStore store;
  StoredRange a(&store, "/registry/ranges/serviceips", "10.0.0.0/24", 254, 16, 1);
  EXPECT_TRUE(*a.Allocate(3));
  EXPECT_FALSE(*a.Allocate(3));
  auto next = a.AllocateNext();
  ASSERT_TRUE(next.ok() && next->has_value());
  EXPECT_GE(**next, 16u);
  // A second allocator (another API server) sees the same state.
  StoredRange b(&store, "/registry/ranges/serviceips", "10.0.0.0/24", 254, 16, 2);
  EXPECT_FALSE(*b.Allocate(3));
  EXPECT_FALSE(*b.Allocate(**next));
  ASSERT_TRUE(b.Release(3).ok());
  EXPECT_TRUE(*a.Allocate(3));
  auto snap = a.Read();
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(snap->range, "10.0.0.0/24");
  EXPECT_EQ(snap->map.Count(), 2u);
  EXPECT_GT(snap->revision, 0);
}

TEST(StoredRangeTest, DryRunWritesNothing) {
  storage::memory::MemoryStore store;
  StoredRange a(&store, "/k", "r", 10, 0, 1);
  EXPECT_TRUE(*a.Allocate(1, /*dry_run=*/true));
  EXPECT_TRUE(a.AllocateNext(/*dry_run=*/true)->has_value());
  EXPECT_EQ(store.Get("/k").status().code(), Code::kNotFound);
}

TEST(StoredRangeTest, MismatchedRangeRefusesAllocation) {
  storage::memory::MemoryStore store;
  StoredRange old_range(&store, "/k", "10.0.0.0/24", 254, 16, 1);
  ASSERT_TRUE(*old_range.Allocate(1));
  StoredRange new_range(&store, "/k", "10.1.0.0/24", 254, 16, 1);
  auto r = new_range.Allocate(1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "the provided network does not match the current range");
  auto snap = new_range.Read();
  EXPECT_EQ(snap->range, "10.0.0.0/24");
  EXPECT_EQ(snap->map.Count(), 0u);  // the old offsets mean other addresses
}

TEST(StoredRangeTest, FullRange) {
  storage::memory::MemoryStore store;
  StoredRange a(&store, "/k", "r", 3, 0, 1);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(a.AllocateNext()->has_value());
  EXPECT_FALSE(a.AllocateNext()->has_value());
}

// Several "API servers" (allocators with their own locks) race on one store: the
// revision-checked writes must never hand the same address out twice.
TEST(StoredRangeTest, ConcurrentServersNeverDoubleAllocate) {
  storage::memory::MemoryStore store;
  auto cidr = *CidrRange::Parse("10.0.0.0/22");
  std::vector<std::unique_ptr<IpAllocator>> servers;
  for (int i = 0; i < 4; ++i) {
    servers.push_back(std::make_unique<IpAllocator>(&store, cidr, "/registry/ranges/serviceips"));
  }
  std::mutex mu;
  std::vector<std::string> got;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        auto ip = servers[t % 4]->AllocateNext();
        ASSERT_TRUE(ip.ok()) << ip.status().ToString();
        ASSERT_TRUE(ip->has_value());
        std::lock_guard<std::mutex> lock(mu);
        got.push_back(**ip);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::set<std::string> unique(got.begin(), got.end());
  EXPECT_EQ(unique.size(), 800u);
  EXPECT_EQ(servers[0]->stored().Read()->map.Count(), 800u);
}

TEST(AllocatorsTest, ErrorTextsAreUpstreams) {
  storage::memory::MemoryStore store;
  IpAllocator ips(&store, *CidrRange::Parse("10.96.0.0/12"), "/ips");
  EXPECT_EQ(*ips.Allocate("10.96.0.10"), AllocError::kNone);
  EXPECT_EQ(*ips.Allocate("10.96.0.10"), AllocError::kAllocated);
  EXPECT_EQ(*ips.Allocate("192.168.0.1"), AllocError::kNotInRange);
  EXPECT_EQ(ips.ErrorText(AllocError::kAllocated), "provided IP is already allocated");
  EXPECT_EQ(ips.ErrorText(AllocError::kNotInRange),
            "provided IP is not in the valid range. The range of valid IPs is 10.96.0.0/12");
  PortAllocator ports(&store, *PortRange::Parse("30000-32767"));
  EXPECT_EQ(*ports.Allocate(30010), AllocError::kNone);
  EXPECT_EQ(*ports.Allocate(30010), AllocError::kAllocated);
  EXPECT_EQ(*ports.Allocate(80), AllocError::kNotInRange);
  EXPECT_EQ(ports.ErrorText(AllocError::kNotInRange),
            "provided port is not in the valid range. The range of valid ports is 30000-32767");
  // Scenario 16: dynamic picks avoid the static band 30000-30085 while the upper band has room.
  for (int i = 0; i < 200; ++i) EXPECT_GE(**ports.AllocateNext(), 30086);
  ASSERT_TRUE(ports.Release(30010).ok());
  EXPECT_EQ(*ports.Allocate(30010), AllocError::kNone);
}

}  // namespace
}  // namespace svcplane::apiserver::allocator
