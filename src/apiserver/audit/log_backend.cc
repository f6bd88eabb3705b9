#include "apiserver/audit/log_backend.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "base/suspend.h"
#include "base/thread_name.h"

namespace svcplane::apiserver::audit {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMegabyte = 1024 * 1024;
constexpr int kDefaultMaxSizeMb = 100;
constexpr std::string_view kBackupTimeFormat = "2006-01-02T15-04-05.000";

// lumberjack's backup name: <dir>/<base>-<UTC time>.<ext>
std::string BackupName(const fs::path& path, std::chrono::system_clock::time_point now) {
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  std::string stamp =
      fmt::format("{:04}-{:02}-{:02}T{:02}-{:02}-{:02}.{:03}", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms % 1000);
  return (path.parent_path() / (path.stem().string() + "-" + stamp + path.extension().string()))
      .string();
}

bool GzipFile(const std::string& from, const std::string& to) {
  int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return false;
  int out_fd = ::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out_fd < 0) {
    ::close(in);
    return false;
  }
  gzFile gz = gzdopen(out_fd, "wb");
  bool ok = gz != nullptr;
  char buf[64 * 1024];
  while (ok) {
    ssize_t n = ::read(in, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    ok = gzwrite(gz, buf, static_cast<unsigned>(n)) == n;
  }
  if (gz != nullptr) ok = gzclose(gz) == Z_OK && ok;
  ::close(in);
  if (ok) ::unlink(from.c_str());
  return ok;
}

}  // namespace

Status ValidateLogOptions(const LogOptions& o) {
  if (o.max_age_days < 0) {
    return InvalidError(
        fmt::format("--audit-log-maxage {} can't be a negative number", o.max_age_days));
  }
  if (o.max_backups < 0) {
    return InvalidError(
        fmt::format("--audit-log-maxbackup {} can't be a negative number", o.max_backups));
  }
  if (o.max_size_mb < 0) {
    return InvalidError(
        fmt::format("--audit-log-maxsize {} can't be a negative number", o.max_size_mb));
  }
  if (o.format != "json") {
    return InvalidError(
        fmt::format("invalid audit log format {}, allowed formats are \"json\"", o.format));
  }
  if (o.mode != "blocking" && o.mode != "batch") {
    return InvalidError(
        fmt::format("invalid audit log mode {}, allowed modes are \"blocking,batch\"", o.mode));
  }
  return Status::Ok();
}

LogBackend::LogBackend(LogOptions options)
    : options_(std::move(options)), blocking_(options_.mode == "blocking") {}

Result<std::unique_ptr<LogBackend>> LogBackend::Open(LogOptions options) {
  SVC_RETURN_IF_ERROR(ValidateLogOptions(options));
  if (options.path.empty()) return InvalidError("--audit-log-path is empty");
  std::unique_ptr<LogBackend> b(new LogBackend(std::move(options)));
  SVC_RETURN_IF_ERROR(b->OpenFile());
  b->writer_ = std::thread([raw = b.get()] {
    NameThisThread("svc-audit-log");
    raw->Run();
  });
  return b;
}

Status LogBackend::OpenFile() {
  if (options_.path == "-") {
    stdout_ = true;
    fd_ = STDOUT_FILENO;
    return Status::Ok();
  }
  fs::path path(options_.path);
  std::error_code ec;
  if (path.has_parent_path() && !fs::exists(path.parent_path(), ec)) {
    fs::create_directories(path.parent_path(), ec);
    if (ec) {
      return InvalidError(
          fmt::format("can't create directory for audit log {}: {}", options_.path, ec.message()));
    }
    ::chmod(path.parent_path().c_str(), 0700);
  }
  fd_ = ::open(options_.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd_ < 0) {
    return InvalidError(
        fmt::format("can't open audit log file {}: {}", options_.path, std::strerror(errno)));
  }
  struct stat st {};
  size_ = ::fstat(fd_, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  return Status::Ok();
}

LogBackend::~LogBackend() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  if (writer_.joinable()) writer_.join();
  if (fd_ >= 0 && !stdout_) ::close(fd_);
}

// Flat combining: a blocking request that finds nobody writing writes the queued lines itself
// (its own and any that arrived meanwhile), one write(2), with no hand-off to another thread
// and back; one that finds a write under way waits for it, or for the next, which carries its
// line. Lines that must not wait (I/O threads, batch mode) go to the writer thread.
void LogBackend::Write(std::string line, bool may_wait) {
  line.push_back('\n');  // outside the lock
  std::unique_lock lock(mu_);
  if (stop_) return;
  if (!blocking_ && pending_lines_ >= options_.batch_buffer_size) {
    // Upstream's batch backend drops an event when its buffer is full, rather than stall.
    if (dropped_++ % 1000 == 0) SPDLOG_WARN("audit: log buffer full, events dropped");
    return;
  }
  // Nothing queued (the usual case): the line's own buffer becomes the batch, uncopied.
  if (pending_.empty()) {
    pending_.swap(line);
  } else {
    pending_.append(line);
  }
  ++pending_lines_;
  const uint64_t mine = ++queued_;
  const bool wait = blocking_ && may_wait;
  if (!writing_) {
    if (wait) return WriteQueued(lock);
    lock.unlock();
    work_cv_.notify_one();
    return;
  }
  if (!wait) return;  // the write under way is followed by one that takes this line
  if (Suspender* s = CurrentSuspender()) {
    resumers_.emplace_back(mine, s->Resumer());
    lock.unlock();
    s->Suspend();
    return;
  }
  done_cv_.wait(lock, [&] { return written_ >= mine || stop_; });
}

