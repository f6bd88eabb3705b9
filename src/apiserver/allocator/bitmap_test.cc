#include "apiserver/allocator/bitmap.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace svcplane::apiserver::allocator {
namespace {

std::function<uint64_t()> Rng(uint64_t seed) {
  auto gen = std::make_shared<std::mt19937_64>(seed);
  return [gen] { return (*gen)(); };
}

TEST(BitmapTest, AllocateReleaseHas) {
  Bitmap b(100, 0);
  EXPECT_TRUE(b.Allocate(5));
  EXPECT_FALSE(b.Allocate(5));
  EXPECT_FALSE(b.Allocate(100));
  EXPECT_TRUE(b.Has(5));
  EXPECT_EQ(b.Count(), 1u);
  b.Release(5);
  b.Release(5);
  EXPECT_FALSE(b.Has(5));
  EXPECT_EQ(b.Free(), 100u);
}

// Scenario 13: a /24 (254 addresses, band 16): dynamic picks land in the upper band until it
// is full, then in the lower one.
TEST(BitmapTest, DynamicPrefersUpperBand) {
  Bitmap b(254, 16);
  auto rng = Rng(1);
  for (int i = 0; i < 254 - 16; ++i) {
    auto got = b.AllocateNext(rng);
    ASSERT_TRUE(got);
    EXPECT_GE(*got, 16u);
  }
  for (int i = 0; i < 16; ++i) {
    auto got = b.AllocateNext(rng);
    ASSERT_TRUE(got);
    EXPECT_LT(*got, 16u);
  }
  EXPECT_FALSE(b.AllocateNext(rng));
}

TEST(BitmapTest, NoBandUsesWholeRange) {
  Bitmap b(14, 0);
  auto rng = Rng(2);
  std::set<size_t> seen;
  for (int i = 0; i < 14; ++i) seen.insert(*b.AllocateNext(rng));
  EXPECT_EQ(seen.size(), 14u);
  EXPECT_FALSE(b.AllocateNext(rng));
}

TEST(BitmapTest, EncodeDecodeRoundTrip) {
  Bitmap b(1 << 20, 256);
  auto rng = Rng(3);
  for (int i = 0; i < 1000; ++i) b.AllocateNext(rng);
  b.Allocate(0);
  b.Allocate((1 << 20) - 1);
  std::string data = b.Encode();
  EXPECT_LT(data.size(), 6000u);  // sparse: a few bytes per allocation, not 128 KiB
  auto back = Bitmap::Decode(data, 1 << 20, 256);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, b);
  EXPECT_EQ(back->Count(), b.Count());
  EXPECT_TRUE(Bitmap::Decode("", 10, 0)->Count() == 0);
  EXPECT_FALSE(Bitmap::Decode("!!", 10, 0).ok());
  Bitmap big(300, 0);
  big.Allocate(299);
  EXPECT_FALSE(Bitmap::Decode(big.Encode(), 100, 0).ok());  // offset beyond the range
}

}  // namespace
}  // namespace svcplane::apiserver::allocator
