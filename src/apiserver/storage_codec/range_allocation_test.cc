#include "apiserver/storage_codec/range_allocation.h"

#include <gtest/gtest.h>

#include "api/codec/protobuf.h"
#include "apiserver/allocator/allocators.h"
#include "apiserver/allocator/range_record.h"
#include "apiserver/storage_codec/protobuf_value_codec.h"
#include "storage/memory/memory_store.h"

namespace svcplane::apiserver::storage_codec {
namespace {

using allocator::Bitmap;
using allocator::EncodeRangeRecord;

constexpr std::string_view kIpsKey = "/registry/ranges/serviceips";
constexpr std::string_view kPortsKey = "/registry/ranges/servicenodeports";

std::string Varint(uint64_t v) {
  std::string out;
  for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>(v | 0x80));
  out.push_back(static_cast<char>(v));
  return out;
}

std::string Field(char tag, std::string_view bytes) {
  return tag + Varint(bytes.size()) + std::string(bytes);
}

// An empty metav1.ObjectMeta as Go's generated Marshal writes it: the six strings and
// generation always, creationTimestamp as an empty Time; nothing else.
const std::string kEmptyObjectMeta(
    "\x0a\x00\x12\x00\x1a\x00\x22\x00\x2a\x00\x32\x00\x38\x00\x42\x00", 16);

// The bytes kube-apiserver 1.33 puts in etcd for a RangeAllocation, built by hand from
// generated.proto (metadata = 1, range = 2, data = 3) and runtime.Unknown, independently of the
// code under test. `meta` is the ObjectMeta message.
std::string KubeBytes(std::string_view range, std::string_view data,
                      const std::string& meta = kEmptyObjectMeta) {
  const std::string raw = Field('\x0a', meta) + Field('\x12', range) + Field('\x1a', data);
  const std::string type_meta = Field('\x0a', "v1") + Field('\x12', "RangeAllocation");
  return std::string("k8s\0", 4) + Field('\x0a', type_meta) + Field('\x12', raw) +
         Field('\x1a', "") + Field('\x22', "");
}

std::shared_ptr<const std::string> Bytes(std::string s) {
  return std::make_shared<const std::string>(std::move(s));
}

TEST(RangeAllocationTest, TheEmptyObjectMetaIsGos) {
  std::string meta;
  api::codec::EncodeProtobufMessage(api::meta::ObjectMeta{}, &meta);
  EXPECT_EQ(meta, kEmptyObjectMeta);
}

TEST(RangeAllocationTest, ClusterIpsAreStoredAsKubesBitmapAndReadBack) {
  ProtobufValueCodec codec;
  Bitmap map(254, 16);
  for (size_t k : {0, 9, 253}) map.Allocate(k);  // 10.0.0.1, 10.0.0.10, 10.0.0.254
  auto json = Bytes(EncodeRangeRecord(kIpsKey, "10.0.0.0/24", map));
  auto stored = codec.Encode(kIpsKey, json);
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  std::string bitmap(32, '\0');
  bitmap[0] = '\x20';   // offset 253: bit 5 of the most significant of 32 bytes
  bitmap[30] = '\x02';  // offset 9
  bitmap[31] = '\x01';  // offset 0
  EXPECT_EQ(**stored, KubeBytes("10.0.0.0/24", bitmap));
  auto back = codec.Decode(kIpsKey, *stored);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(**back, *json);  // the very bytes StoredRange wrote
}

TEST(RangeAllocationTest, NodePortsAndAnEmptyMap) {
  ProtobufValueCodec codec;
  Bitmap ports(2768, 86);
  ports.Allocate(0);     // 30000
  ports.Allocate(2767);  // 32767
  auto stored = codec.Encode(kPortsKey, Bytes(EncodeRangeRecord(kPortsKey, "30000-32767", ports)));
  ASSERT_TRUE(stored.ok());
  std::string bitmap(346, '\0');
  bitmap.front() = '\x80';
  bitmap.back() = '\x01';
  EXPECT_EQ(**stored, KubeBytes("30000-32767", bitmap));  // a two-byte length for data

  // Nothing allocated: Go's big.Int.Bytes() is an empty, non-nil slice, which its Marshal
  // writes as an empty field 3.
  auto empty = codec.Encode(kPortsKey, Bytes(EncodeRangeRecord(kPortsKey, "30000-32767", {})));
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(**empty, KubeBytes("30000-32767", ""));
  auto back = codec.Decode(kPortsKey, *empty);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(**back, EncodeRangeRecord(kPortsKey, "30000-32767", Bitmap(2768, 86)));
}

// A record written by kube-apiserver (here with a name in its metadata, which does not matter)
// reads as the allocations it holds: the allocator refuses
// exactly those addresses.
TEST(RangeAllocationTest, AKubeWrittenRecordHoldsItsAllocations) {
  ProtobufValueCodec codec;
  const std::string meta = Field('\x0a', "serviceips") + kEmptyObjectMeta.substr(2);
  const std::string bitmap("\x20\x00\x00\x01\x00\x03", 6);  // offsets 0, 1, 16, 45
  auto json = codec.Decode(kIpsKey, Bytes(KubeBytes("10.0.0.0/24", bitmap, meta)));
  ASSERT_TRUE(json.ok()) << json.status().ToString();

  storage::memory::MemoryStore store;
  ASSERT_TRUE(store.Create(std::string(kIpsKey), *json).ok());
  allocator::IpAllocator ips(&store, *allocator::CidrRange::Parse("10.0.0.0/24"),
                             std::string(kIpsKey));
  for (const char* taken : {"10.0.0.1", "10.0.0.2", "10.0.0.17", "10.0.0.46"}) {
    EXPECT_EQ(*ips.Allocate(taken), allocator::AllocError::kAllocated) << taken;
  }
  for (const char* free : {"10.0.0.3", "10.0.0.16", "10.0.0.18", "10.0.0.254"}) {
    EXPECT_EQ(*ips.Allocate(free), allocator::AllocError::kNone) << free;
  }
  EXPECT_EQ(ips.stored().Read()->map.Count(), 8u);
}

TEST(RangeAllocationTest, UnknownFieldsOfTheMessageAreSkipped) {
  const std::string raw = Field('\x0a', kEmptyObjectMeta) + Field('\x12', "30000-32767") +
                          Field('\x1a', "\x01") + std::string("\x20\x07", 2) +  // 4: varint
                          Field('\x2a', "xyz");                                 // 5: bytes
  std::string stored;
  api::codec::EncodeProtobufEnvelope("v1", "RangeAllocation", raw, &stored);
  auto json = RangeAllocationToJson(kPortsKey, stored);
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  Bitmap want(2768, 86);
  want.Allocate(0);
  EXPECT_EQ(*json, EncodeRangeRecord(kPortsKey, "30000-32767", want));
}

// kube-apiserver told to store JSON writes its own JSON; it reads as svcplane's record.
TEST(RangeAllocationTest, KubesJsonIsReadInSvcplanesForm) {
  ProtobufValueCodec codec;
  const std::string kube =
      "{\"kind\":\"RangeAllocation\",\"apiVersion\":\"v1\",\"metadata\":{\"creationTimestamp\":"
      "null},\"range\":\"10.0.0.0/24\",\"data\":\"AAI=\"}";  // 00 02: offset 1
  auto back = codec.Decode(kIpsKey, Bytes(kube));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  Bitmap want(254, 16);
  want.Allocate(1);
  EXPECT_EQ(**back, EncodeRangeRecord(kIpsKey, "10.0.0.0/24", want));
}

TEST(RangeAllocationTest, DamagedRecordsAreErrors) {
  ProtobufValueCodec codec;
  auto decode = [&](std::string bytes) { return codec.Decode(kIpsKey, Bytes(std::move(bytes))); };
  // A bit beyond the range (offset 254 of a /24), and bits for a range that does not parse.
  EXPECT_FALSE(
      decode(KubeBytes("10.0.0.0/24", std::string("\x40", 1) + std::string(31, '\0'))).ok());
  EXPECT_FALSE(decode(KubeBytes("ten/24", "\x01")).ok());
  // Another kind under the key, and a message cut short.
  std::string service;
  api::codec::EncodeProtobufEnvelope("v1", "Service", "", &service);
  auto wrong = decode(service);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("expected v1 RangeAllocation"), std::string::npos)
      << wrong.status().message();
  std::string cut;
  api::codec::EncodeProtobufEnvelope("v1", "RangeAllocation",
                                     "\x12\x05"
                                     "10.0",
                                     &cut);
  EXPECT_FALSE(decode(cut).ok());
  // svcplane's own record naming an offset its range does not have cannot be stored.
  Bitmap big(300, 0);
  big.Allocate(299);
  EXPECT_FALSE(codec.Encode(kIpsKey, Bytes(EncodeRangeRecord(kIpsKey, "10.0.0.0/24", big))).ok());
  // An empty map needs no range it understands.
  EXPECT_TRUE(decode(KubeBytes("", "")).ok());
}

}  // namespace
}  // namespace svcplane::apiserver::storage_codec
