#include "storage/rocks/rocks_store.h"

#include <fcntl.h>
#include <rocksdb/db.h>
#include <rocksdb/memtablerep.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

#include "base/check.h"
#include "base/suspend.h"
#include "base/thread_name.h"
#include "storage/rocks/internal/prewritten_wal.h"
#include "storage/rocks/internal/records.h"

namespace svcplane::storage::rocks {

namespace {

namespace fs = std::filesystem;
using namespace internal;  // NOLINT: record helpers
using storage::internal::HistoryEntry;
using storage::internal::WriteKind;
using storage::internal::WritePlanner;
using storage::internal::WriteRequest;

Status StartError(const std::string& path, const std::string& why) {
  return UnavailableError("cannot open store in \"" + path + "\": " + why);
}

// RocksDB's own diagnostics go to our log instead of a LOG file in the data folder: that file
// would fail first when the disk fills, and Debian's RocksDB asserts on a failed LOG write.
class SpdLogger final : public rocksdb::Logger {
 public:
  SpdLogger() : rocksdb::Logger(rocksdb::InfoLogLevel::WARN_LEVEL) {}
  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    char buf[1024];
    std::vsnprintf(buf, sizeof(buf), format, ap);
    // RocksDB's background file-summary dump of a newly created store can run after the store
    // was renamed into place (CreateStore) and then fails to list the old folder; harmless.
    if (std::strstr(buf, ".creating.") != nullptr) {
      spdlog::debug("rocksdb: {}", buf);
      return;
    }
    spdlog::warn("rocksdb: {}", buf);
  }
};

// Whether files in `path` (or, while it does not exist yet, in its parent) can be opened with
// O_DIRECT. Some filesystems refuse it, and RocksDB would then fail every flush.
bool FolderSupportsDirectIo(const std::string& path) {
  std::error_code ec;
  fs::path dir(path);
  if (!fs::is_directory(dir, ec)) dir = dir.parent_path();
  const std::string probe = (dir / (".direct-io-probe." + std::to_string(::getpid()))).string();
  const int fd = ::open(probe.c_str(), O_CREAT | O_WRONLY | O_DIRECT | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  ::close(fd);
  ::unlink(probe.c_str());
  return true;
}

rocksdb::Options DbOptions(const RocksStoreOptions& options) {
  rocksdb::Options o;
  o.info_log = std::make_shared<SpdLogger>();
  o.paranoid_checks = true;
  // A kill -9 can leave a half-written record at the WAL tail (never an acknowledged one, since
  // those were synced); anything damaged before the tail is corruption and fails the open.
  o.wal_recovery_mode = rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  o.max_background_jobs = 2;
  o.write_buffer_size = options.memtable_bytes;
  // Room for memtables waiting to flush, so a slow flush does not stall committing.
  o.max_write_buffer_number = 4;
  o.keep_log_file_num = 3;
  // Every live value is also in the store's own map, so RocksDB is read only at start-up: its
  // files are write-mostly, and compressing the memtable flushes and first compactions cost
  // ~3% of the server's CPU during a create storm (snappy in perf) for disk space that a
  // 100k-Pod store does not miss (~300 MB uncompressed). Deeper levels, which only a large
  // store reaches, stay compressed.
  o.compression_per_level = {rocksdb::kNoCompression, rocksdb::kNoCompression,
                             rocksdb::kSnappyCompression};
  o.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  // Memtable flushes and compactions write ~2.7 KB per created Pod through the page cache,
  // and on a VM copying into fresh page-cache pages cost as much as 10 us of kernel time per
  // create (copy_folio_from_iter_atomic in perf). Direct I/O skips the copy; the WAL is
  // unaffected (RocksDB always writes it buffered).
  o.use_direct_io_for_flush_and_compaction = FolderSupportsDirectIo(options.path);
  o.compaction_readahead_size = 2 << 20;
  // The memtable is never read while serving (only at start-up, after WAL replay: three Gets of
  // the m/ records and one iterator, each sorting a copy), so it need not stay sorted: a vector
  // takes each commit's puts by appending, and the flush thread sorts it once. The skiplist's
  // ordered inserts (~100k keys deep) were 12% of the committer thread's samples, and that thread
  // serialises every write.
  o.memtable_factory = std::make_shared<rocksdb::VectorRepFactory>();
  o.allow_concurrent_memtable_write = false;  // one committer writes; the vector requires it
  return o;
}

// Writes `records` into a store being created, with the revisions they carry, in batches of
// about 4 MiB (unsynced: the final batch's sync covers the WAL before it).
Status ImportRecords(rocksdb::DB& db, Revision revision, const RocksStore::ImportSource& records) {
  rocksdb::WriteBatch batch;
  uint64_t n = 0;
  std::string last_key;
  auto flush = [&]() -> Status {
    rocksdb::Status s = db.Write(rocksdb::WriteOptions(), &batch);
    batch.Clear();
    return s.ok() ? Status::Ok() : UnavailableError("cannot write imported keys: " + s.ToString());
  };
  while (true) {
    auto next = records();
    if (!next.ok()) return next.status();
    if (!next->has_value()) break;
    const KeyValue& kv = **next;
    // What Load would refuse later is refused now, while nothing is in place yet.
    if (kv.key.empty() || (n > 0 && kv.key <= last_key) || kv.create_revision <= 0 ||
        kv.create_revision > kv.mod_revision || kv.mod_revision > revision || !kv.value) {
      return BadRequestError("cannot import \"" + kv.key + "\" (created at " +
                             std::to_string(kv.create_revision) + ", modified at " +
                             std::to_string(kv.mod_revision) + ") at revision " +
                             std::to_string(revision) +
                             ": keys must ascend and 0 < created <= " + "modified <= revision");
    }
    batch.Put(LiveKey(kv.key), EncodeLive(kv));
    last_key = kv.key;
    ++n;
    if (batch.GetDataSize() >= (4 << 20)) SVC_RETURN_IF_ERROR(flush());
  }
  return batch.Count() > 0 ? flush() : Status::Ok();
}

// Creates a new store beside `path` and moves it into place with one rename, so a crash during
// creation never leaves a half-made store (RocksDB files without our format record, or without
// CURRENT) that the next start would have to refuse. With `records`, the new store holds them
// at current and compacted revision `revision` (RocksStore::Import).
Status CreateStore(const std::string& path, const RocksStoreOptions& options, Revision revision = 0,
                   const RocksStore::ImportSource* records = nullptr) {
  const fs::path target(path);
  const fs::path staging = target.string() + ".creating." + std::to_string(::getpid());
  std::error_code ec;
  fs::remove_all(staging, ec);
  fs::create_directories(target.parent_path(), ec);
  rocksdb::Options db_options = DbOptions(options);
  db_options.create_if_missing = true;
  db_options.error_if_exists = true;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(db_options, staging.string(), &raw);
  if (!s.ok()) return StartError(path, "cannot create a store: " + s.ToString());
  std::unique_ptr<rocksdb::DB> db(raw);
  auto abandon = [&](Status st) {
    db->Close().PermitUncheckedError();
    db.reset();
    fs::remove_all(staging, ec);
    return st;
  };
  if (records != nullptr) {
    Status imported = ImportRecords(*db, revision, *records);
    if (!imported.ok()) return abandon(imported);
  }
  rocksdb::WriteBatch init;
  init.Put(std::string(kFormatKey), std::string(kFormat));
  init.Put(std::string(kRevisionKey), EncodeRevision(revision));
  // No history comes with imported keys: watches and reads must start at `revision`.
  init.Put(std::string(kCompactedKey), EncodeRevision(revision));
  rocksdb::WriteOptions wo;
  wo.sync = true;
  s = db->Write(wo, &init);
  if (s.ok()) s = db->Close();
  db.reset();
  if (!s.ok()) {
    return abandon(StartError(path, "cannot initialise a store: " + s.ToString()));
  }
  // rename(2) replaces an empty directory atomically.
  fs::rename(staging, target, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove_all(staging, ec);
    return StartError(path, "cannot move the new store into place: " + why);
  }
  int dir = ::open(target.parent_path().c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return Status::Ok();
}

// Checks the folder before RocksDB sees it, so that the common mistakes get a plain message
// and a wrong folder is never silently initialised as a new, empty store. Creates the store if
// the folder is missing or empty.
Status PrepareFolder(const std::string& path, const RocksStoreOptions& options) {
  std::error_code ec;
  if (fs::exists(path, ec)) {
    if (!fs::is_directory(path, ec)) return StartError(path, "not a directory");
    if (::access(path.c_str(), W_OK) != 0) {
      return StartError(path, std::string("data folder is not writable: ") + std::strerror(errno));
    }
    if (fs::exists(fs::path(path) / "CURRENT", ec)) return Status::Ok();
    if (!fs::is_empty(path, ec)) {
      return StartError(path,
                        "data folder is not empty but holds no store (CURRENT file missing); "
                        "refusing to initialise over it");
    }
  }
  return CreateStore(path, options);
}

}  // namespace

Result<std::unique_ptr<RocksStore>> RocksStore::Open(RocksStoreOptions options) {
  SVC_RETURN_IF_ERROR(PrepareFolder(options.path, options));
  rocksdb::Options db_options = DbOptions(options);
  // Installed also when this start does not pre-write: an earlier one may have, and crashed. A
  // WAL holds about one memtable's writes; past the spare's end it is simply appended.
  std::unique_ptr<rocksdb::Env> env = NewPrewrittenWalEnv(
      options.path,
      options.prewritten_wal ? options.memtable_bytes + options.memtable_bytes / 4 : 0);
  db_options.env = env.get();
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(db_options, options.path, &raw);
  if (!s.ok()) {
    std::string why = s.ToString();
    if (s.IsIOError() && why.find("lock") != std::string::npos) {
      why = "data folder is in use by another process (" + why + ")";
    }
    return StartError(options.path, why);
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  std::unique_ptr<RocksStore> store(
      new RocksStore(std::move(options), std::move(env), std::move(db)));
  Status loaded = store->Load();
  if (!loaded.ok()) {
    store->Close();
    return StartError(store->options_.path, loaded.message());
  }
  store->committer_ = std::thread([s = store.get()] {
    NameThisThread("svc-commit");
    s->CommitLoop();
  });
  store->compactor_ = std::thread([s = store.get()] {
    NameThisThread("svc-compact");
    s->CompactLoop();
  });
  return store;
}

Status RocksStore::Import(const RocksStoreOptions& options, Revision revision,
                          const ImportSource& records) {
  std::error_code ec;
  if (fs::exists(options.path, ec) &&
      !(fs::is_directory(options.path, ec) && fs::is_empty(options.path, ec))) {
    return AlreadyExistsError("cannot import into \"" + options.path +
                              "\": it exists and is not empty (a store is imported only into a "
                              "new folder)");
  }
  if (revision < 0) return BadRequestError("cannot import at a negative revision");
  return CreateStore(options.path, options, revision, &records);
}

RocksStore::RocksStore(RocksStoreOptions options, std::unique_ptr<rocksdb::Env> env,
                       std::unique_ptr<rocksdb::DB> db)
    : options_(std::move(options)),
      now_(options_.history.now ? options_.history.now
                                : [] { return std::chrono::system_clock::now(); }),
      env_(std::move(env)),
      db_(std::move(db)),
      map_(options_.history) {}

RocksStore::~RocksStore() { Close(); }

// Rebuilds the in-memory state from disk; every record is read with checksums verified, so a
// damaged file fails the start instead of surfacing later.
Status RocksStore::Load() {
  rocksdb::ReadOptions ro;
  ro.verify_checksums = true;
  ro.fill_cache = false;
  std::string value;
  rocksdb::Status s = db_->Get(ro, std::string(kFormatKey), &value);
  if (!s.ok() || value != kFormat) {
    return InternalError("not a svcplane store or damaged (format record: " +
                         (s.ok() ? "\"" + value + "\"" : s.ToString()) + ")");
  }
  Revision current = 0, compacted = 0;
  for (auto [key, out] : {std::pair{kRevisionKey, &current}, {kCompactedKey, &compacted}}) {
    s = db_->Get(ro, std::string(key), &value);
    if (!s.ok()) return InternalError("missing " + std::string(key) + ": " + s.ToString());
    auto rev = DecodeRevision(value);
    if (!rev.ok()) return rev.status();
    *out = *rev;
  }
  if (compacted > current) return InternalError("compacted revision above current revision");

  std::vector<KeyValue> live;
  std::vector<HistoryEntry> history;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro));
  for (it->Seek(std::string(kLivePrefix)); it->Valid() && it->key().starts_with(kLivePrefix);
       it->Next()) {
    auto kv = DecodeLive(it->key().ToStringView(), it->value().ToStringView());
    if (!kv.ok()) return kv.status();
    if (kv->mod_revision > current) return InternalError("key revision above current revision");
    live.push_back(std::move(*kv));
  }
  if (!it->status().ok()) return InternalError("reading keys: " + it->status().ToString());
  Revision expect = compacted + 1;
  for (it->Seek(HistoryKey(compacted + 1)); it->Valid() && it->key().starts_with(kHistoryPrefix);
       it->Next()) {
    auto e = DecodeEvent(it->key().ToStringView(), it->value().ToStringView());
    if (!e.ok()) return e.status();
    // History is written with every commit, so it must be gapless up to the current revision.
    if (e->event->revision() != expect) {
      return InternalError("watch history has a gap at revision " + std::to_string(expect));
    }
    ++expect;
    history.push_back(std::move(*e));
  }
  if (!it->status().ok()) return InternalError("reading history: " + it->status().ToString());
  if (expect != current + 1) {
    return InternalError("watch history ends at " + std::to_string(expect - 1) +
                         " but the current revision is " + std::to_string(current));
  }
  SVC_RETURN_IF_ERROR(ResolveHistoryValues(live, history));
  persisted_compacted_.store(compacted);
  map_.Reset(std::move(live), std::move(history), current, compacted,
             UnavailableError("store reloaded"));
  return Status::Ok();
}

void RocksStore::Close() {
  {
    std::lock_guard lock(mu_);
    if (closing_ && !committer_.joinable() && !db_) return;
    closing_ = true;
  }
  cv_.notify_all();
  compact_cv_.notify_all();
  if (committer_.joinable()) committer_.join();
  if (compactor_.joinable()) compactor_.join();
  if (db_) {
    db_->Close().PermitUncheckedError();
    db_.reset();
  }
}

// Deleted history stays on disk as range tombstones until compaction meets them; compacting
// just that key range every interval keeps the folder from growing under churn.
void RocksStore::CompactLoop() {
  Revision done = persisted_compacted_.load();
  std::unique_lock lock(mu_);
  while (!closing_) {
    compact_cv_.wait_for(lock, options_.compaction_interval);
    if (closing_) break;
    const Revision upto = persisted_compacted_.load();
    if (upto <= done) continue;
    lock.unlock();
    const std::string begin(kHistoryPrefix), end = HistoryKey(upto + 1);
    const rocksdb::Slice b(begin), e(end);
    rocksdb::CompactRangeOptions o;
    o.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    rocksdb::Status s = db_->CompactRange(o, &b, &e);
    if (!s.ok()) spdlog::warn("rocks store: history compaction failed: {}", s.ToString());
    done = upto;
    lock.lock();
  }
}

uint64_t RocksStore::DiskBytesForTest() {
  uint64_t total = 0;
  for (auto& e : fs::directory_iterator(options_.path)) {
    const auto ext = e.path().extension();
    if (ext == ".sst" || ext == ".log") total += e.file_size();
  }
  return total;
}

Status RocksStore::FlushForTest() {
  rocksdb::Status s = db_->Flush(rocksdb::FlushOptions());
  return s.ok() ? Status::Ok() : UnavailableError(s.ToString());
}

Result<KeyValue> RocksStore::Get(std::string_view key) { return map_.Get(key); }

Result<ListResult> RocksStore::List(const ListOptions& options) { return map_.List(options); }

Status RocksStore::CheckRequestSize(std::string_view key, const std::string* value) const {
  if (value != nullptr && key.size() + value->size() > options_.max_request_bytes) {
    return Status(Code::kRequestEntityTooLarge, "etcdserver: request is too large");
  }
  return Status::Ok();
}

Result<KeyValue> RocksStore::Create(std::string_view key,
                                    std::shared_ptr<const std::string> value) {
  SVC_RETURN_IF_ERROR(CheckRequestSize(key, value.get()));
  return Submit(WriteRequest{WriteKind::kCreate, std::string(key), std::move(value), 0});
}

Result<KeyValue> RocksStore::Update(std::string_view key, std::shared_ptr<const std::string> value,
                                    Revision expected_mod_revision) {
  SVC_RETURN_IF_ERROR(CheckRequestSize(key, value.get()));
  return Submit(
      WriteRequest{WriteKind::kUpdate, std::string(key), std::move(value), expected_mod_revision});
}

Result<KeyValue> RocksStore::Delete(std::string_view key, Revision expected_mod_revision) {
  return Submit(WriteRequest{WriteKind::kDelete, std::string(key), nullptr, expected_mod_revision});
}

Result<std::unique_ptr<storage::WatchStream>> RocksStore::Watch(std::string_view prefix,
                                                                Revision after_revision,
                                                                const WatchOptions& options) {
  return map_.Watch(prefix, after_revision, options);
}

Status RocksStore::Compact(Revision revision) {
  auto r = Submit(CompactRequest{revision});
  return r.ok() ? Status::Ok() : r.status();
}

Revision RocksStore::CurrentRevision() { return map_.current_revision(); }

Revision RocksStore::CompactedRevision() { return map_.compacted_revision(); }

Result<KeyValue> RocksStore::Submit(std::variant<WriteRequest, CompactRequest> request) {
  // A request running as a fiber on an I/O thread suspends instead of blocking that thread,
  // and never commits itself: the fdatasync would stall every connection of the thread.
  Suspender* suspender = CurrentSuspender();
  std::future<Result<KeyValue>> done;
  std::deque<Pending> group;
  bool wake_committer = false;
  {
    std::lock_guard lock(mu_);
    if (!failed_.ok()) return failed_;
    if (closing_) return UnavailableError("store closed");
    queue_.push_back(Pending{std::move(request), {}, suspender ? suspender->Resumer() : nullptr});
    done = queue_.back().done.get_future();
    // Nobody is committing: this thread commits the group itself (it holds at least its own
    // request) instead of waking the committer thread and being woken by it: two thread
    // hand-offs fewer on a lightly loaded store. Otherwise whoever commits now hands the queue
    // to the committer thread when it is done.
    if (!committing_) {
      if (suspender) {
        wake_committer = true;
      } else {
        committing_ = true;
        TakeGroupLocked(group);
      }
    }
  }
  if (!group.empty()) {
    CommitGroup(group);
    EndCommit();
  }
  if (suspender) {
    if (wake_committer) cv_.notify_one();
    suspender->Suspend();
  }
  return done.get();
}

void RocksStore::TakeGroupLocked(std::deque<Pending>& group) {
  const size_t n = std::min(queue_.size(), options_.max_group);
  for (size_t i = 0; i < n; ++i) {
    group.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
}

void RocksStore::EndCommit() {
  bool wake;
  {
    std::lock_guard lock(mu_);
    committing_ = false;
    wake = !queue_.empty() || committer_waits_;
  }
  if (wake) cv_.notify_one();
}

void RocksStore::CommitLoop() {
  std::deque<Pending> group;
  auto next_maintenance = std::chrono::steady_clock::now() + options_.maintenance_interval;
  while (true) {
    {
      std::unique_lock lock(mu_);
      cv_.wait_until(lock, next_maintenance,
                     [&] { return closing_ || (!queue_.empty() && !committing_); });
      // Maintenance and closing must not overlap a commit running on a submitting thread.
      committer_waits_ = true;
      cv_.wait(lock, [&] { return !committing_; });
      committer_waits_ = false;
      if (queue_.empty() && closing_) return;
      committing_ = true;
      TakeGroupLocked(group);
    }
    if (std::chrono::steady_clock::now() >= next_maintenance) {
      map_.TrimHistory();
      next_maintenance = std::chrono::steady_clock::now() + options_.maintenance_interval;
    }
    CommitGroup(group);
    group.clear();
    std::lock_guard lock(mu_);
    committing_ = false;
  }
}

// One group: plan every request against the state plus earlier requests of the group, write
// one synced batch, then publish and answer. Nobody is answered before the sync returned.
void RocksStore::CommitGroup(std::deque<Pending>& group) {
  {
    // After a failed write RocksDB must not be written again (its WAL writer is in an error
    // state); the store stays unavailable until it is reopened.
    std::lock_guard lock(mu_);
    if (!failed_.ok()) {
      for (auto& p : group) p.Answer(failed_);
      return;
    }
  }
  WritePlanner planner(map_, now_());
  rocksdb::WriteBatch batch;
  std::vector<Result<KeyValue>> results;
  results.reserve(group.size());
  Revision compact_to = 0;
  for (auto& p : group) {
    if (auto* c = std::get_if<CompactRequest>(&p.request)) {
      // Compaction may name any revision committed so far, including earlier in this group.
      const Revision last = map_.current_revision() + planner.planned();
      if (c->revision > last) {
        results.push_back(BadRequestError("cannot compact to future revision " +
                                          std::to_string(c->revision) + " (current " +
                                          std::to_string(last) + ")"));
      } else {
        compact_to = std::max(compact_to, c->revision);
        results.push_back(KeyValue{});
      }
      continue;
    }
    auto& w = std::get<WriteRequest>(p.request);
    auto event = planner.Plan(w);
    if (!event.ok()) {
      results.push_back(event.status());
      continue;
    }
    const WatchEvent& e = **event;
    if (e.type == WatchEvent::Type::kPut) {
      batch.Put(LiveKey(e.kv.key), EncodeLive(e.kv));
    } else {
      batch.Delete(LiveKey(e.kv.key));
    }
    results.push_back(e.kv);
  }
  std::vector<HistoryEntry> entries = planner.TakeEntries();
  for (const auto& h : entries) batch.Put(HistoryKey(h.event->revision()), EncodeEvent(h));
  if (!entries.empty()) {
    batch.Put(std::string(kRevisionKey), EncodeRevision(entries.back().event->revision()));
  }
  // History the map dropped earlier (by count, age or Compact) is deleted on disk in the same
  // batch that records the new compacted revision, so the two never disagree. What Apply and
  // Compact drop below is persisted by the next group or maintenance tick.
  const Revision compacted = map_.compacted_revision();
  const Revision persisted = persisted_compacted_.load();
  if (compacted > persisted) {
    batch.DeleteRange(HistoryKey(persisted + 1), HistoryKey(compacted + 1));
    batch.Put(std::string(kCompactedKey), EncodeRevision(compacted));
  }

  if (batch.Count() > 0) {
    rocksdb::WriteOptions wo;
    wo.sync = true;
    rocksdb::Status s = db_->Write(wo, &batch);
    if (!s.ok()) {
      Status err =
          UnavailableError("write failed, store is read-only until restarted: " + s.ToString());
      {
        std::lock_guard lock(mu_);
        failed_ = err;
      }
      for (auto& p : group) p.Answer(err);
      return;
    }
    if (compacted > persisted) persisted_compacted_.store(compacted);
  }
  map_.Publish(std::move(entries));
  if (compact_to > 0) map_.Compact(compact_to).IgnoreError();
  for (size_t i = 0; i < group.size(); ++i) group[i].Answer(std::move(results[i]));
  map_.WakeWatchers();
}

}  // namespace svcplane::storage::rocks
