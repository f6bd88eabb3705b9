#include "apiserver/http/testing/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace svcplane::apiserver::http::testing {

Subprocess::Subprocess(std::vector<std::string> argv) {
  // Built before fork: the child of a multi-threaded parent may only call async-signal-safe
  // functions, and malloc is not one.
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return;
  }
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  pid_ = pid;
  fd_ = fds[0];
}

Subprocess::~Subprocess() {
  Kill();
  if (fd_ >= 0) ::close(fd_);
}

bool Subprocess::ReadSome(std::chrono::milliseconds timeout) {
  if (fd_ < 0 || eof_) return false;
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return false;
  char buf[4096];
  ssize_t n = ::read(fd_, buf, sizeof(buf));
  if (n <= 0) {
    eof_ = true;
    return false;
  }
  output_.append(buf, static_cast<size_t>(n));
  return true;
}

std::string Subprocess::ReadUntil(const std::string& needle, std::chrono::milliseconds timeout) {
  auto until = std::chrono::steady_clock::now() + timeout;
  while (output_.find(needle) == std::string::npos) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !ReadSome(left)) break;
  }
  return output_;
}

int Subprocess::Wait(std::chrono::milliseconds timeout) {
  auto until = std::chrono::steady_clock::now() + timeout;
  while (!eof_) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    ReadSome(left);
  }
  if (pid_ <= 0) return -1;
  if (!eof_) {
    Kill();
    return -1;
  }
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

void Subprocess::Kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

std::pair<int, std::string> RunCommand(std::vector<std::string> argv,
                                       std::chrono::milliseconds timeout) {
  Subprocess p(std::move(argv));
  int code = p.Wait(timeout);
  return {code, p.output()};
}

}  // namespace svcplane::apiserver::http::testing
