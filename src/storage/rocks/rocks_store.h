#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <variant>

#include "storage/internal/versioned_map.h"
#include "storage/store.h"

namespace rocksdb {
class DB;
class Env;
}  // namespace rocksdb

namespace svcplane::storage::rocks {

struct RocksStoreOptions {
  std::string path;  // the data folder; created if missing, must be empty or ours
  internal::HistoryOptions history;
  // How often history is trimmed by age and compaction is persisted without writes.
  std::chrono::milliseconds maintenance_interval = std::chrono::seconds(1);
  // Upper bound on requests per group commit (one WriteBatch, one WAL sync).
  size_t max_group = 4096;
  // How often forgotten history is compacted away on disk (like the apiserver's etcd
  // compaction interval). RocksDB's own leveled compaction handles overwritten keys.
  std::chrono::milliseconds compaction_interval = std::chrono::minutes(5);
  // RocksDB memtable size; the WAL is dropped once a memtable is flushed. Every live value is
  // also in memory in the store's own map, so memtables are pure overhead: kept small.
  size_t memtable_bytes = 32 << 20;
  // WAL files are written ahead with zeros so that each commit's sync overwrites blocks already
  // on disk (internal/prewritten_wal.h). Off only to measure what it gains.
  bool prewritten_wal = true;
  // A Create or Update whose key and value are larger than this is refused with
  // RequestEntityTooLarge "etcdserver: request is too large", as etcd refuses it under its
  // default --max-request-bytes (1.5 MiB), so objects that fit here fit on etcd too.
  size_t max_request_bytes = 1572864;
};

// The embedded durable Store on RocksDB. Every write that returns OK has been synced to the
// WAL (fdatasync) first; concurrent writers share one sync: one thread at a time checks
// preconditions, assigns consecutive revisions and writes one batch per group. That thread is
// the writer itself when nobody is committing, else the committer thread, which takes what
// queued up meanwhile.
// All committed state is also held in memory (internal::VersionedMap), so reads and watches
// never touch the disk; the disk holds latest values, the current and compacted revisions and
// the bounded watch history, so revisions and resumable watches survive restarts.
//
// The folder is locked (RocksDB's LOCK file): a second Open on it fails until Close.
class RocksStore final : public Store {
 public:
  // Errors: Unavailable if the folder cannot be created/written, is locked by another process,
  // holds files that are not a store, or the store is corrupt or has missing files.
  static Result<std::unique_ptr<RocksStore>> Open(RocksStoreOptions options);
  ~RocksStore() override;

  // The keys of an imported store, in ascending key order: the next one, nullopt at the end.
  using ImportSource = std::function<Result<std::optional<KeyValue>>()>;
  // Creates a new store in options.path (missing or an empty folder, else AlreadyExists)
  // holding exactly `records`, with the create and mod revisions they carry, at current
  // revision `revision` (>= every mod revision). The new store has no watch history: its
  // compacted revision is `revision` too, so older reads and watches get Gone and clients
  // relist, while revisions it hands out continue above `revision`. All or nothing: the store
  // appears whole with one rename, or not at all. BadRequest for records out of order or with
  // revisions out of bounds, or the source's error.
  //
  // A static of this backend rather than a storage-wide interface: it is the only backend that
  // can take revisions as given (etcd numbers every write itself), which is what lets a snapshot
  // restore keep every resourceVersion as it was.
  static Status Import(const RocksStoreOptions& options, Revision revision,
                       const ImportSource& records);

  Result<KeyValue> Get(std::string_view key) override;
  Result<ListResult> List(const ListOptions& options) override;
  Result<KeyValue> Create(std::string_view key, std::shared_ptr<const std::string> value) override;
  Result<KeyValue> Update(std::string_view key, std::shared_ptr<const std::string> value,
                          Revision expected_mod_revision) override;
  Result<KeyValue> Delete(std::string_view key, Revision expected_mod_revision) override;
  Result<std::unique_ptr<storage::WatchStream>> Watch(std::string_view prefix,
                                                      Revision after_revision,
                                                      const WatchOptions& options) override;
  Status Compact(Revision revision) override;
  Revision CurrentRevision() override;
  Revision CompactedRevision() override;

  // Waits for in-flight writes, stops the committer and closes the database.
  void Close();

  // Moves the memtable into an SST file, so tests can damage table files.
  Status FlushForTest();
  // Bytes of table files plus WAL files on disk right now.
  uint64_t DiskBytesForTest();

 private:
  Status CheckRequestSize(std::string_view key, const std::string* value) const;
  struct CompactRequest {
    Revision revision;
  };
  struct Pending {
    std::variant<internal::WriteRequest, CompactRequest> request;
    std::promise<Result<KeyValue>> done;
    std::function<void()> resume;  // a suspended submitter's Resumer, or empty

    void Answer(Result<KeyValue> result) {
      done.set_value(std::move(result));
      if (resume) resume();
    }
  };

  RocksStore(RocksStoreOptions options, std::unique_ptr<rocksdb::Env> env,
             std::unique_ptr<rocksdb::DB> db);
  Status Load();
  Result<KeyValue> Submit(std::variant<internal::WriteRequest, CompactRequest> request);
  void TakeGroupLocked(std::deque<Pending>& group);  // requires mu_
  void EndCommit();                                  // after a submitting thread committed a group
  void CommitLoop();
  void CommitGroup(std::deque<Pending>& group);
  void CompactLoop();

  // Constant after construction.
  const RocksStoreOptions options_;
  const internal::WallClock now_;
  std::unique_ptr<rocksdb::Env> env_;  // outlives db_
  std::unique_ptr<rocksdb::DB> db_;
  internal::VersionedMap map_;

  std::mutex mu_;
  std::condition_variable cv_;          // wakes the committer
  std::condition_variable compact_cv_;  // wakes the compactor (on close)
  std::deque<Pending> queue_;           // guarded by mu_
  bool closing_ = false;                // guarded by mu_
  // A thread (the committer or a submitting one) is inside CommitGroup; at most one is, which
  // keeps planning, revisions and map updates single-writer.
  bool committing_ = false;       // guarded by mu_
  bool committer_waits_ = false;  // guarded by mu_; the committer waits for committing_ to end
  Status failed_;                 // guarded by mu_; set once a write failed, then sticky

  // Written by the committing thread only (see committing_); the compactor reads it.
  std::atomic<Revision> persisted_compacted_{0};
  std::thread committer_;
  std::thread compactor_;
};

}  // namespace svcplane::storage::rocks
