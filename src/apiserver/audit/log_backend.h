#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "apiserver/audit/sink.h"
#include "base/result.h"

namespace svcplane::apiserver::audit {

// kube-apiserver's --audit-log-* flags (spec §5.4).
struct LogOptions {
  std::string path;       // "-": stdout
  int max_age_days = 0;   // rotated files older than this are deleted; 0: kept
  int max_backups = 0;    // rotated files kept; 0: all
  int max_size_mb = 0;    // rotate before the file grows past this; 0: 100 (lumberjack's default)
  bool compress = false;  // gzip rotated files
  std::string format = "json";
  std::string mode = "blocking";     // or "batch"
  size_t batch_buffer_size = 10000;  // batch: events queued before new ones are dropped
};

// Negative sizes and ages, an unknown format or mode: kInvalid with kube-apiserver's text
// ("--audit-log-maxage -1 can't be a negative number").
Status ValidateLogOptions(const LogOptions& o);

// Writes events as JSON lines to a file (or stdout) from one writer thread, rotating as
// lumberjack does: `<base>-<2006-01-02T15-04-05.000>.<ext>` in UTC, then gzip, max backups and
// max age. Group commit: whatever queued while a write was under way goes out in the next
// write(2), so concurrent requests never take turns at the disk; a blocking request waits for at
// most the write under way and the one carrying its line. Uncontended, a blocking request
// writes its line itself (no thread hand-off).
class LogBackend final : public Sink {
 public:
  // Creates the folder (0700) and opens the file (0600, appending).
  static Result<std::unique_ptr<LogBackend>> Open(LogOptions options);
  ~LogBackend() override;  // writes what is queued, then stops

  void Write(std::string line, bool may_wait) override;
  // Returns once everything queued so far is written.
  void Flush();

  uint64_t DroppedForTest() const;

 private:
  explicit LogBackend(LogOptions options);
  Status OpenFile();
  void Run();
  void WriteQueued(std::unique_lock<std::mutex>& lock);
  void WriteOut(const std::string& batch);
  void WriteRange(const char* data, size_t n);
  void Rotate();
  void Mill();
  uint64_t MaxBytes() const;

  const LogOptions options_;
  const bool blocking_;

  // Writer thread only.
  int fd_ = -1;
  bool stdout_ = false;
  uint64_t size_ = 0;

  mutable std::mutex mu_;
  std::condition_variable work_cv_;  // the writer waits for lines
  std::condition_variable done_cv_;  // blocked writers wait for `written_`
  std::string pending_;              // guarded by mu_
  size_t pending_lines_ = 0;         // guarded by mu_
  uint64_t queued_ = 0;              // guarded by mu_: lines queued so far
  uint64_t written_ = 0;             // guarded by mu_: lines written so far
  uint64_t dropped_ = 0;             // guarded by mu_
  bool stop_ = false;                // guarded by mu_
  bool writing_ = false;             // guarded by mu_: one thread writes the file at a time
  // Suspended request fibers to resume once `written_` reaches their line.
  std::vector<std::pair<uint64_t, std::function<void()>>> resumers_;  // guarded by mu_
  std::thread writer_;
};

}  // namespace svcplane::apiserver::audit
