#pragma once

// What a controller gets when the manager starts it, and how a controller is described to the
// manager. A controller plugs in with one line in the binary's registration:
//   registry.Register({"endpointslice-controller", StartEndpointSliceController});

#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/metrics.h"
#include "base/status.h"
#include "client/informers/interface.h"
#include "client/record/event_broadcaster.h"
#include "client/typed/interface.h"
#include "controllers/manager/options.h"

namespace svcplane::controllers::manager {

// Shared by every controller of one manager; lives until every controller thread has ended.
struct ControllerContext {
  client::Clientset& client;
  // Shared informers; the manager starts them after every controller's Start returned, and
  // waits for their caches before reporting ready. Null when the binary has no factory wired.
  client::informers::InformerFactory* informers;
  // Each controller makes its recorder: events.NewRecorder({.component = "endpoint-controller"}).
  client::record::EventBroadcaster& events;
  const ControllerManagerOptions& options;
  MetricsRegistry& metrics;
  const Clock& clock;
  // Fires when the manager stops or loses leadership.
  std::stop_token stop;
  // Runs `fn` on a manager-owned thread that is joined on shutdown; `fn` must return soon after
  // its stop token fires. Controllers start their workers with it instead of owning threads.
  std::function<void(std::string name, std::function<void(std::stop_token)> fn)> spawn;
  // Keeps `object` alive until the informers have stopped delivering and every controller
  // thread has been joined: what informer handlers point at must not die before that.
  std::function<void(std::shared_ptr<void> object)> keep_alive;
};

// Starts a controller: registers informer handlers, spawns workers, and returns without
// blocking. An error aborts the manager start (as kcm's "error starting <name>").
using StartFunc = std::function<Status(ControllerContext& ctx)>;

struct ControllerDescriptor {
  std::string name;  // kcm's name: "endpointslice-controller"
  StartFunc start;
  // Not started by "*"; only when --controllers names it.
  bool disabled_by_default = false;
  // Older names accepted in --controllers ("endpointslice").
  std::vector<std::string> aliases;
};

}  // namespace svcplane::controllers::manager
