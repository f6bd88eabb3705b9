#include "api/codec/encoding_cache.h"

#include <gtest/gtest.h>

namespace svcplane::api::codec {
namespace {

TEST(EncodingCacheTest, OneEncodingPerObject) {
  EncodingCache cache(1 << 20);
  auto obj = std::make_shared<const int>(7);
  int calls = 0;
  auto encode = [&](const int& v) {
    ++calls;
    return std::to_string(v);
  };
  auto a = cache.Get(obj, encode);
  auto b = cache.Get(obj, encode);
  EXPECT_EQ(*a, "7");
  EXPECT_EQ(a, b);  // the very same bytes
  EXPECT_EQ(calls, 1);
}

TEST(EncodingCacheTest, ReusedAddressNeverMatches) {
  EncodingCache cache(1 << 20);
  auto encode = [](const std::string& v) { return v; };
  // Allocated apart from their control blocks (not make_shared): the object's memory is freed
  // while the cache's weak_ptr keeps the control block, so its address can be reused.
  std::shared_ptr<const std::string> first(new std::string("first"));
  const void* addr = first.get();
  EXPECT_EQ(*cache.Get(first, encode), "first");
  first.reset();
  // Allocate until the address comes back (usually at once), then it must re-encode.
  std::vector<std::shared_ptr<const std::string>> keep;
  for (int i = 0; i < 1000; ++i) {
    std::shared_ptr<const std::string> next(new std::string("second"));
    if (next.get() == addr) {
      EXPECT_EQ(*cache.Get(next, encode), "second");
      return;
    }
    keep.push_back(next);
  }
  GTEST_SKIP() << "the allocator did not reuse the address";
}

TEST(EncodingCacheTest, BoundedByBytesLeastRecentlyUsedFirst) {
  EncodingCache cache(10);
  auto encode = [](const std::string& v) { return v; };
  auto a = std::make_shared<const std::string>("aaaa");
  auto b = std::make_shared<const std::string>("bbbb");
  auto c = std::make_shared<const std::string>("cccc");
  auto a1 = cache.Get(a, encode);
  cache.Get(b, encode);
  cache.Get(a, encode);  // a is now the most recent
  cache.Get(c, encode);  // 12 bytes > 10: b goes
  EXPECT_EQ(cache.entries(), 2u);
  EXPECT_EQ(cache.size_bytes(), 8u);
  EXPECT_EQ(cache.Get(a, encode), a1);
}

}  // namespace
}  // namespace svcplane::api::codec
