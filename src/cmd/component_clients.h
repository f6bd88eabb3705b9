#pragma once

// The in-process components of `svcplane serve` as the identities upstream gives them (issue 22,
// spec authn-authz-audit §4.4), each an IdentityClientset over the server's loopback:
//   - the controller manager's shared informers, election and Events:
//   system:kube-controller-manager;
//   - each controller: its ServiceAccount kube-system/<controller name>, as
//     kube-controller-manager --use-service-account-credentials (the bootstrap policy binds
//     system:controller:<name> to it); one without such a role (lease-holder-logger) acts as
//     the manager;
//   - the simulator's scheduler: system:kube-scheduler; its node lifecycle monitor:
//     kube-system/node-controller; each simulated kubelet: system:node:<name>.
// The bootstrap loops of the API server itself keep the privileged loopback, as upstream's
// run as system:apiserver.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "apiserver/server/api_server.h"
#include "client/typed/interface.h"

namespace svcplane::cmd {

class ComponentClients {
 public:
  explicit ComponentClients(apiserver::server::ApiServer& server);

  client::Clientset& ControllerManager() { return *controller_manager_; }
  client::Clientset& Scheduler() { return *scheduler_; }
  // Made on first use, kept until destroyed. Safe from any thread.
  client::Clientset& Controller(std::string_view name);
  client::Clientset& Kubelet(std::string_view node);

 private:
  client::Clientset& Cached(
      std::map<std::string, std::unique_ptr<client::Clientset>, std::less<>>& m,
      std::string_view key, const std::function<apiserver::server::ComponentIdentity()>& who);

  apiserver::server::ApiServer& server_;
  std::unique_ptr<client::Clientset> controller_manager_;
  std::unique_ptr<client::Clientset> scheduler_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<client::Clientset>, std::less<>> controllers_;  // mu_
  std::map<std::string, std::unique_ptr<client::Clientset>, std::less<>> kubelets_;     // mu_
};

}  // namespace svcplane::cmd
