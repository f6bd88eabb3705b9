#include "storage/rocks/internal/prewritten_wal.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "storage/rocks/internal/wal_tail.h"
#include "storage/testing/temp_dir.h"

namespace svcplane::storage::rocks::internal {
namespace {

namespace fs = std::filesystem;

constexpr int kValues = 300;  // ~900 KB of WAL

std::string Key(int i) { return "key" + std::to_string(i); }
std::string Value(int i) { return std::string(3000, static_cast<char>('a' + i % 26)); }

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void WriteFile(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

// The WAL being written: RocksDB numbers files in creation order, and an older WAL whose
// memtable was flushed may not have been deleted yet.
fs::path NewestWal(const fs::path& dir) {
  fs::path wal;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".log") continue;
    if (wal.empty() || e.path().filename().string() > wal.filename().string()) wal = e.path();
  }
  EXPECT_FALSE(wal.empty()) << "no WAL in " << dir;
  return wal;
}

// A RocksDB with the store's recovery settings over the pre-writing file system. The test
// copies its folder while it is open: after a synced write, that copy is what a kill -9 (or a
// power cut) at that moment leaves on disk.
class PrewrittenWalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    live_ = fs::path(dir_.path()) / "live";
    image_ = fs::path(dir_.path()) / "image";
    fs::create_directories(live_);
    UseSpareBytes(4 << 20);
  }

  void UseSpareBytes(uint64_t bytes) {
    env_.reset();
    fs_ = std::make_shared<PrewrittenWalFileSystem>(rocksdb::FileSystem::Default(), live_.string(),
                                                    bytes);
    env_ = rocksdb::NewCompositeEnv(fs_);
  }

  rocksdb::Options StoreOptions(bool create) {
    rocksdb::Options o;
    o.env = env_.get();
    o.create_if_missing = create;
    o.paranoid_checks = true;
    o.wal_recovery_mode = rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
    return o;
  }

  // Opens the live store and moves it to a WAL made from a spare (the first WAL, created while
  // the first spare is still being written, is a plain file).
  std::unique_ptr<rocksdb::DB> OpenLiveOnSpare() {
    rocksdb::DB* raw = nullptr;
    EXPECT_TRUE(rocksdb::DB::Open(StoreOptions(true), live_.string(), &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    EXPECT_TRUE(fs_->WaitForSpareForTest());
    rocksdb::WriteOptions wo;
    wo.sync = true;
    EXPECT_TRUE(db->Put(wo, "first", "x").ok());
    EXPECT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());  // a new memtable, a new WAL
    return db;
  }

  // Writes `last` after kValues ordinary values, each synced, then copies the folder.
  void WriteAndTakeImage(const std::string& last) {
    std::unique_ptr<rocksdb::DB> db = OpenLiveOnSpare();
    rocksdb::WriteOptions wo;
    wo.sync = true;
    for (int i = 0; i < kValues; ++i) ASSERT_TRUE(db->Put(wo, Key(i), Value(i)).ok());
    ASSERT_TRUE(db->Put(wo, "last", last).ok());
    fs::copy(live_, image_, fs::copy_options::recursive);
    fs::remove(image_ / kWalSpareName);  // as a restart does
  }

  // Opens the crash image as the store would (through the file system that reads WALs up to
  // their content), or with RocksDB's plain file system.
  rocksdb::Status OpenImage(std::unique_ptr<rocksdb::DB>& db, bool plain = false) {
    image_env_ = NewPrewrittenWalEnv(image_.string(), 0);
    rocksdb::Options o = StoreOptions(false);
    o.env = plain ? rocksdb::Env::Default() : image_env_.get();
    rocksdb::DB* raw = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(o, image_.string(), &raw);
    db.reset(raw);
    return s;
  }

  void ExpectOrdinaryValues(rocksdb::DB& db) {
    std::string v;
    for (int i = 0; i < kValues; ++i) {
      ASSERT_TRUE(db.Get({}, Key(i), &v).ok()) << Key(i);
      ASSERT_EQ(v, Value(i)) << Key(i);
    }
  }

  storage::testing::TempDir dir_;
  std::shared_ptr<PrewrittenWalFileSystem> fs_;
  std::unique_ptr<rocksdb::Env> env_, image_env_;
  fs::path live_, image_;
};

