#include "base/logging.h"

#include <string>

namespace svcplane {

Status SetLogLevel(std::string_view level) {
  auto parsed = spdlog::level::from_str(std::string(level));
  if (parsed == spdlog::level::off && level != "off") {
    return BadRequestError("unknown log level \"" + std::string(level) +
                           "\": use trace, debug, info, warn, error or off");
  }
  spdlog::set_level(parsed);
  return Status::Ok();
}

}  // namespace svcplane
