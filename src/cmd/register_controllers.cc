#include "cmd/register_controllers.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <stop_token>

#include "controllers/clusterroleaggregation/controller.h"
#include "controllers/deployment/controller.h"
#include "controllers/endpoints/controller.h"
#include "controllers/endpointslice/controller.h"
#include "controllers/endpointslice/recorder_event_sink.h"
#include "controllers/manager/builtin_controllers.h"
#include "controllers/mirroring/controller.h"
#include "controllers/replicaset/controller.h"

namespace svcplane::cmd {

namespace {

namespace manager = controllers::manager;

// Starts one controller with what it emits Events through. A manager thread shuts it down when
// the manager stops; the manager keeps it alive (ctx.keep_alive) until its informers have stopped
// delivering, since their handlers point at it.
template <typename Controller, typename Options>
Status StartOwned(manager::ControllerContext& ctx, const char* name, const char* component,
                  Options options) {
  if (ctx.informers == nullptr) return InternalError(std::string(name) + " needs informers");
  struct Owned {
    std::unique_ptr<client::record::EventRecorder> recorder;
    std::unique_ptr<controllers::endpointslice::RecorderEventSink> sink;
    std::unique_ptr<Controller> controller;
  };
  auto owned = std::make_shared<Owned>();
  owned->recorder = ctx.events.NewRecorder({.component = component});
  owned->sink = std::make_unique<controllers::endpointslice::RecorderEventSink>(*owned->recorder);
  owned->controller = std::make_unique<Controller>(*ctx.informers, ctx.client, *owned->sink,
                                                   &ctx.metrics, ctx.clock, std::move(options));
  owned->controller->Run();
  ctx.keep_alive(owned);
  ctx.spawn(name, [owned](std::stop_token stop) {
    std::mutex mu;
    std::condition_variable_any cv;
    std::unique_lock lock(mu);
    cv.wait(lock, stop, [] { return false; });
    owned->controller->Shutdown();
  });
  return Status::Ok();
}

Status StartEndpointSliceController(manager::ControllerContext& ctx) {
  const auto& o = ctx.options.endpointslice;
  controllers::endpointslice::EndpointSliceControllerOptions opts;
  opts.workers = o.concurrent_service_endpoint_syncs;
  opts.max_endpoints_per_slice = o.max_endpoints_per_slice;
  opts.batch_period = o.endpointslice_updates_batch_period;
  opts.rebalance = o.rebalance;
  return StartOwned<controllers::endpointslice::EndpointSliceController>(
      ctx, "endpointslice-controller", controllers::endpointslice::kEventComponent, opts);
}

Status StartEndpointsController(manager::ControllerContext& ctx) {
  const auto& o = ctx.options.endpoint;
  controllers::endpoints::EndpointsControllerOptions opts;
  opts.workers = o.concurrent_endpoint_syncs;
  opts.batch_period = o.endpoint_updates_batch_period;
  return StartOwned<controllers::endpoints::EndpointsController>(
      ctx, "endpoint-controller", controllers::endpoints::kEventComponent, opts);
}

Status StartMirroringController(manager::ControllerContext& ctx) {
  const auto& o = ctx.options.mirroring;
  controllers::mirroring::MirroringControllerOptions opts;
  opts.workers = o.mirroring_concurrent_service_endpoint_syncs;
  opts.max_endpoints_per_subset = o.mirroring_max_endpoints_per_subset;
  opts.batch_period = o.mirroring_endpointslice_updates_batch_period;
  return StartOwned<controllers::mirroring::MirroringController>(
      ctx, "endpointslicemirroring-controller", controllers::mirroring::kEventComponent, opts);
}

Status StartReplicaSetController(manager::ControllerContext& ctx) {
  controllers::replicaset::ReplicaSetControllerOptions opts;
  opts.workers = ctx.options.replicaset.concurrent_replicaset_syncs;
  return StartOwned<controllers::replicaset::ReplicaSetController>(
      ctx, "replicaset-controller", controllers::replicaset::kEventComponent, opts);
}

Status StartDeploymentController(manager::ControllerContext& ctx) {
  controllers::deployment::DeploymentControllerOptions opts;
  opts.workers = ctx.options.deployment.concurrent_deployment_syncs;
  return StartOwned<controllers::deployment::DeploymentController>(
      ctx, "deployment-controller", controllers::deployment::kEventComponent, opts);
}

// Two threads: one lists and watches ClusterRoles, one writes the aggregated rules.
Status StartClusterRoleAggregationController(manager::ControllerContext& ctx) {
  namespace agg = controllers::clusterroleaggregation;
  auto controller =
      std::make_shared<agg::AggregationController>(ctx.client.ClusterRoles(), ctx.clock);
  ctx.keep_alive(controller);
  ctx.spawn(std::string(agg::kControllerName) + "-watch",
            [controller](std::stop_token stop) { controller->Watch(stop); });
  ctx.spawn(std::string(agg::kControllerName),
            [controller](std::stop_token stop) { controller->Work(stop); });
  return Status::Ok();
}

}  // namespace

Status RegisterControllers(manager::ControllerRegistry& registry) {
  SVC_RETURN_IF_ERROR(manager::RegisterBuiltinControllers(registry));
  // Named after the ServiceAccounts kube-controller-manager gives them (the in-process client
  // of each acts as kube-system/<name>, see component_clients.h), with the names its
  // --controllers accepts since 1.28 and the older short ones as aliases.
  SVC_RETURN_IF_ERROR(registry.Register({"endpoint-controller",
                                         StartEndpointsController,
                                         false,
                                         {"endpoints-controller", "endpoint"}}));
  SVC_RETURN_IF_ERROR(registry.Register(
      {"endpointslice-controller", StartEndpointSliceController, false, {"endpointslice"}}));
  SVC_RETURN_IF_ERROR(
      registry.Register({"endpointslicemirroring-controller",
                         StartMirroringController,
                         false,
                         {"endpointslice-mirroring-controller", "endpointslicemirroring"}}));
  SVC_RETURN_IF_ERROR(registry.Register(
      {"replicaset-controller", StartReplicaSetController, false, {"replicaset"}}));
  SVC_RETURN_IF_ERROR(registry.Register(
      {"deployment-controller", StartDeploymentController, false, {"deployment"}}));
  // On by default, as in kube-controller-manager: the bootstrap admin/edit/view roles are
  // empty until it runs.
  SVC_RETURN_IF_ERROR(
      registry.Register({std::string(controllers::clusterroleaggregation::kControllerName),
                         StartClusterRoleAggregationController,
                         false,
                         {"clusterrole-aggregation"}}));
  return Status::Ok();
}

}  // namespace svcplane::cmd
