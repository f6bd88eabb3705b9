#include "controllers/manager/builtin_controllers.h"

#include <spdlog/spdlog.h>

#include <condition_variable>
#include <memory>

namespace svcplane::controllers::manager {

Status StartLeaseHolderLogger(ControllerContext& ctx) {
  std::shared_ptr<client::record::EventRecorder> recorder =
      ctx.events.NewRecorder({.component = kLeaseHolderLogger});
  const std::string ns = ctx.options.leader_election.resource_namespace;
  const std::string name = ctx.options.leader_election.resource_name;
  client::ResourceClient<api::coordination::v1::Lease>& leases = ctx.client.Leases();
  const Clock& clock = ctx.clock;
  ctx.spawn(kLeaseHolderLogger, [recorder, ns, name, &leases, &clock](std::stop_token stop) {
    std::string last_holder;
    std::mutex mu;
    std::condition_variable cv;
    std::stop_callback wake(stop, [&] {
      std::lock_guard<std::mutex> l(mu);
      cv.notify_all();
    });
    while (!stop.stop_requested()) {
      auto lease = leases.Get(ns, name);
      if (!lease.ok()) {
        spdlog::warn("{}: reading lease {}/{}: {}", kLeaseHolderLogger, ns, name,
                     lease.status().ToString());
      } else {
        std::string holder = (*lease)->spec.holder_identity.value_or("");
        if (holder != last_holder) {
          last_holder = holder;
          spdlog::info("{}: {}/{} held by {}", kLeaseHolderLogger, ns, name, holder);
          recorder->Eventf(client::record::ReferenceTo(**lease, "Lease", "coordination.k8s.io/v1"),
                           client::record::kEventTypeNormal, "LeaseHolderObserved",
                           "lease held by {}", holder);
        }
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
