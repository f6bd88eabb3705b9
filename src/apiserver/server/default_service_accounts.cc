#include "apiserver/server/default_service_accounts.h"

#include "base/logging.h"
#include "base/thread_name.h"

namespace svcplane::apiserver::server {

using api::core::v1::Namespace;
using api::core::v1::ServiceAccount;

DefaultServiceAccounts::DefaultServiceAccounts(registry::Registry<Namespace>* namespaces,
                                               registry::Registry<ServiceAccount>* accounts)
    : namespaces_(namespaces), accounts_(accounts) {
  namespace_feed_ = std::make_unique<RegistryFeed<Namespace>>(
      namespaces_,
      RegistryFeed<Namespace>::Callbacks{
          .replace =
              [this](std::vector<std::shared_ptr<const Namespace>> all) {
                for (const auto& ns : all) Enqueue(ns->metadata.name);
              },
          .upsert = [this](std::shared_ptr<const Namespace> ns) { Enqueue(ns->metadata.name); },
          .remove = [](const Namespace&) {}});
  account_feed_ = std::make_unique<RegistryFeed<ServiceAccount>>(
      accounts_, RegistryFeed<ServiceAccount>::Callbacks{
                     .replace = [](std::vector<std::shared_ptr<const ServiceAccount>>) {},
                     .upsert = [](std::shared_ptr<const ServiceAccount>) {},
                     .remove =
                         [this](const ServiceAccount& sa) {
                           if (sa.metadata.name == api::core::v1::kDefaultServiceAccountName) {
                             Enqueue(sa.metadata.namespace_);
                           }
                         }});
}

DefaultServiceAccounts::~DefaultServiceAccounts() { Stop(); }

void DefaultServiceAccounts::Start() {
  worker_ = std::thread([this] {
    NameThisThread("default-sa");
    Work();
  });
  namespace_feed_->Start("default-sa-ns");
  account_feed_->Start("default-sa-sa");
}

void DefaultServiceAccounts::Stop() {
  namespace_feed_->Stop();
  account_feed_->Stop();
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void DefaultServiceAccounts::Enqueue(std::string ns) {
  {
    std::lock_guard lock(mu_);
    if (!queued_.insert(ns).second) return;
    queue_.push_back(std::move(ns));
  }
  cv_.notify_one();
}

void DefaultServiceAccounts::Work() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    std::string ns = std::move(queue_.front());
    queue_.pop_front();
    queued_.erase(ns);
    lock.unlock();
    Status st = Ensure(ns);
    if (!st.ok()) {
      spdlog::warn("default service account in namespace {}: {}; retrying", ns, st.message());
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      Enqueue(ns);
    }
    lock.lock();
  }
}

Status DefaultServiceAccounts::Ensure(const std::string& ns) {
  auto got = namespaces_->Get("", ns);
  if (!got.ok()) return got.status().code() == Code::kNotFound ? Status::Ok() : got.status();
  const Namespace& n = *got->obj;
  if (n.metadata.deletion_timestamp || n.status.phase == "Terminating") return Status::Ok();
  auto sa = accounts_->Get(ns, api::core::v1::kDefaultServiceAccountName);
  if (sa.ok()) return Status::Ok();
  if (sa.status().code() != Code::kNotFound) return sa.status();
  ServiceAccount account;
  account.metadata.name = std::string(api::core::v1::kDefaultServiceAccountName);
  auto created = accounts_->Create(ns, std::move(account), registry::WriteOptions{});
  if (created.ok() || created.status().code() == Code::kAlreadyExists) return Status::Ok();
  // The namespace started terminating (or vanished) meanwhile: nothing left to do.
  if (created.status().code() == Code::kForbidden || created.status().code() == Code::kNotFound) {
    return Status::Ok();
  }
  return created.status();
}

}  // namespace svcplane::apiserver::server
