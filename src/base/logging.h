#pragma once

#include <spdlog/spdlog.h>

#include <string_view>

#include "base/status.h"

namespace svcplane {

// Sets the global log level from a flag value ("trace", "debug", "info", "warn", "error").
Status SetLogLevel(std::string_view level);

}  // namespace svcplane
