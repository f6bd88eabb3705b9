#pragma once

// Every acknowledged write waits for one fdatasync of the WAL. When that sync follows an append
// it must also write the inode (the file grew) and the block allocation: on this project's
// reference VM (ext4, virtio disk) 130-160 us at the median and 2.5-4 ms at p99 for 16 KB,
// against ~80 us when the same bytes overwrite blocks already written. RocksDB would reuse old
// WAL files for exactly this (recycle_log_file_num), but 7.8 turns that off under every
// recovery mode we can use. bench/wal_bench.cc measures the difference through the store.
//
// So a background thread keeps a spare file of zeros, written and synced, beside the WAL; a
// new WAL file is that spare renamed (RocksDB syncs the directory before the first write to a
// new WAL is acknowledged), and each group commit overwrites zeros already on disk. Zeroing a
// spare rather than the tail of the live WAL keeps those zeros out of the live file's syncs.
// A crash image then ends in zeros, which RocksDB's recovery reads through this file system:
// it sees each WAL only up to WalContentEnd (wal_tail.h).

#include <rocksdb/file_system.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace rocksdb {
class Env;
}

namespace svcplane::storage::rocks::internal {

// Forwards everything to `target` except creating WAL files (*.log, all in `dir`), which become
// the prepared spare when one is ready (else a plain file, as without this wrapper), and reading
// them back, which ends at their content. `spare_bytes` 0: no spares, WALs are appended.
class PrewrittenWalFileSystem final : public rocksdb::FileSystemWrapper {
 public:
  PrewrittenWalFileSystem(std::shared_ptr<rocksdb::FileSystem> target, std::string dir,
                          uint64_t spare_bytes);
  ~PrewrittenWalFileSystem() override;

  const char* Name() const override { return "SvcplanePrewrittenWal"; }

  rocksdb::IOStatus NewWritableFile(const std::string& fname, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override;

  rocksdb::IOStatus NewSequentialFile(const std::string& fname, const rocksdb::FileOptions& options,
                                      std::unique_ptr<rocksdb::FSSequentialFile>* result,
                                      rocksdb::IODebugContext* dbg) override;

  // Waits until the preparer is done with what it was asked for; whether a spare is ready
  // (tests: the next WAL is then certainly pre-written).
  bool WaitForSpareForTest();

 private:
  void PrepareLoop();
  bool RoomForSpare() const;
  int PrepareSpare();  // writes and syncs the spare; 0 or an errno

  const std::string dir_;
  const std::string spare_path_;
  const uint64_t spare_bytes_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool wanted_ = false;       // guarded by mu_; a WAL was created since the last attempt
  bool preparing_ = false;    // guarded by mu_
  bool spare_ready_ = false;  // guarded by mu_
  bool failed_ = false;       // guarded by mu_; after an I/O error, WALs are plain files
  bool stopping_ = false;     // guarded by mu_
  std::thread preparer_;      // started (under mu_) with the first WAL
};

// The file name of the spare inside a store folder (not a name RocksDB uses).
inline constexpr char kWalSpareName[] = "wal.spare";

// An Env over the default file system with pre-written WALs in `dir`, each spare `spare_bytes`
// long. RocksDB keeps a raw pointer to its Env: it must outlive the database.
std::unique_ptr<rocksdb::Env> NewPrewrittenWalEnv(const std::string& dir, uint64_t spare_bytes);

}  // namespace svcplane::storage::rocks::internal
