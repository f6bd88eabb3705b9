#include "storage/snapshot/snapshot_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "storage/store.h"
#include "storage/testing/temp_dir.h"

namespace svcplane::storage::snapshot {
namespace {

KeyValue Kv(std::string key, std::string value, Revision create, Revision mod) {
  return KeyValue{std::move(key), MakeValue(std::move(value)), create, mod};
}

class SnapshotFileTest : public ::testing::Test {
 protected:
  std::string path() const { return dir_.path() + "/snap"; }

  void WriteFile(const std::string& bytes) {
    std::ofstream out(path(), std::ios::binary | std::ios::trunc);
    out << bytes;
  }

  // A whole snapshot of `kvs` at `revision`.
  static std::string Encode(const std::vector<KeyValue>& kvs, Revision revision = 10) {
    Encoder e(Header{revision, "/registry/"});
    std::string out;
    e.AppendHeader(&out);
    for (const auto& kv : kvs) e.AppendRecord(kv, &out);
    e.AppendTrailer(&out);
    return out;
  }

  // Every record, or the first error.
  Result<std::vector<KeyValue>> ReadAll() {
    auto r = Reader::Open(path());
    if (!r.ok()) return r.status();
    std::vector<KeyValue> out;
    while (true) {
      auto next = (*r)->Next();
      if (!next.ok()) return next.status();
      if (!next->has_value()) return out;
      out.push_back(std::move(**next));
    }
  }

  std::vector<KeyValue> Sample() {
    return {Kv("/registry/namespaces/a", R"({"kind":"Namespace"})", 2, 2),
            Kv("/registry/pods/a/p", std::string(100'000, 'x'), 3, 9),
            Kv("/registry/ranges/serviceips", "", 1, 4)};
  }

  testing::TempDir dir_;
};

TEST_F(SnapshotFileTest, RoundTripKeepsEveryFieldAndOffsetsReadBack) {
  const auto kvs = Sample();
  WriteFile(Encode(kvs));
  auto r = Reader::Open(path());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->header().revision, 10);
  EXPECT_EQ((*r)->header().prefix, "/registry/");
  std::vector<uint64_t> offsets;
  for (const auto& want : kvs) {
    auto got = (*r)->Next();
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_TRUE(got->has_value());
    EXPECT_EQ((*got)->key, want.key);
    EXPECT_EQ(*(*got)->value, *want.value);
    EXPECT_EQ((*got)->create_revision, want.create_revision);
    EXPECT_EQ((*got)->mod_revision, want.mod_revision);
    offsets.push_back((*r)->last_offset());
  }
  auto end = (*r)->Next();
  ASSERT_TRUE(end.ok()) << end.status().ToString();
  EXPECT_FALSE(end->has_value());
  EXPECT_EQ((*r)->records(), 3u);
  EXPECT_EQ((*r)->sha256_hex().size(), 64u);

  auto second = (*r)->ReadAt(offsets[1]);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->key, kvs[1].key);
  EXPECT_EQ(*second->value, *kvs[1].value);
}

TEST_F(SnapshotFileTest, EmptySnapshotIsValid) {
  WriteFile(Encode({}, 0));
  auto all = ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_TRUE(all->empty());
}

TEST_F(SnapshotFileTest, EveryTruncationIsReportedAsSuch) {
  const std::string whole = Encode(Sample());
  const size_t header = whole.find('\n') + 1;
  for (size_t len = 0; len < whole.size(); len += (len < header + 64 ? 1 : 997)) {
    WriteFile(whole.substr(0, len));
    auto all = ReadAll();
    ASSERT_FALSE(all.ok()) << "cut at " << len;
    EXPECT_EQ(all.status().code(), Code::kInvalid) << len;
    const std::string& msg = all.status().message();
    if (len < header) {
      EXPECT_NE(msg.find("is not a svcplane snapshot"), std::string::npos) << len << ": " << msg;
    } else {
      EXPECT_NE(msg.find("is truncated"), std::string::npos) << len << ": " << msg;
    }
  }
  WriteFile(whole.substr(0, whole.size() - 1));  // the checksum's last byte
  auto all = ReadAll();
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.status().message().find("trailer at byte"), std::string::npos)
      << all.status().message();
}

TEST_F(SnapshotFileTest, FlippedValueByteIsAChecksumMismatch) {
  std::string bytes = Encode(Sample());
  bytes[bytes.find("Namespace")] = 'n';
  WriteFile(bytes);
  auto all = ReadAll();
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.status().code(), Code::kInvalid);
  EXPECT_NE(all.status().message().find("checksum mismatch"), std::string::npos)
      << all.status().message();
}

TEST_F(SnapshotFileTest, DamagedFramingIsRefusedBeforeAllocating) {
  std::string bytes = Encode(Sample());
  const size_t first = bytes.find('\n') + 1;
  bytes[first + 4] = '\x7f';  // the key length's top byte: a 2 GB key
  WriteFile(bytes);
  auto all = ReadAll();
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.status().message().find("is damaged"), std::string::npos) << all.status().message();

  bytes = Encode(Sample());
  bytes[first] = 'X';
  WriteFile(bytes);
  all = ReadAll();
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.status().message().find("unknown record type 0x58"), std::string::npos)
      << all.status().message();
}

TEST_F(SnapshotFileTest, BytesAfterTheTrailerAreRefused) {
  WriteFile(Encode(Sample()) + "x");
  auto all = ReadAll();
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.status().message().find("bytes follow its trailer"), std::string::npos)
      << all.status().message();
}

TEST_F(SnapshotFileTest, RecordsOutOfOrderOrPastTheRevisionAreRefused) {
  auto kvs = Sample();
  std::swap(kvs[0], kvs[1]);
  WriteFile(Encode(kvs));
  auto all = ReadAll();
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.status().message().find("is not after"), std::string::npos)
      << all.status().message();

  WriteFile(Encode({Kv("/registry/a", "v", 1, 11)}, 10));
  all = ReadAll();
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.status().message().find("outside prefix /registry/ or revision 10"),
            std::string::npos)
      << all.status().message();

  WriteFile(Encode({Kv("/other/a", "v", 1, 1)}, 10));
  EXPECT_FALSE(ReadAll().ok());
}

TEST_F(SnapshotFileTest, WritersErrorRecordIsReportedWithItsMessage) {
  Encoder e(Header{5, "/registry/"});
  std::string bytes;
  e.AppendHeader(&bytes);
  e.AppendRecord(Kv("/registry/a", "v", 1, 1), &bytes);
  Encoder::AppendError("Gone: revision 5 was compacted", &bytes);
  WriteFile(bytes);
  auto all = ReadAll();
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.status().code(), Code::kUnavailable);
  EXPECT_NE(all.status().message().find("is incomplete: its writer failed after 1 records: Gone: "
                                        "revision 5 was compacted"),
            std::string::npos)
      << all.status().message();
}

TEST_F(SnapshotFileTest, NotASnapshotOrAnotherVersion) {
  WriteFile("apiVersion: v1\nkind: Config\n");
  auto all = ReadAll();
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.status().message().find("is not a svcplane snapshot"), std::string::npos);

  std::string bytes = Encode(Sample());
  bytes.replace(bytes.find(" 1 "), 3, " 2 ");
  WriteFile(bytes);
  all = ReadAll();
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.status().message().find("of version \"2\"; this svcplane reads version 1"),
            std::string::npos)
      << all.status().message();

  auto missing = Reader::Open(dir_.path() + "/none");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
}

}  // namespace
}  // namespace svcplane::storage::snapshot
