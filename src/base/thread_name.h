#pragma once

#include <string>
#include <string_view>

namespace svcplane {

// Names the calling thread as `top -H`, `perf` and /proc/PID/task/*/comm show it. Linux keeps
// 15 bytes; a longer name is cut. Without names every thread of the server shows as "svcplane".
void NameThisThread(std::string_view name);

// The calling thread's name ("" where the platform has none).
std::string ThisThreadName();

}  // namespace svcplane
