#include "storage/snapshot/restore.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <vector>

#include "storage/memory/memory_store.h"
#include "storage/rocks/rocks_store.h"
#include "storage/snapshot/exporter.h"
#include "storage/testing/temp_dir.h"

namespace svcplane::storage::snapshot {
namespace {

class RestoreTest : public ::testing::Test {
 protected:
  // A source store whose key order and revision order differ, with updates and a delete.
  void SetUp() override {
    for (const char* k : {"d", "b", "e", "a", "c"}) Create(std::string("/registry/") + k, k);
    Update("/registry/b", "b2");
    Update("/registry/d", "d2");
    auto e = source_.Get("/registry/e");
    ASSERT_TRUE(source_.Delete(e->key, e->mod_revision).ok());
    Create("/registry/f", "f");
    Update("/registry/a", "a2");
  }

  void Create(const std::string& key, const std::string& v) {
    ASSERT_TRUE(source_.Create(key, MakeValue(v)).ok());
  }
  void Update(const std::string& key, const std::string& v) {
    auto cur = source_.Get(key);
    ASSERT_TRUE(cur.ok());
    ASSERT_TRUE(source_.Update(key, MakeValue(v), cur->mod_revision).ok());
  }

  // Saves the source to a file, as the server does.
  std::string Save() {
    auto ex = Exporter::Start(source_, "/registry/", 2);
    EXPECT_TRUE(ex.ok());
    std::string bytes;
    while ((*ex)->Next(&bytes)) {
    }
    const std::string path = dir_.path() + "/snap";
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    return path;
  }

  std::vector<KeyValue> All(Store& s) {
    auto l = s.List({.prefix = "/registry/"});
    EXPECT_TRUE(l.ok()) << l.status().ToString();
    return l.ok() ? l->items : std::vector<KeyValue>{};
  }

  memory::MemoryStore source_;
  testing::TempDir dir_;
};

TEST_F(RestoreTest, RevisionOrderFollowsModRevisions) {
  auto snap = VerifiedSnapshot::Load(Save());
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ(snap->records(), 5u);
  EXPECT_EQ(snap->header().revision, source_.CurrentRevision());
  auto source = snap->InRevisionOrder();
  ASSERT_TRUE(source.ok());
  std::vector<std::string> keys;
  Revision last = 0;
  while (true) {
    auto next = (*source)();
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    if (!next->has_value()) break;
    EXPECT_GT((*next)->mod_revision, last);
    last = (*next)->mod_revision;
    keys.push_back((*next)->key);
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"/registry/c", "/registry/b", "/registry/d",
                                            "/registry/f", "/registry/a"}));
}

TEST_F(RestoreTest, WritingThroughAStoreKeepsTheOrderOfModRevisions) {
  auto snap = VerifiedSnapshot::Load(Save());
  ASSERT_TRUE(snap.ok());
  memory::MemoryStore target;
  ASSERT_TRUE(target.Create("/elsewhere", MakeValue("x")).ok());  // revisions differ from here on
  ASSERT_TRUE(CheckEmpty(target, "/registry/").ok());
  std::vector<uint64_t> progress;
  auto stats = WriteInRevisionOrder(
      *snap, target, [&](uint64_t n) { progress.push_back(n); }, 2);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->records, 5u);
  EXPECT_EQ(stats->first_revision, 2);
  EXPECT_EQ(stats->last_revision, 6);
  EXPECT_EQ(progress, (std::vector<uint64_t>{2, 4}));

  const auto want = All(source_), got = All(target);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].key, want[i].key);
    EXPECT_EQ(*got[i].value, *want[i].value);
    for (size_t j = 0; j < got.size(); ++j) {
      EXPECT_EQ(got[i].mod_revision < got[j].mod_revision,
                want[i].mod_revision < want[j].mod_revision)
          << got[i].key << " vs " << got[j].key;
    }
  }

  auto again = CheckEmpty(target, "/registry/");
  EXPECT_EQ(again.code(), Code::kAlreadyExists);
  EXPECT_NE(again.message().find("\"/registry/a\" and 4 more"), std::string::npos)
      << again.message();
}

TEST_F(RestoreTest, DamagedFileIsRefusedBeforeAnyWrite) {
  const std::string path = Save();
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  bytes[bytes.find("d2")] = 'D';
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  auto snap = VerifiedSnapshot::Load(path);
  ASSERT_FALSE(snap.ok());
  EXPECT_NE(snap.status().message().find("checksum mismatch"), std::string::npos);
}

TEST_F(RestoreTest, RocksImportKeepsExactRevisions) {
  auto snap = VerifiedSnapshot::Load(Save());
  ASSERT_TRUE(snap.ok());
  auto source = snap->InKeyOrder();
  ASSERT_TRUE(source.ok());
  rocks::RocksStoreOptions ro;
  ro.path = dir_.path() + "/store";
  const Revision at = snap->header().revision;
  ASSERT_TRUE(rocks::RocksStore::Import(ro, at, *source).ok());

  auto opened = rocks::RocksStore::Open(ro);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  rocks::RocksStore& target = **opened;
  EXPECT_EQ(target.CurrentRevision(), at);
  EXPECT_EQ(target.CompactedRevision(), at);
  const auto want = All(source_), got = All(target);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].key, want[i].key);
    EXPECT_EQ(*got[i].value, *want[i].value);
    EXPECT_EQ(got[i].create_revision, want[i].create_revision);
    EXPECT_EQ(got[i].mod_revision, want[i].mod_revision);
  }
  // Writes continue above the snapshot's revision; history before it is gone.
  auto created = target.Create("/registry/g", MakeValue("g"));
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(created->mod_revision, at + 1);
  EXPECT_EQ(target.Watch("/registry/", at - 1, {}).status().code(), Code::kGone);
  EXPECT_TRUE(target.Watch("/registry/", at, {}).ok());
  target.Close();

  // Only into a new folder.
  auto again = snap->InKeyOrder();
  Status st = rocks::RocksStore::Import(ro, at, *again);
  EXPECT_EQ(st.code(), Code::kAlreadyExists);
  EXPECT_NE(st.message().find("exists and is not empty"), std::string::npos) << st.message();
}

TEST_F(RestoreTest, RocksImportOfBadRecordsLeavesNoStore) {
  rocks::RocksStoreOptions ro;
  ro.path = dir_.path() + "/store";
  std::vector<KeyValue> kvs = {{"/registry/a", MakeValue("a"), 1, 1},
                               {"/registry/b", MakeValue("b"), 2, 9}};  // past revision 5
  size_t i = 0;
  Status st = rocks::RocksStore::Import(ro, 5, [&]() -> Result<std::optional<KeyValue>> {
    if (i == kvs.size()) return std::optional<KeyValue>();
    return std::optional<KeyValue>(kvs[i++]);
  });
  EXPECT_EQ(st.code(), Code::kBadRequest);
  EXPECT_FALSE(std::filesystem::exists(ro.path));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_.path()), {}), 0);
}

}  // namespace
}  // namespace svcplane::storage::snapshot
