#pragma once

#include <string>

#include "base/result.h"

namespace svcplane::apiserver::pki {

// Exclusive ownership of a data dir for the life of the process: flock(2) on DIR/.lock, which
// also holds the owner's pid for the error message. The kernel drops the lock when the process
// dies, so a crash never leaves a stale lock behind. Lives in pki because pki is the first
// writer of the data dir; the storage layer relies on the same lock.
class DataDirLock {
 public:
  // Creates DIR (0700) if needed. When another process (or another DataDirLock in this one)
  // holds DIR, fails with Unavailable and the message
  // "svcplane: data dir DIR is in use by another svcplane (pid N)".
  static Result<DataDirLock> Acquire(const std::string& dir);

  DataDirLock(DataDirLock&& other) noexcept;
  DataDirLock& operator=(DataDirLock&& other) noexcept;
  DataDirLock(const DataDirLock&) = delete;
  DataDirLock& operator=(const DataDirLock&) = delete;
  ~DataDirLock();  // releases the lock

  const std::string& dir() const { return dir_; }

 private:
  DataDirLock(std::string dir, int fd) : dir_(std::move(dir)), fd_(fd) {}

  std::string dir_;
  int fd_ = -1;
};

}  // namespace svcplane::apiserver::pki
