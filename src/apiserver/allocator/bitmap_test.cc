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

// Upstream's stored form is Go's big.Int.Bytes() of the map (allocator/bitmap.go Snapshot). The
// expected bytes are what new(big.Int).SetBit(x, k, 1) for the named offsets k gives there.
TEST(BitmapTest, BigIntBytesAreGosBigIntBytes) {
  Bitmap b(254, 16);
  EXPECT_EQ(b.BigIntBytes(), "");  // big.NewInt(0).Bytes(): empty, not "\x00"
  b.Allocate(0);
  EXPECT_EQ(b.BigIntBytes(), "\x01");
  b.Allocate(7);
  EXPECT_EQ(b.BigIntBytes(), "\x81");
  b.Allocate(8);
  EXPECT_EQ(b.BigIntBytes(), "\x01\x81");  // big-endian: offset 8 is the first byte's bit 0
  b.Allocate(64);                          // the next word
  EXPECT_EQ(b.BigIntBytes(), std::string("\x01\0\0\0\0\0\0\x01\x81", 9));
  b.Allocate(253);  // 10.0.0.254 of a /24: the top bit of 32 bytes is bit 255, so 0x20
  std::string top(32, '\0');
  top[0] = '\x20';
  top[23] = '\x01';
  top[30] = '\x01';
  top[31] = '\x81';
  EXPECT_EQ(b.BigIntBytes(), top);
  // Releasing the highest offsets shortens the number again: no leading zero bytes.
  b.Release(253);
  b.Release(64);
  EXPECT_EQ(b.BigIntBytes(), "\x01\x81");
}

TEST(BitmapTest, BigIntBytesOfHighOffsets) {
  Bitmap ports(2768, 86);  // 30000-32767
  ports.Allocate(2767);    // port 32767: bit 2767 = byte 345's bit 7
  std::string bytes = ports.BigIntBytes();
  ASSERT_EQ(bytes.size(), 346u);
  EXPECT_EQ(bytes[0], '\x80');
  EXPECT_EQ(bytes.find_first_not_of('\0', 1), std::string::npos);
  const size_t slash12 = (size_t{1} << 20) - 2;
  Bitmap ips(slash12, 256);  // a /12: 128 KiB when its last address is taken
  ips.Allocate(slash12 - 1);
  EXPECT_EQ(ips.BigIntBytes().size(), size_t{1} << 17);
  EXPECT_EQ(ips.BigIntBytes()[0], '\x20');
}

TEST(BitmapTest, BigIntBytesRoundTrip) {
  const size_t size = (size_t{1} << 16) - 1;
  Bitmap b(size, 256);
  auto rng = Rng(4);
  for (int i = 0; i < 3000; ++i) b.AllocateNext(rng);
  b.Allocate(0);
  auto back = Bitmap::FromBigIntBytes(b.BigIntBytes(), size, 256);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, b);
  EXPECT_EQ(back->Count(), b.Count());
  EXPECT_EQ(Bitmap::FromBigIntBytes("", size, 256)->Count(), 0u);
  // big.Int.SetBytes takes leading zero bytes, which Go never writes; so do we.
  auto padded = Bitmap::FromBigIntBytes(std::string("\0\0\x01\x02", 4), 10, 0);
  ASSERT_TRUE(padded.ok());
  EXPECT_EQ(padded->Count(), 2u);
  EXPECT_TRUE(padded->Has(1) && padded->Has(8));
  // Offset 9 fits a map of 10; offset 10 does not.
  EXPECT_TRUE(Bitmap::FromBigIntBytes(std::string("\x02\0", 2), 10, 0).ok());
  EXPECT_FALSE(Bitmap::FromBigIntBytes(std::string("\x04\0", 2), 10, 0).ok());
  EXPECT_FALSE(Bitmap::FromBigIntBytes(std::string("\x01\0\0", 3), 10, 0).ok());
}

}  // namespace
}  // namespace svcplane::apiserver::allocator
