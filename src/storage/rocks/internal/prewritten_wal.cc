#include "storage/rocks/internal/prewritten_wal.h"

#include <fcntl.h>
#include <rocksdb/env.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <vector>

#include "base/thread_name.h"
#include "storage/rocks/internal/wal_tail.h"

namespace svcplane::storage::rocks::internal {

namespace {

using rocksdb::IOStatus;

IOStatus ErrnoStatus(const std::string& what, const std::string& file, int err) {
  return IOStatus::IOError(what + " " + file, std::strerror(err));
}

// Writes all of `data` at `offset`; 0 or an errno.
int PwriteAll(int fd, const char* data, size_t size, uint64_t offset) {
  while (size > 0) {
    const ssize_t n = ::pwrite(fd, data, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    data += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return 0;
}

// A WAL file that was a spare: appends overwrite its zeros (and extend it, as a plain append,
// once past them). RocksDB appends and syncs from its write thread; Sync may also come from
// another thread, which fdatasync allows.
class PrewrittenWalFile final : public rocksdb::FSWritableFile {
 public:
  PrewrittenWalFile(std::string name, int fd, const rocksdb::FileOptions& options)
      : rocksdb::FSWritableFile(options), name_(std::move(name)), fd_(fd) {}
  ~PrewrittenWalFile() override { CloseFile().PermitUncheckedError(); }

  IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions&,
                  rocksdb::IODebugContext*) override {
    if (int err = PwriteAll(fd_, data.data(), data.size(), size_); err != 0) {
      return ErrnoStatus("while appending to", name_, err);
    }
    size_ += data.size();
    return IOStatus::OK();
  }
  IOStatus Flush(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return IOStatus::OK();  // appends go straight to the file
  }
  IOStatus Sync(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return ::fdatasync(fd_) == 0 ? IOStatus::OK() : ErrnoStatus("while fdatasync", name_, errno);
  }
  IOStatus Fsync(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return ::fsync(fd_) == 0 ? IOStatus::OK() : ErrnoStatus("while fsync", name_, errno);
  }
  bool IsSyncThreadSafe() const override { return true; }
  uint64_t GetFileSize(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return size_;
  }
  IOStatus Truncate(uint64_t size, const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) {
      return ErrnoStatus("while truncating", name_, errno);
    }
    size_ = size;
    return IOStatus::OK();
  }
  IOStatus Close(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return CloseFile();
  }

 private:
  IOStatus CloseFile() {
    if (fd_ < 0) return IOStatus::OK();
    IOStatus s;
    // The unused zeros go; a crash before this is durable leaves them for WalContentFile.
    if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
      s = ErrnoStatus("while truncating", name_, errno);
    }
    if (::close(fd_) != 0 && s.ok()) s = ErrnoStatus("while closing", name_, errno);
    fd_ = -1;
    return s;
  }

  const std::string name_;
  int fd_;
  uint64_t size_ = 0;  // bytes appended
};

// A WAL as RocksDB's recovery reads it: the file's bytes up to WalContentEnd (wal_tail.h).
class WalContentFile final : public rocksdb::FSSequentialFile {
 public:
  explicit WalContentFile(std::string bytes) : bytes_(std::move(bytes)) {}

  IOStatus Read(size_t n, const rocksdb::IOOptions&, rocksdb::Slice* result, char* scratch,
                rocksdb::IODebugContext*) override {
    n = std::min<size_t>(n, bytes_.size() - at_);
    std::memcpy(scratch, bytes_.data() + at_, n);
    at_ += n;
    *result = rocksdb::Slice(scratch, n);
    return IOStatus::OK();
  }
  IOStatus Skip(uint64_t n) override {
    at_ += static_cast<size_t>(std::min<uint64_t>(n, bytes_.size() - at_));
    return IOStatus::OK();
  }

 private:
  const std::string bytes_;
  size_t at_ = 0;
};

bool IsWal(const std::string& fname) {
  return fname.size() > 4 && fname.compare(fname.size() - 4, 4, ".log") == 0;
}

}  // namespace

PrewrittenWalFileSystem::PrewrittenWalFileSystem(std::shared_ptr<rocksdb::FileSystem> target,
                                                 std::string dir, uint64_t spare_bytes)
    : rocksdb::FileSystemWrapper(std::move(target)),
      dir_(std::move(dir)),
      spare_path_((std::filesystem::path(dir_) / kWalSpareName).string()),
      spare_bytes_(spare_bytes) {}

PrewrittenWalFileSystem::~PrewrittenWalFileSystem() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (preparer_.joinable()) {
    preparer_.join();
    ::unlink(spare_path_.c_str());
  }
}

void PrewrittenWalFileSystem::PrepareLoop() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stopping_ || (wanted_ && !spare_ready_ && !failed_); });
    if (stopping_) return;
    wanted_ = false;
    preparing_ = true;
    lock.unlock();
    const int err = RoomForSpare() ? PrepareSpare() : ENOSPC;
    lock.lock();
    preparing_ = false;
    if (err == 0) {
      spare_ready_ = true;
    } else if (err != ENOSPC && err != ECANCELED) {
      spdlog::warn("rocks store: cannot prepare a WAL spare in {}: {}; WALs are appended instead",
                   dir_, std::strerror(err));
      failed_ = true;
    }
    // Short of room, this WAL is appended and the next WAL tries again.
    cv_.notify_all();
  }
}

