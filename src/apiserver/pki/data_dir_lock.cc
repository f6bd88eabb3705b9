#include "apiserver/pki/data_dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "apiserver/pki/internal/files.h"

namespace svcplane::apiserver::pki {

Result<DataDirLock> DataDirLock::Acquire(const std::string& dir) {
  SVC_RETURN_IF_ERROR(internal::MakeDirs(dir, 0700));
  std::string path = dir + "/.lock";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return InternalError(fmt::format("open {}: {}", path, std::strerror(errno)));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    std::string pid = "unknown";
    if (err == EWOULDBLOCK) {
      char buf[32] = {};
      ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
      if (n > 0) {
        pid.assign(buf, static_cast<size_t>(n));
        while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
      }
    }
    ::close(fd);
    if (err != EWOULDBLOCK) {
      return InternalError(fmt::format("flock {}: {}", path, std::strerror(err)));
    }
    return UnavailableError(
        fmt::format("svcplane: data dir {} is in use by another svcplane (pid {})", dir, pid));
  }
  std::string pid = fmt::format("{}\n", ::getpid());
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    int err = errno;
    ::close(fd);
    return InternalError(fmt::format("write {}: {}", path, std::strerror(err)));
  }
  return DataDirLock(dir, fd);
}

DataDirLock::DataDirLock(DataDirLock&& other) noexcept
    : dir_(std::move(other.dir_)), fd_(other.fd_) {
  other.fd_ = -1;
}

DataDirLock& DataDirLock::operator=(DataDirLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    dir_ = std::move(other.dir_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

DataDirLock::~DataDirLock() {
  // Closing the descriptor releases the flock. The pid stays in the file; it is only read
  // while someone holds the lock, and the holder has rewritten it.
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace svcplane::apiserver::pki