TEST_F(PrewrittenWalTest, SyncedWritesSurviveACrashImageEndingInZeros) {
  WriteAndTakeImage("the end");
  const std::string wal = ReadFile(NewestWal(image_));
  ASSERT_EQ(wal.back(), '\0') << "the WAL was not written ahead";
  std::unique_ptr<rocksdb::DB> db;
  ASSERT_TRUE(OpenImage(db).ok());
  ExpectOrdinaryValues(*db);
  std::string v;
  ASSERT_TRUE(db->Get({}, "last", &v).ok());
  EXPECT_EQ(v, "the end");
}

// The last write tore (its tail never reached the disk) and zeros follow it. Read as it is,
// RocksDB calls that a checksum mismatch inside the log and refuses to open; read up to its
// content, it drops the torn record as it drops one at the end of an appended file.
TEST_F(PrewrittenWalTest, TornLastWriteIsDroppedInsteadOfFailingTheOpen) {
  WriteAndTakeImage(std::string(5000, 'z'));
  const fs::path wal_path = NewestWal(image_);
  std::string wal = ReadFile(wal_path);
  const size_t content_end = wal.find_last_not_of('\0') + 1;
  for (size_t i = content_end - 1000; i < content_end; ++i) wal[i] = '\0';
  WriteFile(wal_path, wal);

  std::unique_ptr<rocksdb::DB> db;
  rocksdb::Status plain = OpenImage(db, /*plain=*/true);
  EXPECT_TRUE(plain.IsCorruption()) << plain.ToString();
  db.reset();

  rocksdb::Status s = OpenImage(db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectOrdinaryValues(*db);
  std::string v;
  EXPECT_TRUE(db->Get({}, "last", &v).IsNotFound());
}

// The last record's own bytes end in zeros: the cut must follow the record, not the last
// non-zero byte, or an acknowledged write would be lost.
TEST_F(PrewrittenWalTest, RecordEndingInZerosIsKeptWhole) {
  const std::string last = std::string(2000, 'y') + std::string(3000, '\0');
  WriteAndTakeImage(last);
  std::unique_ptr<rocksdb::DB> db;
  ASSERT_TRUE(OpenImage(db).ok());
  ExpectOrdinaryValues(*db);
  std::string v;
  ASSERT_TRUE(db->Get({}, "last", &v).ok());
  EXPECT_EQ(v, last);
}

TEST_F(PrewrittenWalTest, DamageBeforeTheEndStillFailsTheOpen) {
  WriteAndTakeImage("the end");
  const fs::path wal_path = NewestWal(image_);
  std::string wal = ReadFile(wal_path);
  wal[5000] ^= 0x55;  // inside the second value
  WriteFile(wal_path, wal);
  std::unique_ptr<rocksdb::DB> db;
  EXPECT_TRUE(OpenImage(db).IsCorruption());
}

TEST_F(PrewrittenWalTest, WritesPastTheSpareAreAppended) {
  UseSpareBytes(256 << 10);
  WriteAndTakeImage("the end");
  std::unique_ptr<rocksdb::DB> db;
  ASSERT_TRUE(OpenImage(db).ok());
  ExpectOrdinaryValues(*db);
}

TEST_F(PrewrittenWalTest, ClosedWalKeepsOnlyItsContent) {
  std::unique_ptr<rocksdb::DB> db = OpenLiveOnSpare();
  rocksdb::WriteOptions wo;
  wo.sync = true;
  ASSERT_TRUE(db->Put(wo, "k", "v").ok());
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());  // the spare-made WAL is closed
  ASSERT_TRUE(db->Close().ok());
  db.reset();
  for (const auto& e : fs::directory_iterator(live_)) {
    if (e.path().extension() != ".log") continue;
    const std::string wal = ReadFile(e.path());
    EXPECT_TRUE(wal.empty() || wal.back() != '\0') << e.path() << " kept its pre-written zeros";
  }
}

TEST(WalContentEndTest, AppendedFileNeedsNoCut) {
  EXPECT_EQ(WalContentEnd(""), std::nullopt);
  EXPECT_EQ(WalContentEnd(std::string(100, '\0')), 0u);
}

}  // namespace
}  // namespace svcplane::storage::rocks::internal