// With mu_ held and nobody writing: writes what is queued, then hands what queued meanwhile to
// the writer thread (a request writes once, never for everyone after it).
void LogBackend::WriteQueued(std::unique_lock<std::mutex>& lock) {
  writing_ = true;
  std::string batch;
  batch.swap(pending_);
  pending_lines_ = 0;
  const uint64_t upto = queued_;
  lock.unlock();
  WriteOut(batch);
  lock.lock();
  writing_ = false;
  written_ = upto;
  std::vector<std::function<void()>> wake;
  auto done = std::partition(resumers_.begin(), resumers_.end(),
                             [&](const auto& r) { return r.first > upto; });
  for (auto it = done; it != resumers_.end(); ++it) wake.push_back(std::move(it->second));
  resumers_.erase(done, resumers_.end());
  const bool more = !pending_.empty();
  lock.unlock();
  done_cv_.notify_all();
  if (more) work_cv_.notify_one();
  for (auto& w : wake) w();
  lock.lock();
}

void LogBackend::Flush() {
  std::unique_lock lock(mu_);
  const uint64_t target = queued_;
  done_cv_.wait(lock, [&] { return written_ >= target || stop_; });
}

uint64_t LogBackend::DroppedForTest() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

void LogBackend::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    work_cv_.wait(lock, [&] { return !writing_ && (stop_ || !pending_.empty()); });
    if (pending_.empty()) break;  // stopping, and everything is written
    WriteQueued(lock);
  }
  // Stopping: nobody waits any more.
  std::vector<std::function<void()>> wake;
  for (auto& r : resumers_) wake.push_back(std::move(r.second));
  resumers_.clear();
  lock.unlock();
  done_cv_.notify_all();
  for (auto& w : wake) w();
}

uint64_t LogBackend::MaxBytes() const {
  return static_cast<uint64_t>(options_.max_size_mb > 0 ? options_.max_size_mb
                                                        : kDefaultMaxSizeMb) *
         kMegabyte;
}

// Lines go out in as few writes as the size limit allows: a line that would carry the file past
// it starts a new file (a single line larger than the limit gets a file of its own).
void LogBackend::WriteOut(const std::string& batch) {
  if (stdout_) return WriteRange(batch.data(), batch.size());
  const uint64_t max = MaxBytes();
  size_t start = 0;
  size_t end = 0;
  uint64_t size = size_;
  while (end < batch.size()) {
    size_t nl = batch.find('\n', end);
    size_t line_end = nl == std::string::npos ? batch.size() : nl + 1;
    const uint64_t len = line_end - end;
    if (size + len > max && size > 0) {
      WriteRange(batch.data() + start, end - start);
      Rotate();
      start = end;
      size = 0;
    }
    size += len;
    end = line_end;
  }
  WriteRange(batch.data() + start, end - start);
}

void LogBackend::WriteRange(const char* data, size_t n) {
  while (n > 0 && fd_ >= 0) {
    ssize_t w = ::write(fd_, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      SPDLOG_ERROR("audit: writing {} failed: {}", options_.path, std::strerror(errno));
      return;
    }
    data += w;
    n -= static_cast<size_t>(w);
    size_ += static_cast<uint64_t>(w);
  }
}

void LogBackend::Rotate() {
  const std::string backup = BackupName(options_.path, std::chrono::system_clock::now());
  ::close(fd_);
  fd_ = -1;
  if (::rename(options_.path.c_str(), backup.c_str()) != 0) {
    SPDLOG_ERROR("audit: rotating {} failed: {}", options_.path, std::strerror(errno));
  }
  if (Status st = OpenFile(); !st.ok()) SPDLOG_ERROR("audit: {}", st.message());
  size_ = 0;
  if (options_.compress && !GzipFile(backup, backup + ".gz")) {
    SPDLOG_ERROR("audit: compressing {} failed", backup);
  }
  Mill();
}

// Deletes the backups past --audit-log-maxbackup (oldest first) and older than
// --audit-log-maxage days, as lumberjack's mill does. Backups are recognized by name.
void LogBackend::Mill() {
  if (options_.max_backups == 0 && options_.max_age_days == 0) return;
  fs::path path(options_.path);
  const std::string prefix = path.stem().string() + "-";
  const std::string ext = path.extension().string();
  std::error_code ec;
  std::vector<std::pair<std::string, fs::path>> backups;  // (time stamp, file)
  for (const auto& entry :
       fs::directory_iterator(path.has_parent_path() ? path.parent_path() : fs::path("."), ec)) {
    std::string name = entry.path().filename().string();
    std::string_view rest = name;
    if (!rest.starts_with(prefix)) continue;
    rest.remove_prefix(prefix.size());
    if (rest.ends_with(".gz")) rest.remove_suffix(3);
    if (!rest.ends_with(ext)) continue;
    rest.remove_suffix(ext.size());
    if (rest.size() != kBackupTimeFormat.size()) continue;
    backups.emplace_back(std::string(rest), entry.path());
  }
  std::sort(backups.begin(), backups.end(), std::greater<>());  // newest first
  const auto now = std::chrono::system_clock::now();
  for (size_t i = 0; i < backups.size(); ++i) {
    bool remove = options_.max_backups > 0 && i >= static_cast<size_t>(options_.max_backups);
    if (!remove && options_.max_age_days > 0) {
      std::string cutoff = BackupName(path, now - std::chrono::hours(24) * options_.max_age_days);
      cutoff = fs::path(cutoff).filename().string().substr(prefix.size(), kBackupTimeFormat.size());
      remove = backups[i].first < cutoff;
    }
    if (remove) fs::remove(backups[i].second, ec);
  }
}

}  // namespace svcplane::apiserver::audit
