#include "controllers/manager/builtin_controllers.h"

#include <spdlog/spdlog.h>

#include <condition_variable>
#include <memory>

namespace svcplane::controllers::manager {

namespace {

// Logs and reports a holder change; called from one thread at a time.
class HolderReporter {
 public:
  explicit HolderReporter(client::record::EventRecorder& recorder) : recorder_(recorder) {}
  void Observe(const api::coordination::v1::Lease& lease) {
    std::string holder = lease.spec.holder_identity.value_or("");
    if (seen_ && holder == last_holder_) return;
    seen_ = true;
    last_holder_ = holder;
    spdlog::info("{}: {}/{} held by {}", kLeaseHolderLogger, lease.metadata.namespace_,
                 lease.metadata.name, holder);
    recorder_.Eventf(client::record::ReferenceTo(lease, "Lease", "coordination.k8s.io/v1"),
                     client::record::kEventTypeNormal, "LeaseHolderObserved", "lease held by {}",
                     holder);
  }

 private:
  client::record::EventRecorder& recorder_;
  bool seen_ = false;
  std::string last_holder_;
};

}  // namespace

Status StartLeaseHolderLogger(ControllerContext& ctx) {
  std::shared_ptr<client::record::EventRecorder> recorder =
      ctx.events.NewRecorder({.component = kLeaseHolderLogger});
  auto reporter = std::make_shared<HolderReporter>(*recorder);
  const std::string ns = ctx.options.leader_election.resource_namespace;
  const std::string name = ctx.options.leader_election.resource_name;

  if (ctx.informers != nullptr) {
    // Through the shared Lease informer: the manager starts it after this returns and waits for
    // its cache before reporting ready.
    auto on_lease = [recorder, reporter, ns,
                     name](const client::ObjectPtr<api::coordination::v1::Lease>& l) {
      if (l->metadata.namespace_ == ns && l->metadata.name == name) reporter->Observe(*l);
    };
    ctx.informers->Leases().AddEventHandler({
        .on_add = [on_lease](const auto& obj, bool) { on_lease(obj); },
        .on_update = [on_lease](const auto&, const auto& obj) { on_lease(obj); },
        .on_delete = nullptr,
    });
    return Status::Ok();
  }

  // Without informers: poll the Lease every second.
  client::ResourceClient<api::coordination::v1::Lease>& leases = ctx.client.Leases();
  const Clock& clock = ctx.clock;
  ctx.spawn(kLeaseHolderLogger,
            [recorder, reporter, ns, name, &leases, &clock](std::stop_token stop) {
              std::mutex mu;
              std::condition_variable cv;
              std::stop_callback wake(stop, [&] {
                std::lock_guard<std::mutex> l(mu);
                cv.notify_all();
              });
              while (!stop.stop_requested()) {
                auto lease = leases.Get(ns, name);
                if (lease.ok()) {
                  reporter->Observe(**lease);
                } else {
                  spdlog::warn("{}: reading lease {}/{}: {}", kLeaseHolderLogger, ns, name,
                               lease.status().ToString());
                }
                std::unique_lock<std::mutex> l(mu);
                clock.WaitUntil(l, cv, clock.Now() + std::chrono::seconds(1),
                                [&] { return stop.stop_requested(); });
              }
            });
  return Status::Ok();
}

Status RegisterBuiltinControllers(ControllerRegistry& registry) {
  return registry.Register(
      {.name = kLeaseHolderLogger, .start = StartLeaseHolderLogger, .disabled_by_default = true});
}

}  // namespace svcplane::controllers::manager