// The spare is an optimisation and must never take the space a write needs: it is written only
// while the disk has room for four of them (the spare itself, the WAL it will become, the WAL
// in use and a memtable flush).
bool PrewrittenWalFileSystem::RoomForSpare() const {
  struct statvfs st {};
  if (::statvfs(dir_.c_str(), &st) != 0) return false;
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize >= 4 * spare_bytes_;
}

int PrewrittenWalFileSystem::PrepareSpare() {
  const int fd = ::open(spare_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int err = fd < 0 ? errno : 0;
  constexpr uint64_t kPiece = 256 << 10;
  const std::vector<char> zeros(kPiece, 0);
  for (uint64_t at = 0; err == 0 && at < spare_bytes_; at += kPiece) {
    const uint64_t n = std::min(kPiece, spare_bytes_ - at);
    err = PwriteAll(fd, zeros.data(), n, at);
    // Start writing each piece back now and wait for the one before: a single sync of the
    // whole spare would queue tens of MB ahead of the live WAL's small syncs on the same disk.
    if (err == 0 && ::sync_file_range(fd, static_cast<off_t>(at), static_cast<off_t>(n),
                                      SYNC_FILE_RANGE_WRITE) != 0) {
      err = errno;
    }
    if (err == 0 && at >= kPiece &&
        ::sync_file_range(fd, static_cast<off_t>(at - kPiece), static_cast<off_t>(kPiece),
                          SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                              SYNC_FILE_RANGE_WAIT_AFTER) != 0) {
      err = errno;
    }
    std::lock_guard lock(mu_);
    if (stopping_) err = ECANCELED;
  }
  if (err == 0 && ::fdatasync(fd) != 0) err = errno;
  if (fd >= 0) ::close(fd);
  if (err != 0) ::unlink(spare_path_.c_str());  // a partial spare is of no use, and takes room
  return err;
}

rocksdb::IOStatus PrewrittenWalFileSystem::NewWritableFile(
    const std::string& fname, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* result, rocksdb::IODebugContext* dbg) {
  // The store leaves wal_dir unset: every WAL is in dir_, beside the spare.
  if (!IsWal(fname) || options.use_direct_writes || options.use_mmap_writes) {
    return target()->NewWritableFile(fname, options, result, dbg);
  }
  {
    std::lock_guard lock(mu_);
    if (spare_bytes_ == 0) return target()->NewWritableFile(fname, options, result, dbg);
    if (!preparer_.joinable()) {
      // RocksDB creates its first WAL once it holds the folder's LOCK; only then is the spare
      // ours to touch (another store's failed open of the same folder must leave it alone).
      ::unlink(spare_path_.c_str());  // a spare left by a crash may be half written
      wanted_ = true;
      preparer_ = std::thread([this] {
        NameThisThread("svc-walspare");
        // Idle I/O class: the disk serves the live WAL's syncs first (mq-deadline and bfq
        // honour it; elsewhere it is a no-op).
        constexpr int kWhoProcess = 1, kClassIdle = 3, kClassShift = 13;
        ::syscall(SYS_ioprio_set, kWhoProcess, 0, kClassIdle << kClassShift);
        PrepareLoop();
      });
      return target()->NewWritableFile(fname, options, result, dbg);
    }
    wanted_ = true;  // for the next WAL
    if (!spare_ready_) {
      cv_.notify_all();
      return target()->NewWritableFile(fname, options, result, dbg);
    }
    spare_ready_ = false;
    // rename(2) replaces nothing here: RocksDB never reuses a WAL number.
    if (std::rename(spare_path_.c_str(), fname.c_str()) != 0) {
      spdlog::warn("rocks store: cannot use the WAL spare in {}: {}; WALs are appended instead",
                   dir_, std::strerror(errno));
      failed_ = true;
      return target()->NewWritableFile(fname, options, result, dbg);
    }
  }
  cv_.notify_all();  // prepare the next one
  const int fd = ::open(fname.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("while open a file for appending", fname, errno);
  *result = std::make_unique<PrewrittenWalFile>(fname, fd, options);
  return IOStatus::OK();
}

rocksdb::IOStatus PrewrittenWalFileSystem::NewSequentialFile(
    const std::string& fname, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSSequentialFile>* result, rocksdb::IODebugContext* dbg) {
  if (!IsWal(fname) || options.use_direct_reads) {
    return target()->NewSequentialFile(fname, options, result, dbg);
  }
  // Read-side only, never a truncation: this also runs while another process might hold the
  // folder (a file being written must not be cut), and leaves the image as it was found.
  std::string bytes;
  if (IOStatus s = rocksdb::ReadFileToString(target(), fname, &bytes); !s.ok()) return s;
  if (const std::optional<uint64_t> end = WalContentEnd(bytes)) bytes.resize(*end);
  *result = std::make_unique<WalContentFile>(std::move(bytes));
  return IOStatus::OK();
}

bool PrewrittenWalFileSystem::WaitForSpareForTest() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] {
    return spare_ready_ || failed_ || (preparer_.joinable() && !wanted_ && !preparing_);
  });
  return spare_ready_;
}

std::unique_ptr<rocksdb::Env> NewPrewrittenWalEnv(const std::string& dir, uint64_t spare_bytes) {
  return rocksdb::NewCompositeEnv(
      std::make_shared<PrewrittenWalFileSystem>(rocksdb::FileSystem::Default(), dir, spare_bytes));
}

}  // namespace svcplane::storage::rocks::internal
