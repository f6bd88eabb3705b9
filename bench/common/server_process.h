#pragma once

// The one launcher the end-to-end benches share: `svcplane serve` as a child process on
// 127.0.0.1:0 with its data and log in a temp dir, and what a client needs to reach it (port,
// token and CA, read back from the kubeconfig the server writes once it listens).

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/common/https_client.h"

namespace svcplane::bench {

struct ServerOptions {
  std::string binary;                         // the svcplane binary
  std::vector<std::string> extra_args;        // appended to `serve --data-dir D --listen ...`
  bool keep_dir = false;                      // keep the temp dir (server.log, data) at the end
  std::string dir_prefix = "svcplane-bench";  // the temp dir is /tmp/<dir_prefix>-XXXXXX
  std::chrono::seconds start_timeout{60};
};

// Started by Start (separate from the constructor so the destructor cleans up when starting
// fails). The destructor stops the server (SIGTERM, then SIGKILL after 10 s) and removes the
// temp dir unless keep_dir; PR_SET_PDEATHSIG covers a crashing bench. Not thread-safe.
class ServerProcess {
 public:
  explicit ServerProcess(ServerOptions options);
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Forks and execs the server, waits for its kubeconfig and reads port, token and CA from it.
  // Throws std::runtime_error (with the server's log if it exited) on failure.
  void Start();

  pid_t pid() const { return pid_; }
  const std::string& dir() const { return dir_; }
  std::string kubeconfig_path() const { return dir_ + "/data/kubeconfig"; }
  std::string log_path() const { return dir_ + "/server.log"; }
  uint16_t port() const { return endpoint_.port; }
  const std::string& token() const { return endpoint_.token; }
  const std::string& ca_pem() const { return endpoint_.ca_pem; }
  const Endpoint& endpoint() const { return endpoint_; }

  // The child's user + system CPU seconds so far, all threads; 0 if it is gone.
  double CpuSeconds() const;
  // The child's resident set (VmRSS) in KiB; -1 if it is gone.
  long RssKb() const;

 private:
  void Stop();

  ServerOptions options_;
  std::string dir_;
  pid_t pid_ = -1;
  Endpoint endpoint_;
};

// --- /proc readings of any process --------------------------------------------------------------

// CPU seconds (user + system) a process used so far, all threads included; 0 if it is gone.
double ProcessCpuSeconds(pid_t pid);
// A "Key:   N kB" line of /proc/PID/status, e.g. key "VmRSS:" or "VmHWM:"; -1 if absent.
long ProcessStatusKb(pid_t pid, const char* key);
inline long RssKb(pid_t pid) { return ProcessStatusKb(pid, "VmRSS:"); }
// Minor page faults of a process so far. Unlike CPU time, which a VM's drifting speed blurs,
// they count work the same in every run: each costs a fresh zeroed page.
long ProcessMinorFaults(pid_t pid);
// Context switches (voluntary + involuntary) of the process's live threads.
long ContextSwitches(pid_t pid);
// CPU seconds the calling thread used so far.
double ThreadCpuSeconds();
// CPU seconds this whole process used so far.
double SelfCpuSeconds();
// CPU seconds every process on the machine used so far (busy time of all cores, interrupts
// included, /proc/stat): minus the server's and the bench's own, roughly what else ran during a
// measurement (plus interrupt time not charged to either).
double MachineBusySeconds();
// Seconds the machine's cores sat idle waiting for I/O so far (/proc/stat iowait): a disk busy
// with someone else's writes stretches the server's commits.
double MachineIowaitSeconds();
// Waits until `pid` used under 5% of a core over half a second (its flushes, compactions and
// controllers done with the last burst), at most `limit`; returns the seconds waited.
double WaitForQuietServer(pid_t pid, std::chrono::seconds limit);

// The whole file, or "" if it cannot be read.
std::string ReadFile(const std::string& path);

}  // namespace svcplane::bench
