#pragma once

// The controller-manager runtime (kube-controller-manager's app): validates the options, runs
// leader election on a Lease (or not, with --leader-elect=false), starts the enabled
// controllers while leading, starts the shared informers and waits for their caches, answers
// /livez /readyz /healthz /metrics, and on stop tears everything down in order. The HTTP
// listener itself is the binary's (cmd/) business: it hands requests to ServeHttp.

#include <atomic>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/metrics.h"
#include "client/leaderelection/leader_elector.h"
#include "client/record/event_broadcaster.h"
#include "controllers/manager/registry.h"

namespace svcplane::controllers::manager {

struct ManagerDeps {
  client::Clientset& client;
  // Optional: the client each controller gets in its context (kube-controller-manager's
  // --use-service-account-credentials: one identity per controller). Null: `client` for all.
  // What it returns must outlive the manager.
  std::function<client::Clientset&(std::string_view controller)> client_for;
  client::informers::InformerFactory* informers = nullptr;  // optional
  const Clock* clock = nullptr;                             // null: RealClock
  std::string identity;                                     // "": "<hostname>_<uuid>"
  std::function<double()> random01;                         // optional jitter source (tests)
  // How long the leader may fail to renew past its lease before /livez fails (kcm: 20 s).
  Duration leader_election_watchdog_tolerance = std::chrono::seconds(20);
};

struct HttpReply {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

class ControllerManager {
 public:
  // Validates the options and --controllers against the registry.
  static Result<std::unique_ptr<ControllerManager>> Create(ControllerManagerOptions options,
                                                           const ControllerRegistry& registry,
                                                           ManagerDeps deps);
  ~ControllerManager();

  // Blocks until `stop` fires (OK), leadership is lost (Unavailable "leaderelection lost": the
  // process should exit, as kcm does, so that no two managers act at once), or a controller
  // fails to start (its error). On return every controller thread has been joined and, after
  // a clean stop, the lease released. Call once.
  Status Run(std::stop_token stop);

  // "/livez", "/readyz", "/healthz" (append "?verbose" for the check list), "/metrics".
  // Safe from any thread, at any time.
  HttpReply ServeHttp(std::string_view target) const;

  bool IsLeading() const { return leading_.load(); }
  const std::string& identity() const { return identity_; }
  MetricsRegistry& metrics() { return metrics_; }
  // Names of the controllers started so far.
  std::vector<std::string> started_controllers() const;

 private:
  ControllerManager(ControllerManagerOptions options,
                    std::vector<const ControllerDescriptor*> enabled, ManagerDeps deps);

  // Runs while leading (or always without leader election): starts the controllers and the
  // informers, then blocks until `stop`.
  void Lead(std::stop_token stop);
  Status StartControllers(std::stop_token stop);
  void Spawn(std::string name, std::function<void(std::stop_token)> fn, std::stop_token stop);
  void JoinControllerThreads();

  // Constant after construction.
  const ControllerManagerOptions options_;
  const std::vector<const ControllerDescriptor*> enabled_;
  client::Clientset& client_;
  client::informers::InformerFactory* const informers_;
  const Clock& clock_;
  const std::string identity_;
  const ManagerDeps deps_;

  MetricsRegistry metrics_;
  client::record::ClientEventSink sink_;
  std::unique_ptr<client::record::EventBroadcaster> broadcaster_;
  std::unique_ptr<client::record::EventRecorder> recorder_;
  std::unique_ptr<client::leaderelection::LeaderElector> elector_;  // null without election

  std::stop_source internal_stop_;  // fired by Run's stop, a lost election or a failed start
  std::atomic<bool> leading_{false};
  std::atomic<bool> started_{false};  // controllers started and caches synced
  std::atomic<bool> lost_{false};

  mutable std::mutex mu_;
  // Guarded by mu_.
  std::vector<std::thread> threads_;
  std::vector<std::string> started_names_;
  std::vector<std::shared_ptr<void>> kept_alive_;  // released after the informers stop
  Status start_error_;
};

}  // namespace svcplane::controllers::manager
