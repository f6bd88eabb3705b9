#include "apiserver/allocator/range_record.h"

#include <gtest/gtest.h>

#include "apiserver/allocator/stored_range.h"
#include "base/base64.h"
#include "storage/memory/memory_store.h"

namespace svcplane::apiserver::allocator {
namespace {

TEST(RangeRecordTest, SvcplanesRecordRoundTrips) {
  Bitmap map(254, 16);
  map.Allocate(0);
  map.Allocate(200);
  const std::string json = EncodeRangeRecord("/registry/ranges/serviceips", "10.0.0.0/24", map);
  EXPECT_EQ(json,
            "{\"kind\":\"RangeAllocation\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":"
            "\"serviceips\"},\"range\":\"10.0.0.0/24\",\"encoding\":\"offset-deltas\","
            "\"data\":\"AMgB\"}");
  auto record = ParseRangeRecord(json);
  ASSERT_TRUE(record.ok()) << record.status().ToString();
  EXPECT_EQ(record->range, "10.0.0.0/24");
  EXPECT_TRUE(record->offset_deltas);
  auto back = record->Map(254, 16);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, map);
}

// What kube-apiserver writes with --storage-media-type=application/json: no encoding, the
// bitmap's big.Int bytes in base64 (Go's encoding of a []byte).
TEST(RangeRecordTest, KubesJsonRecordIsReadAsItsBitmap) {
  const std::string kube =
      "{\"kind\":\"RangeAllocation\",\"apiVersion\":\"v1\",\"metadata\":"
      "{\"creationTimestamp\":null},\"range\":\"30000-32767\",\"data\":\"" +
      Base64(std::string("\x01\x00\x05", 3)) + "\"}";
  auto record = ParseRangeRecord(kube);
  ASSERT_TRUE(record.ok());
  EXPECT_FALSE(record->offset_deltas);
  auto map = record->Map(2768, 86);
  ASSERT_TRUE(map.ok()) << map.status().ToString();
  std::vector<size_t> offsets;
  map->ForEach([&](size_t k) { offsets.push_back(k); });
  EXPECT_EQ(offsets, (std::vector<size_t>{0, 2, 16}));  // ports 30000, 30002, 30016

  // StoredRange reads it too (it never gets it from the etcd codec, which hands it svcplane's
  // form, but a store someone filled by hand may hold it).
  storage::memory::MemoryStore store;
  ASSERT_TRUE(store.Create("/registry/ranges/servicenodeports", storage::MakeValue(kube)).ok());
  StoredRange stored(&store, "/registry/ranges/servicenodeports", "30000-32767", 2768, 86);
  EXPECT_FALSE(*stored.Allocate(2));
  EXPECT_TRUE(*stored.Allocate(3));
}

TEST(RangeRecordTest, MalformedRecordsAreErrors) {
  EXPECT_FALSE(ParseRangeRecord("not json").ok());
  EXPECT_FALSE(ParseRangeRecord("[]").ok());
  EXPECT_FALSE(ParseRangeRecord("{\"range\":\"1-2\",\"encoding\":\"rle\",\"data\":\"\"}").ok());
  auto no_data = ParseRangeRecord("{\"range\":\"1-2\",\"data\":null}");
  ASSERT_TRUE(no_data.ok());
  EXPECT_EQ(no_data->Map(2, 0)->Count(), 0u);
  auto bad_base64 = ParseRangeRecord("{\"range\":\"1-2\",\"data\":\"!!\"}");
  ASSERT_TRUE(bad_base64.ok());
  EXPECT_FALSE(bad_base64->Map(2, 0).ok());
}

TEST(RangeRecordTest, MapSizeOfARange) {
  EXPECT_EQ(*MapSizeOf("10.0.0.0/24"), 254u);
  EXPECT_EQ(*MapSizeOf("10.96.0.0/12"), (size_t{1} << 20) - 2);
  EXPECT_EQ(*MapSizeOf("fd00:10:96::/112"), 65535u);
  EXPECT_EQ(*MapSizeOf("fd00::/64"), 65535u);  // upstream caps the map at 65536 addresses
  EXPECT_EQ(*MapSizeOf("30000-32767"), 2768u);
  EXPECT_EQ(*MapSizeOf("30000"), 1u);
  EXPECT_FALSE(MapSizeOf("").ok());
  EXPECT_FALSE(MapSizeOf("10.0.0.0/33").ok());
  EXPECT_FALSE(MapSizeOf("r").ok());
}

}  // namespace
}  // namespace svcplane::apiserver::allocator
