#include "apiserver/pki/internal/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

namespace svcplane::apiserver::pki::internal {
namespace {

Status ErrnoError(std::string_view what, const std::string& path, int err) {
  return InternalError(fmt::format("{} {}: {}", what, path, std::strerror(err)));
}

Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("write", path, errno);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

}  // namespace

Result<std::string> ReadFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return NotFoundError(fmt::format("{} does not exist", path));
    return ErrnoError("open", path, errno);
  }
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return ErrnoError("read", path, err);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

Status WriteFileAtomic(const std::string& path, std::string_view data, mode_t mode) {
  std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return ErrnoError("create", tmp, errno);
  // open() applies the umask; fchmod makes the mode exact (0600 must stay 0600, 0644 too).
  Status st = ::fchmod(fd, mode) == 0 ? WriteAll(fd, data, tmp) : ErrnoError("chmod", tmp, errno);
  if (st.ok() && ::fsync(fd) != 0) st = ErrnoError("fsync", tmp, errno);
  ::close(fd);
  if (st.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) st = ErrnoError("rename", tmp, errno);
  if (!st.ok()) {
    ::unlink(tmp.c_str());
    return st;
  }
  // The rename is durable only once the folder entry is.
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = std::filesystem::path(".");
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return Status::Ok();
}

Status MakeDirs(const std::string& path, mode_t mode) {
  std::filesystem::path p(path);
  std::filesystem::path cur;
  for (const auto& part : p) {
    cur /= part;
    if (cur.string().empty() || cur == "/") continue;
    if (::mkdir(cur.c_str(), mode) != 0 && errno != EEXIST) {
      return ErrnoError("mkdir", cur.string(), errno);
    }
  }
  struct stat sb;
  if (::stat(path.c_str(), &sb) != 0) return ErrnoError("stat", path, errno);
  if (!S_ISDIR(sb.st_mode)) return InternalError(fmt::format("{} is not a directory", path));
  return Status::Ok();
}

bool FileExists(const std::string& path) {
  struct stat sb;
  return ::stat(path.c_str(), &sb) == 0;
}

}  // namespace svcplane::apiserver::pki::internal
