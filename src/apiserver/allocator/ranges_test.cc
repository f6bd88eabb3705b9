#include "apiserver/allocator/ranges.h"

#include <gtest/gtest.h>

namespace svcplane::apiserver::allocator {
namespace {

TEST(CidrRangeTest, DefaultRangeHasUpstreamSizeAndBand) {
  auto r = CidrRange::Parse("10.96.0.0/12");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->family(), "IPv4");
  EXPECT_EQ(r->Size(), (size_t{1} << 20) - 2);
  EXPECT_EQ(r->BandOffset(), 256u);
  EXPECT_EQ(FormatIp(r->First()), "10.96.0.1");
  EXPECT_EQ(r->text(), "10.96.0.0/12");
}

TEST(CidrRangeTest, BandOffsetsFollowKep3070) {
  EXPECT_EQ(CidrRange::Parse("10.0.0.0/28")->BandOffset(), 0u);
  EXPECT_EQ(CidrRange::Parse("10.0.0.0/28")->Size(), 14u);
  EXPECT_EQ(CidrRange::Parse("10.0.0.0/24")->BandOffset(), 16u);
  EXPECT_EQ(CidrRange::Parse("10.0.0.0/20")->BandOffset(), 256u);
}

TEST(CidrRangeTest, OffsetsExcludeNetworkAndBroadcast) {
  auto r = *CidrRange::Parse("10.0.0.0/24");
  EXPECT_FALSE(r.OffsetOf(*ParseIp("10.0.0.0")));
  EXPECT_EQ(*r.OffsetOf(*ParseIp("10.0.0.1")), 0u);
  EXPECT_EQ(*r.OffsetOf(*ParseIp("10.0.0.254")), 253u);
  EXPECT_FALSE(r.OffsetOf(*ParseIp("10.0.0.255")));
  EXPECT_FALSE(r.OffsetOf(*ParseIp("10.0.1.1")));
  EXPECT_FALSE(r.OffsetOf(*ParseIp("fd00::1")));
}

TEST(CidrRangeTest, Ipv6IsCappedAt65535) {
  auto r = CidrRange::Parse("fd00:10:96::/64");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->family(), "IPv6");
  EXPECT_EQ(r->Size(), 65535u);
  EXPECT_EQ(FormatIp(r->First()), "fd00:10:96::1");
  EXPECT_EQ(*r->OffsetOf(*ParseIp("fd00:10:96::a")), 9u);
}

TEST(CidrRangeTest, HostBitsAreMaskedAndGarbageRejected) {
  EXPECT_EQ(CidrRange::Parse("10.96.3.4/12")->text(), "10.96.0.0/12");
  EXPECT_FALSE(CidrRange::Parse("10.96.0.0").ok());
  EXPECT_FALSE(CidrRange::Parse("10.96.0.0/33").ok());
  EXPECT_FALSE(CidrRange::Parse("nope/8").ok());
  EXPECT_FALSE(CidrRange::Parse("10.0.0.0/32").ok());
}

TEST(PortRangeTest, DefaultRange) {
  auto r = PortRange::Parse("30000-32767");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->Size(), 2768u);
  EXPECT_EQ(r->BandOffset(), 86u);
  EXPECT_EQ(*r->OffsetOf(30000), 0u);
  EXPECT_EQ(*r->OffsetOf(32767), 2767u);
  EXPECT_FALSE(r->OffsetOf(32768));
  EXPECT_FALSE(r->OffsetOf(29999));
  EXPECT_FALSE(PortRange::Parse("3-1").ok());
  EXPECT_FALSE(PortRange::Parse("a-b").ok());
}

}  // namespace
}  // namespace svcplane::apiserver::allocator
