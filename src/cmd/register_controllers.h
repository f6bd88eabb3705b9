#pragma once

#include "base/status.h"
#include "controllers/manager/registry.h"

namespace svcplane::cmd {

// Every controller svcplane ships, by kube-controller-manager's names, for both places they
// run: `svcplane controllers` (over HTTPS) and `svcplane serve` (in-process).
Status RegisterControllers(controllers::manager::ControllerRegistry& registry);

}  // namespace svcplane::cmd
