#include "storage/snapshot/exporter.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <vector>

#include "storage/memory/memory_store.h"
#include "storage/testing/temp_dir.h"

namespace svcplane::storage::snapshot {
namespace {

struct Read {
  Header header;
  std::vector<KeyValue> kvs;
};

class ExporterTest : public ::testing::Test {
 protected:
  void Put(const std::string& key, const std::string& value) {
    auto cur = store_.Get(key);
    auto r = cur.ok() ? store_.Update(key, MakeValue(value), cur->mod_revision)
                      : store_.Create(key, MakeValue(value));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  // Writes `bytes` to a file and reads it back whole.
  Result<Read> Decode(const std::string& bytes) {
    const std::string path = dir_.path() + "/snap";
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    auto r = Reader::Open(path);
    if (!r.ok()) return r.status();
    Read out{(*r)->header(), {}};
    while (true) {
      auto next = (*r)->Next();
      if (!next.ok()) return next.status();
      if (!next->has_value()) return out;
      out.kvs.push_back(std::move(**next));
    }
  }

  // Lists the prefix at `revision` in one page: what a snapshot at that revision must hold.
  std::vector<KeyValue> StateAt(Revision revision) {
    auto l =
        store_.List({.prefix = "/registry/", .revision = revision, .match = RevisionMatch::kExact});
    EXPECT_TRUE(l.ok()) << l.status().ToString();
    return l.ok() ? l->items : std::vector<KeyValue>{};
  }

  static void ExpectSame(const std::vector<KeyValue>& got, const std::vector<KeyValue>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].key, want[i].key);
      EXPECT_EQ(*got[i].value, *want[i].value) << got[i].key;
      EXPECT_EQ(got[i].create_revision, want[i].create_revision) << got[i].key;
      EXPECT_EQ(got[i].mod_revision, want[i].mod_revision) << got[i].key;
    }
  }

  memory::MemoryStore store_;
  testing::TempDir dir_;
};

TEST_F(ExporterTest, PagesShowOneRevisionWhileWritesGoOn) {
  for (int i = 0; i < 20; ++i) Put("/registry/k" + std::to_string(100 + i), "v0");
  Put("/outside/x", "not exported");
  auto ex = Exporter::Start(store_, "/registry/", 3);
  ASSERT_TRUE(ex.ok()) << ex.status().ToString();
  const Revision at = (*ex)->revision();
  EXPECT_EQ(at, store_.CurrentRevision());

  std::string bytes;
  int i = 0;
  while ((*ex)->Next(&bytes)) {
    // Between pages: update keys on both sides of the page boundary, delete one, add one.
    Put("/registry/k" + std::to_string(100 + (i * 7) % 20), "changed");
    Put("/registry/k0" + std::to_string(i), "new");
    auto victim = store_.Get("/registry/k" + std::to_string(119 - i));
    if (victim.ok()) {
      ASSERT_TRUE(store_.Delete(victim->key, victim->mod_revision).ok());
    }
    ++i;
  }
  ASSERT_TRUE((*ex)->status().ok()) << (*ex)->status().ToString();
  EXPECT_GE(i, 6);
  EXPECT_EQ((*ex)->records(), 20u);

  auto read = Decode(bytes);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->header.revision, at);
  EXPECT_EQ(read->header.prefix, "/registry/");
  ExpectSame(read->kvs, StateAt(at));
}

TEST_F(ExporterTest, EmptyPrefixGivesAnEmptySnapshot) {
  Put("/outside/x", "v");
  auto ex = Exporter::Start(store_, "/registry/", 100);
  ASSERT_TRUE(ex.ok());
  std::string bytes;
  EXPECT_FALSE((*ex)->Next(&bytes));
  auto read = Decode(bytes);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_TRUE(read->kvs.empty());
  EXPECT_EQ(read->header.revision, 1);
}

TEST_F(ExporterTest, RevisionCompactedMidwayEndsWithAnErrorRecord) {
  for (int i = 0; i < 10; ++i) Put("/registry/k" + std::to_string(i), "v");
  auto ex = Exporter::Start(store_, "/registry/", 4);
  ASSERT_TRUE(ex.ok());
  std::string bytes;
  ASSERT_TRUE((*ex)->Next(&bytes));
  Put("/registry/k9", "later");
  ASSERT_TRUE(store_.Compact(store_.CurrentRevision()).ok());
  EXPECT_FALSE((*ex)->Next(&bytes));
  EXPECT_EQ((*ex)->status().code(), Code::kGone);
  EXPECT_FALSE((*ex)->Next(&bytes));

  auto read = Decode(bytes);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), Code::kUnavailable);
  EXPECT_NE(read.status().message().find("is incomplete"), std::string::npos)
      << read.status().message();
  EXPECT_NE(read.status().message().find("too old"), std::string::npos) << read.status().message();
}

}  // namespace
}  // namespace svcplane::storage::snapshot
