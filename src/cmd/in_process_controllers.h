#pragma once

// The controller manager that `svcplane serve` runs over its loopback client. Without leader
// election one term runs until Stop. With it (several servers on one etcd, spec §4.5) a term
// ends when the lease is lost, and this server stands by for the next election: unlike
// kube-controller-manager, which exits then, the process is also an API server whose clients
// should not lose it because etcd was slow for ten seconds.

#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string_view>
#include <thread>

#include "client/typed/interface.h"
#include "controllers/manager/controller_manager.h"

namespace svcplane::cmd {

class InProcessControllers {
 public:
  // `manager_client` lists and watches for the shared informers, runs the election and posts
  // Events; `client_for` gives each controller its own (both in-process, see serve.cc).
  InProcessControllers(client::Clientset& manager_client,
                       std::function<client::Clientset&(std::string_view controller)> client_for,
                       controllers::manager::ControllerManagerOptions options,
                       const controllers::manager::ControllerRegistry& registry);
  ~InProcessControllers();  // Stop()

  // Validates the options by creating the first term, then runs terms on a thread until Stop.
  // `on_failure` is called (on that thread) when a term ends in error other than a lost lease.
  Status Start(std::function<void(const Status&)> on_failure);
  // Stops the current term (its lease released) and joins.
  void Stop();

  // The current term's /livez, /readyz, /healthz, /metrics; 503 between terms.
  controllers::manager::HttpReply ServeHttp(std::string_view target) const;

 private:
  struct Term;
  Result<std::shared_ptr<Term>> NewTerm();
  void Loop(std::shared_ptr<Term> first, std::stop_token stop);

  client::Clientset& loopback_;
  const std::function<client::Clientset&(std::string_view controller)> client_for_;
  const controllers::manager::ControllerManagerOptions options_;
  const controllers::manager::ControllerRegistry& registry_;
  std::function<void(const Status&)> on_failure_;

  mutable std::mutex mu_;
  std::shared_ptr<Term> current_;  // guarded by mu_
  std::jthread thread_;
};

}  // namespace svcplane::cmd
