#include "cmd/component_clients.h"

#include <algorithm>

#include "apiserver/authorization/bootstrap_policy.h"

namespace svcplane::cmd {

namespace server = apiserver::server;

ComponentClients::ComponentClients(server::ApiServer& server)
    : server_(server),
      controller_manager_(server.LoopbackAs(server::UserIdentity(
          "system:kube-controller-manager", {}, "svcplane/in-process kube-controller-manager",
          "kube-controller-manager"))),
      scheduler_(server.LoopbackAs(server::UserIdentity(
          "system:kube-scheduler", {}, "svcplane/in-process kube-scheduler", "kube-scheduler"))) {}

client::Clientset& ComponentClients::Controller(std::string_view name) {
  // svcplane's own controllers (no upstream ServiceAccount, no bootstrap role) run as the
  // manager, as they would inside kube-controller-manager without service account credentials.
  const auto& roles = apiserver::authorization::BootstrapClusterRoles();
  const std::string role = "system:controller:" + std::string(name);
  if (std::none_of(roles.begin(), roles.end(),
                   [&](const auto& r) { return r.metadata.name == role; })) {
    return *controller_manager_;
  }
  return Cached(controllers_, name,
                [&] { return server::ServiceAccountIdentity("kube-system", name); });
}

client::Clientset& ComponentClients::Kubelet(std::string_view node) {
  return Cached(kubelets_, node, [&] { return server::NodeIdentity(node); });
}

client::Clientset& ComponentClients::Cached(
    std::map<std::string, std::unique_ptr<client::Clientset>, std::less<>>& m, std::string_view key,
    const std::function<server::ComponentIdentity()>& who) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = m.find(key);
  if (it == m.end()) it = m.emplace(std::string(key), server_.LoopbackAs(who())).first;
  return *it->second;
}

}  // namespace svcplane::cmd
