#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "api/types.h"
#include "apiserver/registry/registry.h"
#include "apiserver/server/registry_feed.h"

namespace svcplane::apiserver::server {

// Every active namespace has a ServiceAccount named "default": kube-controller-manager's
// serviceaccounts controller, run inside the server. It creates the account when a namespace
// appears (and for every namespace at start) and again when the account is deleted. A namespace
// that is terminating gets none, as upstream. Several servers may race to create it: the
// loser's AlreadyExists is the success it wanted.
class DefaultServiceAccounts {
 public:
  DefaultServiceAccounts(registry::Registry<api::core::v1::Namespace>* namespaces,
                         registry::Registry<api::core::v1::ServiceAccount>* accounts);
  ~DefaultServiceAccounts();
  DefaultServiceAccounts(const DefaultServiceAccounts&) = delete;
  DefaultServiceAccounts& operator=(const DefaultServiceAccounts&) = delete;

  void Start();
  void Stop();

  // Creates the account in `ns` unless it exists or `ns` is gone or terminating. Exposed for
  // tests; the worker calls it for each queued namespace.
  Status Ensure(const std::string& ns);

 private:
  void Enqueue(std::string ns);
  void Work();

  registry::Registry<api::core::v1::Namespace>* namespaces_;
  registry::Registry<api::core::v1::ServiceAccount>* accounts_;
  std::unique_ptr<RegistryFeed<api::core::v1::Namespace>> namespace_feed_;
  std::unique_ptr<RegistryFeed<api::core::v1::ServiceAccount>> account_feed_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;  // guarded by mu_
  std::set<std::string> queued_;   // guarded by mu_: each namespace at most once in queue_
  bool stopping_ = false;          // guarded by mu_
  std::thread worker_;
};

}  // namespace svcplane::apiserver::server
