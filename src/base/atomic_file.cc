#include "base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

namespace svcplane {

namespace {

Status ErrnoError(std::string_view what, const std::string& path, int err) {
  return UnavailableError(fmt::format("{} {}: {}", what, path, std::strerror(err)));
}

}  // namespace

Result<AtomicFile> AtomicFile::Create(std::string path, unsigned mode) {
  // The pid keeps two writers of one path (two `snapshot save` runs) off each other's bytes;
  // O_EXCL refuses a leftover of a crashed run that had this pid.
  std::string temp = fmt::format("{}.partial.{}", path, ::getpid());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0 && errno == EEXIST) {
    ::unlink(temp.c_str());
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  }
  if (fd < 0) return ErrnoError("create", temp, errno);
  if (::fchmod(fd, mode) != 0) {
    const int err = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    return ErrnoError("chmod", temp, err);
  }
  return AtomicFile(std::move(path), std::move(temp), fd);
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)), temp_(std::move(other.temp_)), fd_(other.fd_) {
  other.fd_ = -1;
}

AtomicFile::~AtomicFile() { Abandon(); }

void AtomicFile::Abandon() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(temp_.c_str());
  fd_ = -1;
}

Status AtomicFile::Append(std::string_view bytes) {
  if (fd_ < 0) return InternalError("append to " + temp_ + " after it was committed or abandoned");
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("write", temp_, errno);
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Status AtomicFile::Sync() {
  if (fd_ < 0) return InternalError("sync of " + temp_ + " after it was committed or abandoned");
  if (::fsync(fd_) != 0) return ErrnoError("fsync", temp_, errno);
  return Status::Ok();
}

Status AtomicFile::Commit() {
  Status st = Sync();
  if (fd_ >= 0 && ::close(fd_) != 0 && st.ok()) st = ErrnoError("close", temp_, errno);
  fd_ = -1;
  if (st.ok() && ::rename(temp_.c_str(), path_.c_str()) != 0) {
    st = ErrnoError("rename", temp_, errno);
  }
  if (!st.ok()) {
    ::unlink(temp_.c_str());
    return st;
  }
  // The rename is durable only once the folder entry is.
  std::filesystem::path dir = std::filesystem::path(path_).parent_path();
  if (dir.empty()) dir = ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return ErrnoError("open", dir.string(), errno);
  const bool synced = ::fsync(dfd) == 0;
  const int err = errno;
  ::close(dfd);
  return synced ? Status::Ok() : ErrnoError("fsync", dir.string(), err);
}

}  // namespace svcplane
