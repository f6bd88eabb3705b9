#include "cmd/register_controllers.h"

#include "controllers/manager/builtin_controllers.h"

namespace svcplane::cmd {

Status RegisterControllers(controllers::manager::ControllerRegistry& registry) {
  SVC_RETURN_IF_ERROR(controllers::manager::RegisterBuiltinControllers(registry));
  return Status::Ok();
}

}  // namespace svcplane::cmd
