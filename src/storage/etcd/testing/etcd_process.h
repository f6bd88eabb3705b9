#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"

namespace svcplane::storage::etcd::testing {

struct EtcdProcessOptions {
  std::string binary = "/usr/bin/etcd";
  // etcd's periodic progress notification (default 10 min). Short in tests so that a watch's
  // progress revision follows writes elsewhere promptly; production runs 5 s (spec §3.7).
  std::chrono::milliseconds progress_notify_interval{100};
  std::chrono::milliseconds start_timeout = std::chrono::seconds(20);
  std::vector<std::string> extra_args;
};

// A real etcd member as a child process, listening on 127.0.0.1 only (client and peer ports
// free at start), with its data in a fresh temp folder: a single-member cluster (Start) or one
// member of a cluster started together (StartCluster). The destructor kills and reaps
// it and removes the folder, whatever the test did; if the test process dies, the kernel
// kills etcd too (PR_SET_PDEATHSIG). Not thread-safe.
class EtcdProcess {
 public:
  // Starts etcd and waits until it answers /health.
  static Result<std::unique_ptr<EtcdProcess>> Start(EtcdProcessOptions options = {});
  // Starts `members` etcds as one new cluster (members "m0", "m1", ...; every one launched
  // before any is waited for, since none is healthy without a quorum) and waits until each
  // answers /health. Kill/Restart work per member.
  static Result<std::vector<std::unique_ptr<EtcdProcess>>> StartCluster(
      int members, EtcdProcessOptions options = {});
  // The client URLs of `members`, comma-separated (an --etcd-servers value).
  static std::string Endpoints(const std::vector<std::unique_ptr<EtcdProcess>>& members);
  ~EtcdProcess();
  EtcdProcess(const EtcdProcess&) = delete;
  EtcdProcess& operator=(const EtcdProcess&) = delete;

  // http://127.0.0.1:<client port>
  const std::string& endpoint() const { return endpoint_; }
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }

  // SIGKILL and reap; the data folder stays for Restart.
  void Kill();
  // Starts etcd again on the same ports and data (after Kill), waits for /health.
  Status Restart();
  // SIGSTOP / SIGCONT: etcd keeps its sockets open but answers nothing.
  void Pause();
  void Resume();
  // The last lines etcd logged, for failure messages.
  std::string LogTail(size_t bytes = 4000) const;

 private:
  explicit EtcdProcess(EtcdProcessOptions options) : options_(std::move(options)) {}
  // Allocates the ports and the data folder.
  Status Prepare();
  Status Launch();
  // Forks and execs etcd without waiting for it.
  Status Spawn();
  Status WaitHealthy();

  const EtcdProcessOptions options_;
  std::string dir_;  // holds data/ and etcd.log
  std::string name_ = "default";
  std::string initial_cluster_;  // name=peer URL,...; empty: this member alone
  int client_port_ = 0;
  int peer_port_ = 0;
  std::string endpoint_;
  pid_t pid_ = -1;
  bool paused_ = false;
};

}  // namespace svcplane::storage::etcd::testing
