#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace svcplane::apiserver::http::testing {

// A child process with stdout and stderr on one pipe, for driving curl and kubectl from tests.
// The destructor kills and reaps a child that is still running, so no test leaks processes.
class Subprocess {
 public:
  explicit Subprocess(std::vector<std::string> argv);
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  bool started() const { return pid_ > 0; }

  // Reads output until it contains `needle` or `timeout` passes; returns everything read.
  std::string ReadUntil(const std::string& needle, std::chrono::milliseconds timeout);
  // Reads all output until EOF, waits for exit and returns the exit code (-1 on timeout, after
  // killing the child; 128+N when killed by signal N).
  int Wait(std::chrono::milliseconds timeout);
  void Kill();

  const std::string& output() const { return output_; }

 private:
  bool ReadSome(std::chrono::milliseconds timeout);  // false on EOF or timeout

  pid_t pid_ = -1;
  int fd_ = -1;
  bool eof_ = false;
  std::string output_;
};

// Runs to completion; returns {exit code, combined output}.
std::pair<int, std::string> RunCommand(
    std::vector<std::string> argv, std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace svcplane::apiserver::http::testing
