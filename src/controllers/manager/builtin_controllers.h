#pragma once

#include "controllers/manager/registry.h"

namespace svcplane::controllers::manager {

// "lease-holder-logger" (disabled by default): a minimal controller that proves the runtime
// end to end without the real controllers. While its manager leads, it reads the leader
// election Lease (through the shared Lease informer, or by polling every second when the
// manager has no informers) and logs
//   lease-holder-logger: kube-system/svcplane-controller-manager held by <identity>
// whenever the holder changes, and reports a Normal "LeaseHolderObserved" Event on the Lease.
// It writes nothing else.
inline constexpr char kLeaseHolderLogger[] = "lease-holder-logger";
Status StartLeaseHolderLogger(ControllerContext& ctx);

// Registers the built-in controllers above.
Status RegisterBuiltinControllers(ControllerRegistry& registry);

}  // namespace svcplane::controllers::manager
